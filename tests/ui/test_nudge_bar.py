"""The nudge bar's review spinner: it turns while a review runs and wakes nobody otherwise."""

from __future__ import annotations

from helpers import wait_until
from textual.app import App, ComposeResult

from hermes_tui.ui.widgets.nudge_bar import SPINNER, NudgeBar


class CountedBar(NudgeBar):
    """The bar, counting the spinner's ticks."""

    ticks = 0

    def _tick(self) -> None:
        self.ticks += 1
        super()._tick()


class BarOnly(App):
    def compose(self) -> ComposeResult:
        yield CountedBar()


async def test_the_spinner_turns_while_a_review_runs_and_the_idle_bar_is_never_woken() -> None:
    app = BarOnly()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(CountedBar)
        await pilot.pause(0.3)  # more than two of the spinner's steps
        assert bar.ticks == 0 and SPINNER[0] not in str(bar.render())
        bar.reviews_running = 1
        await wait_until(lambda: bar.frame >= 2)  # it turns
        assert "reviewing" in str(bar.render())
        bar.reviews_running = 0
        await pilot.pause()
        stopped = bar.ticks
        await pilot.pause(0.3)
        assert bar.ticks == stopped and "reviewing" not in str(bar.render())
