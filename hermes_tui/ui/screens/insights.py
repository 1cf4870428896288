"""Insights (f5): is the agent getting better at recurring tasks? Computed on a worker thread.

Learning tab: sessions as bars of tool calls with their errors and the skills they loaded, each
skill's uses, success rate and patches per day as a sparkline, memory fill after each write, and
what reviews and the curator did; `d` switches the window between 7, 30 and 90 days. Evals tab:
past `hermes-tui eval` runs and their curves (widgets/evals_pane.py).
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TabbedContent, TabPane

from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuietScreen
from hermes_tui.ui.widgets.evals_pane import EvalsPane

WINDOWS = (7, 30, 90)


class InsightsScreen(QuietScreen, ModalScreen[None]):
    DEFAULT_CSS = """
    InsightsScreen { align: center middle; }
    InsightsScreen > Vertical { width: 120; max-width: 98%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    InsightsScreen TabbedContent { height: 1fr; }
    InsightsScreen #insights-title { text-style: bold; color: $primary; }
    InsightsScreen #insights-hint { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape,q,f5", "close", "Close"),
        Binding("d", "days", "Change window (7/30/90 days)"),
        Binding("e", "evals", "Evals tab"),
    ]

    def __init__(self, runtime: Any, days: int = 30) -> None:
        super().__init__()
        self.runtime = runtime
        self.days = days

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Insights", id="insights-title")
            with TabbedContent(id="insights-tabs"):
                with TabPane("Learning", id="tab-learning"), VerticalScroll():
                    yield Static(
                        "Reading sessions, skills and the audit log…",
                        id="insights-body",
                        markup=False,
                    )
                with TabPane("Evals", id="tab-evals"):
                    yield EvalsPane(self.runtime.user_home, id="evals")
            yield Static("d: 7/30/90 days · e: evals · esc: close", id="insights-hint")

    def on_mount(self) -> None:
        # The text's scrolling area has the focus (its keys scroll it), not the tabs' row.
        self.query_one("#tab-learning VerticalScroll").focus()
        self.call_after_refresh(self._reload)  # once laid out: the text is cut to its width

    def on_resize(self) -> None:
        if self.is_mounted:
            self.call_after_refresh(self._reload)

    def _reload(self) -> None:
        # The body's own width (the dialog's, less border and padding): rows never wrap.
        width = self.query_one("#insights-body", Static).content_size.width
        self.load(self.days, max(40, width or self.size.width - 6))

    @work(thread=True, exclusive=True, group="insights", exit_on_error=False)
    def load(self, days: int, width: int) -> None:
        from hermes_tui.core.insights import render_text

        text = render_text(self.runtime.insights(days), width=width)
        self.app.call_from_thread(self._show, text)

    def _show(self, text: str) -> None:
        self.query_one("#insights-body", Static).update(neutralise(text))

    def action_days(self) -> None:
        self.days = (
            WINDOWS[(WINDOWS.index(self.days) + 1) % len(WINDOWS)] if self.days in WINDOWS else 30
        )
        self._reload()

    def action_evals(self) -> None:
        tabs = self.query_one("#insights-tabs", TabbedContent)
        tabs.active = "tab-learning" if tabs.active == "tab-evals" else "tab-evals"

    def action_close(self) -> None:
        self.dismiss(None)
