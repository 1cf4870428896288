"""The nudge bar's spend: tokens in and out and cost so far, restored with a resumed session."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send

from hermes_tui.ui.widgets.nudge_bar import NudgeBar

SIZE = (150, 40)


def bar_text(app) -> str:
    return str(app.query_one(NudgeBar).render())


async def test_tokens_and_cost_add_up_over_the_calls_of_a_session(home: Path, llm: FakeLLM) -> None:
    llm.script(
        Reply(
            tool_calls=[("terminal", {"command": "true"})],
            input_tokens=6_000, output_tokens=500, cached_tokens=2_000,
        ),
        Reply(text="Done.", input_tokens=4_000, output_tokens=1_500, cached_tokens=2_000),
    )  # fmt: skip
    app = make_app(home, llm.openai_url, model={"name": "gpt-4o"})
    async with app.run_test(size=SIZE) as pilot:
        assert "tokens" not in bar_text(app)  # nothing spent yet
        await send(app, pilot, "go")
        # 6,000 fresh at $2.50, 4,000 cached at $1.25, 2,000 out at $10 per million
        text = bar_text(app)
        assert "tokens 10.0k in · 2.0k out" in text
        assert "$0.040" in text
        assert "cached 50%" in text  # the last call: 2,000 of 4,000 from the cache
        await app.action_new_session()
        await pilot.pause()
        assert "tokens" not in bar_text(app)


async def test_an_unknown_model_says_its_cost_is_not_shown_and_config_can_price_it(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Hi.", input_tokens=1_000, output_tokens=100))
    app = make_app(home, llm.openai_url)  # fake-model: in no price table
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "hello")
        assert "tokens 1.0k in · 100 out  │  cost n/a" in bar_text(app)
        assert "display.prices" in str(app.query_one(NudgeBar).tooltip)
    llm.script(Reply(text="Hi.", input_tokens=1_000_000, output_tokens=0))
    app = make_app(
        home, llm.openai_url, display={"prices": {"fake-model": {"input": 0.5, "output": 1}}}
    )
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "hello")
        assert "$0.500" in bar_text(app)
        assert app.query_one(NudgeBar).tooltip is None


async def test_a_resumed_session_shows_the_tokens_and_cost_it_ran_up(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="One.", input_tokens=20_000, output_tokens=1_000))
    app = make_app(home, llm.openai_url, model={"name": "gpt-4.1-mini"})
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first")
        session_id = app.session.id
        before = bar_text(app)
    assert "tokens 20.0k in · 1.0k out" in before and "$0.0096" in before
    app = make_app(home, llm.openai_url, model={"name": "gpt-4.1-mini"})
    async with app.run_test(size=SIZE) as pilot:
        app.resume(session_id)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "tokens 20.0k in · 1.0k out  │  $0.0096" in bar_text(app)
        llm.script(Reply(text="Two.", input_tokens=20_000, output_tokens=1_000))
        await send(app, pilot, "second")
        assert "tokens 40.0k in · 2.0k out  │  $0.019" in bar_text(app)


async def test_a_narrow_bar_keeps_the_spend_short(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Hi.", input_tokens=12_345, output_tokens=678))
    app = make_app(home, llm.openai_url, model={"name": "gpt-4o-mini"})
    async with app.run_test(size=(80, 24)) as pilot:
        await send(app, pilot, "hello")
        text = bar_text(app)
        assert text.endswith("12.3k↑ 678↓ $0.0023"), text
        assert len(text) <= 78


async def test_the_spend_says_less_before_the_long_bar_gives_way(home: Path) -> None:
    """At 120 columns the bar stays long once tokens exist (README: the short form is for
    fewer than 100); the reviews' tokens show where there is room for them."""
    from hermes_tui.core.events import UsageUpdated
    from hermes_tui.core.pricing import UsageTotals

    usage = UsageUpdated("s", "gpt-4o", UsageTotals(48_200, 3_100), 0.084, UsageTotals(12_400, 300))
    app = make_app(home)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.press("escape")
        bar = app.query_one(NudgeBar)
        bar.usage = usage
        for width, wanted in (
            (200, "tokens 48.2k in · 3.1k out · reviews 12.4k in · 300 out"),
            (150, "tokens 48.2k in · 3.1k out"),
            (120, "tokens 48.2k in · 3.1k out"),
            (110, "48.2k↑ 3.1k↓ $0.084"),
        ):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            text = bar_text(app)
            assert "memory 0/10 turns" in text and wanted in text, (width, text)
            assert "$0.084" in text and len(text) <= width
