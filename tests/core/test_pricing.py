"""The price table and what a session's tokens cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, load_config
from hermes_tui.core.pricing import (
    ModelPrice,
    UsageTotals,
    cost,
    format_cost,
    parse_prices,
    price_for,
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1-mini", ModelPrice(0.40, 1.60, 0.10)),
        ("gpt-4.1-mini-2025-04-14", ModelPrice(0.40, 1.60, 0.10)),
        ("gpt-4o", ModelPrice(2.50, 10.0, 1.25)),
        ("gpt-4o-2024-08-06", ModelPrice(2.50, 10.0, 1.25)),
        ("gpt-4o-mini", ModelPrice(0.15, 0.60, 0.075)),
        ("openai/gpt-5-mini", ModelPrice(0.25, 2.0, 0.025)),
        ("claude-sonnet-4-5-20250929", ModelPrice(3.0, 15.0, 0.3, 3.75)),
        ("anthropic/claude-sonnet-4.5", ModelPrice(3.0, 15.0, 0.3, 3.75)),
        ("claude-3-5-haiku-latest", ModelPrice(0.8, 4.0, 0.08, 1.0)),
    ],
)
def test_known_models_are_priced_whatever_their_suffix_or_router_prefix(
    model: str, expected: ModelPrice
) -> None:
    price = price_for(model)
    assert price is not None
    assert price.input == pytest.approx(expected.input)
    assert price.output == pytest.approx(expected.output)
    assert price.cached_input == pytest.approx(expected.cached_input)
    if expected.cache_write is not None:
        assert price.cache_write == pytest.approx(expected.cache_write)


@pytest.mark.parametrize(
    "model", ["gpt-5-pro", "gpt-4-1106-preview", "llama3.1:8b", "fake-model", ""]
)
def test_an_unknown_model_has_no_price_rather_than_a_guess(model: str) -> None:
    assert price_for(model) is None


def test_config_prices_add_a_model_and_replace_a_listed_one() -> None:
    overrides = {"llama3.1:8b": ModelPrice(0, 0), "gpt-4o": ModelPrice(1.0, 2.0)}
    assert price_for("llama3.1:8b", overrides) == ModelPrice(0, 0)
    assert price_for("gpt-4o-2024-08-06", overrides) == ModelPrice(1.0, 2.0)


def test_cost_bills_cached_and_cache_written_tokens_at_their_own_rates() -> None:
    price = ModelPrice(3.0, 15.0, 0.3, 3.75)
    totals = UsageTotals(
        input_tokens=1_000_000, output_tokens=100_000, cached_tokens=600_000,
        cache_write_tokens=200_000,
    )  # fmt: skip
    # 200k fresh at $3, 600k cached at $0.30, 200k written at $3.75, 100k out at $15
    assert cost(totals, price) == pytest.approx(0.6 + 0.18 + 0.75 + 1.5)
    assert totals.cache_share == pytest.approx(0.6)


def test_cost_is_shown_with_enough_digits_to_move() -> None:
    assert format_cost(0.00042) == "$0.0004"
    assert format_cost(0.184) == "$0.184"
    assert format_cost(12.4) == "$12.40"


def test_display_prices_in_config_yaml_are_checked(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "display:\n  prices:\n    my-model: {input: 0.5, output: 1.5, cached_input: 0.05}\n"
    )
    config = load_config(tmp_path, environ={})
    assert config.display.prices == {"my-model": ModelPrice(0.5, 1.5, 0.05)}
    (tmp_path / "config.yaml").write_text(
        "display:\n  prices:\n    my-model: {input: 0.5, ouput: 1.5}\n"
    )
    with pytest.raises(
        ConfigError, match=r"config.yaml:2: display.prices.my-model: unknown field 'ouput'"
    ):
        load_config(tmp_path, environ={})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([1, 2], "must map model names"),
        ({"m": {"input": 1}}, "needs output"),
        ({"m": {"input": "cheap", "output": 1}}, "must be a number"),
        ({"m": {"input": -1, "output": 1}}, "0 or more"),
    ],
)
def test_bad_prices_say_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_prices(raw, "display.prices")
