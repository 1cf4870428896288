"""What a session's tokens cost: a price table per known model, overridable in config.

Prices are US dollars per million tokens, as OpenAI and Anthropic publish them: `input`
(uncached prompt tokens), `output`, `cached_input` (prompt tokens read from the provider's
cache) and `cache_write` (Anthropic bills writing the cache at 1.25 × input; OpenAI's caching
is free to write). A model is looked up by its name without a router prefix
(`anthropic/claude-sonnet-4.5` → `claude-sonnet-4-5`), dots read as hyphens, and with a date or
`-latest` suffix allowed (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`); anything else is
unknown and its cost is not shown rather than guessed (`gpt-5-pro` is not `gpt-5`).
`display.prices` in config.yaml adds models or replaces a listed model's prices.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hermes_tui.core.records import datarecord

PRICE_FIELDS = ("input", "output", "cached_input", "cache_write")


@datarecord
class ModelPrice:
    """A model's price per million tokens of each kind."""

    input: float
    output: float
    cached_input: float | None = None  # None: cached tokens cost the same as input
    cache_write: float | None = None  # None: writing the cache costs the same as input


def _anthropic(input_price: float, output_price: float) -> ModelPrice:
    # Anthropic: cache reads at 0.1 × input, 5-minute cache writes at 1.25 × input.
    return ModelPrice(input_price, output_price, input_price * 0.1, input_price * 1.25)


# Published list prices (USD per million tokens), standard tier.
KNOWN_PRICES: dict[str, ModelPrice] = {
    # OpenAI
    "gpt-5": ModelPrice(1.25, 10.0, 0.125),
    "gpt-5-1": ModelPrice(1.25, 10.0, 0.125),
    "gpt-5-mini": ModelPrice(0.25, 2.0, 0.025),
    "gpt-5-nano": ModelPrice(0.05, 0.40, 0.005),
    "gpt-4-1": ModelPrice(2.0, 8.0, 0.50),
    "gpt-4-1-mini": ModelPrice(0.40, 1.60, 0.10),
    "gpt-4-1-nano": ModelPrice(0.10, 0.40, 0.025),
    "gpt-4o": ModelPrice(2.50, 10.0, 1.25),
    "gpt-4o-mini": ModelPrice(0.15, 0.60, 0.075),
    "o1": ModelPrice(15.0, 60.0, 7.50),
    "o3": ModelPrice(2.0, 8.0, 0.50),
    "o3-mini": ModelPrice(1.10, 4.40, 0.55),
    "o4-mini": ModelPrice(1.10, 4.40, 0.275),
    # Anthropic
    "claude-opus-4-5": _anthropic(5.0, 25.0),
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4": _anthropic(15.0, 75.0),
    "claude-sonnet-4-5": _anthropic(3.0, 15.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0),
    "claude-3-5-sonnet": _anthropic(3.0, 15.0),
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
    "claude-3-5-haiku": _anthropic(0.80, 4.0),
    "claude-3-haiku": _anthropic(0.25, 1.25),
}
# What may follow a listed name and still be the same model: a snapshot date or an alias.
_SUFFIX = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?")


def normalise_model(name: str) -> str:
    """`anthropic/Claude-Sonnet-4.5` → `claude-sonnet-4-5`: the form the table is keyed by."""
    base = name.strip().rsplit("/", 1)[-1].lower()
    return base.replace(".", "-").replace(":", "-")


def price_for(model: str, overrides: Mapping[str, ModelPrice] | None = None) -> ModelPrice | None:
    """The price of `model`: from `overrides` (config) first, then the table; None if unknown."""
    if not model:
        return None
    overrides = overrides or {}
    if model in overrides:
        return overrides[model]
    wanted = normalise_model(model)
    own = {normalise_model(name): price for name, price in overrides.items()}
    for table in (own, KNOWN_PRICES):
        for name in sorted(table, key=len, reverse=True):
            if wanted.startswith(name) and _SUFFIX.fullmatch(wanted[len(name) :]):
                return table[name]
    return None


@datarecord
class UsageTotals:
    """Tokens of a session so far. `input_tokens` counts every prompt token, cached or not."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def cache_share(self) -> float:
        """The share of prompt tokens served from the provider's cache."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


def cost(totals: UsageTotals, price: ModelPrice) -> float:
    """US dollars for `totals` at `price`."""
    cached = min(totals.cached_tokens, totals.input_tokens)
    written = min(totals.cache_write_tokens, totals.input_tokens - cached)
    fresh = totals.input_tokens - cached - written
    cached_price = price.input if price.cached_input is None else price.cached_input
    write_price = price.input if price.cache_write is None else price.cache_write
    dollars = (
        fresh * price.input
        + cached * cached_price
        + written * write_price
        + totals.output_tokens * price.output
    )
    return dollars / 1_000_000


def format_cost(dollars: float) -> str:
    """`$0.0042`, `$0.18`, `$12.40`: enough digits to see a cheap session move."""
    if dollars < 0.01:
        return f"${dollars:.4f}"
    if dollars < 1:
        return f"${dollars:.3f}"
    return f"${dollars:,.2f}"


def format_tokens(count: int) -> str:
    """`950`, `12.3k`, `1.25M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


def parse_prices(raw: object, where: str) -> dict[str, ModelPrice]:
    """`display.prices` from config.yaml: model name → {input, output[, cached_input,
    cache_write]} in USD per million tokens. Raises ValueError with a message naming the key."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{where} must map model names to prices, e.g. "
            "{my-model: {input: 0.5, output: 1.5}} (USD per million tokens)"
        )
    prices: dict[str, ModelPrice] = {}
    for model, fields in raw.items():
        key = f"{where}.{model}"
        if not isinstance(fields, Mapping):
            raise ValueError(f"{key} must be a mapping with input and output (USD per 1M tokens)")
        unknown = [str(f) for f in fields if f not in PRICE_FIELDS]
        if unknown:
            raise ValueError(
                f"{key}: unknown field {unknown[0]!r}; prices take {', '.join(PRICE_FIELDS)}"
            )
        missing = [f for f in ("input", "output") if f not in fields]
        if missing:
            raise ValueError(f"{key} needs {' and '.join(missing)} (USD per million tokens)")
        values: dict[str, float] = {}
        for name, value in fields.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(
                    f"{key}.{name} must be a number of dollars, 0 or more, not {value!r}"
                )
            values[str(name)] = float(value)
        prices[str(model)] = ModelPrice(**values)
    return prices
