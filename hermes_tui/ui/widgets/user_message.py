"""The user's own message in the chat: a bar on its left; a long one folded to its head."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from hermes_tui.core.text import neutralise
from hermes_tui.ui.widgets.copyable import CopyableMessage

FOLD_LINES = 12  # a message longer than this (or FOLD_CHARS) shows its head, folded
FOLD_CHARS = 3000
HEAD_LINES = 6  # what a folded message shows
HEAD_CHARS = 800


def fold(text: str) -> tuple[str, str] | None:
    """A long message's head and what its fold line says is left out; None: shown whole."""
    lines = text.splitlines()
    if len(lines) <= FOLD_LINES and len(text) <= FOLD_CHARS:
        return None
    head = "\n".join(lines[:HEAD_LINES])
    if len(head) > HEAD_CHARS:  # a few very long lines: the head is cut mid-line
        head = head[:HEAD_CHARS]
        return head, f"{len(text) - len(head):,} more characters"
    rest = len(lines) - min(len(lines), HEAD_LINES)
    return head, f"{rest:,} more line{'' if rest == 1 else 's'}"


class UserMessage(CopyableMessage, Static):
    """What the user sent. A long one (a 3,000-line paste) shows its first lines and how much
    more there is; enter or a click shows all of it, and folds it again. The model gets it all."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
        color: $text;
    }
    UserMessage:focus { border-left: thick $accent; background: $primary 20%; }
    """
    BINDINGS = [Binding("enter", "toggle_fold", "Show all or fold", show=False)]
    COPY_WHAT = "your message"

    def __init__(self, text: str) -> None:
        super().__init__(markup=False)
        self.text = text
        self.folded = fold(text)
        self.expanded = False
        self._draw()

    def _draw(self) -> None:
        if self.folded is None or self.expanded:
            shown = neutralise(self.text)
            if self.folded is not None:
                shown += "\n▴ fold (enter or click)"
        else:
            head, more = self.folded
            shown = f"{neutralise(head)}\n… {more} (enter or click shows all)"
        self.update(Content(shown))

    def action_toggle_fold(self) -> None:
        if self.folded is not None:
            self.expanded = not self.expanded
            self._draw()

    def on_click(self) -> None:
        self.action_toggle_fold()
