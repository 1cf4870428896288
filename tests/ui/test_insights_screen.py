"""The Insights screen (f5) over a home where the demo ran three times."""

from __future__ import annotations

from pathlib import Path

from helpers import make_app, steady_mode

from hermes_tui.config import Overrides
from hermes_tui.core.llm.demo import TASK
from hermes_tui.runtime import Runtime
from hermes_tui.ui.screens.insights import InsightsScreen

SIZE = (120, 36)


def run_demo_three_times(home: Path) -> None:
    # A runtime of its own: events from these runs must not reach the app being snapshotted.
    runtime = Runtime.open(home, Overrides(provider="demo"), environ={})
    for _ in range(3):
        session = runtime.open_session(reviewer=runtime.reviewer())
        session.submit(TASK)
        assert runtime.wait_for_reviews(60)


def test_insights_after_three_demo_runs(snap_compare, home: Path) -> None:
    run_demo_three_times(home)
    app = make_app(home, provider="demo")

    async def run_before(pilot) -> None:
        await pilot.press("escape")  # the welcome screen, if any
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, InsightsScreen)
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        app.clear_notifications()
        steady_mode(app)
        body = str(app.screen.query_one("#insights-body").render())
        # The demo learns: five calls with an error, then three, then two without errors.
        assert "3 sessions, 3 turns, 10 tool calls, 1 tool error" in body

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
