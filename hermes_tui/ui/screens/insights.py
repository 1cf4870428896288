"""Insights (f5): is the agent getting better at recurring tasks? Computed on a worker thread.

Sessions as bars of tool calls with their errors and the skills they loaded, each skill's uses,
success rate and patches per day as a sparkline, memory fill after each write, and what reviews
and the curator did. `d` switches the window between 7, 30 and 90 days.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from hermes_tui.core.text import neutralise

WINDOWS = (7, 30, 90)


class InsightsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    InsightsScreen { align: center middle; }
    InsightsScreen > VerticalScroll { width: 120; max-width: 98%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    InsightsScreen #insights-title { text-style: bold; color: $primary; }
    InsightsScreen #insights-hint { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape,q,f5", "close", "Close"),
        Binding("d", "days", "Change window (7/30/90 days)"),
    ]

    def __init__(self, runtime: Any, days: int = 30) -> None:
        super().__init__()
        self.runtime = runtime
        self.days = days

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("Insights", id="insights-title")
            yield Static(
                "Reading sessions, skills and the audit log…", id="insights-body", markup=False
            )
            yield Static("d: 7/30/90 days · esc: close", id="insights-hint")

    def on_mount(self) -> None:
        self.load(self.days)

    @work(thread=True, exclusive=True, group="insights", exit_on_error=False)
    def load(self, days: int) -> None:
        from hermes_tui.core.insights import render_text

        width = max(60, self.size.width - 4)
        text = render_text(self.runtime.insights(days), width=width)
        self.app.call_from_thread(self._show, text)

    def _show(self, text: str) -> None:
        self.query_one("#insights-body", Static).update(neutralise(text))

    def action_days(self) -> None:
        self.days = (
            WINDOWS[(WINDOWS.index(self.days) + 1) % len(WINDOWS)] if self.days in WINDOWS else 30
        )
        self.load(self.days)

    def action_close(self) -> None:
        self.dismiss(None)
