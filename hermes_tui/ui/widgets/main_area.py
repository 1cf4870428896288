"""The main screen's body: the chat column and the tabbed side panel, and how the panel fits
the window (beside the chat when wide, stacked under it when narrow)."""

from __future__ import annotations

from typing import Any

from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import TabbedContent

from hermes_tui.ui.widgets.chat import ChatView
from hermes_tui.ui.widgets.input import ChatInput

PANES = {"trace": "Trace", "memory": "Memory", "skills": "Skills", "reviews": "Reviews"}
NARROW = 100  # below this many columns the side panel stacks under the chat


class MainArea(Horizontal):
    """The chat and the side panel. Says when its size changes: the app's own Resize event
    stops inside Textual, so this is how the panel learns that the window grew."""

    class Resized(Message):
        pass

    def on_resize(self) -> None:
        self.post_message(self.Resized())


def fit_panel(app: Any) -> None:
    """Wide: the panel keeps its chosen width, at most about half the screen, and grows back
    when the window does. Narrow: it stacks under the chat, hidden until asked for."""
    # query_one is answered from Textual's cache; a query's truth walked the whole screen
    side = app.query_one_optional("#side") if app.is_mounted else None
    if side is None:
        return
    narrow = app.size.width < NARROW
    if narrow != app.has_class("-narrow"):
        app.set_class(narrow, "-narrow")
        side.display = not narrow  # entering narrow hides it; going wide shows it again
    if narrow:
        side.styles.width = None  # the stylesheet's full width
    else:
        side.styles.width = min(app.panel_width, max(30, app.size.width // 2 - 4))


def show_pane(app: Any, pane: str) -> None:
    """Show a pane and focus its content (its keys then work at once); the same key again,
    from inside that pane, goes back to the message box."""
    side = app.query_one("#side", TabbedContent)
    focus_in_panel = app.focused is not None and side in app.focused.ancestors
    if focus_in_panel and side.display and side.active == pane:
        app.query_one(ChatInput).focus()
        return
    if not side.display:
        app.query_one(ChatView).keep_view()
    side.display = True
    side.active = pane
    app.query_one(f"#{pane}-pane").focus_content()
