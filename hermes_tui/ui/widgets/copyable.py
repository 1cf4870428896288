"""Messages in the chat that take the focus, so a key can copy a whole message.

`alt+↑` from the message box (or a click) focuses a message; `↑`/`↓` move between messages,
`c` copies the focused one's text through the same clipboard path as a tool row's output, and
`esc` goes back to the box. Typing a letter on a focused message types it into the box instead,
so a click in the chat never swallows what the user types next.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from hermes_tui.core.text import neutralise


def copy_text(widget: Widget, text: str, what: str) -> None:
    """Put `text` (made safe for a terminal) on the clipboard and say how much was copied."""
    widget.app.copy_to_clipboard(neutralise(text))
    lines = len(text.splitlines()) or 1
    widget.app.notify(f"Copied {lines:,} line{'' if lines == 1 else 's'} of {what}", timeout=2)


class CopyableMessage(Widget):
    """A user message or a reply: focusable, with `c` to copy its whole text."""

    can_focus = True
    BINDINGS = [
        Binding("c", "copy_message", "Copy message"),
        Binding("up", "move(-1)", "Previous message", show=False),
        Binding("down", "move(1)", "Next message", show=False),
        Binding("escape", "leave", "Back to the message box", show=False),
    ]
    COPY_WHAT = "the message"

    class Move(Message):
        """Focus the message `step` away from this one (the chat knows the order)."""

        def __init__(self, origin: CopyableMessage, step: int) -> None:
            super().__init__()
            self.origin = origin
            self.step = step

    class Leave(Message):
        """Give the focus back to the message box, with the key typed there if there was one."""

        def __init__(self, character: str = "") -> None:
            super().__init__()
            self.character = character

    @property
    def copy_source(self) -> str:
        """The message's whole text as it was written (Markdown source for a reply)."""
        return getattr(self, "text", "")

    def action_copy_message(self) -> None:
        copy_text(self, self.copy_source, self.COPY_WHAT)

    def action_move(self, step: int) -> None:
        self.post_message(self.Move(self, step))

    def action_leave(self) -> None:
        self.post_message(self.Leave())

    def on_key(self, event: events.Key) -> None:
        # A letter that is not one of this widget's keys was meant for the message box.
        if event.is_printable and event.character and event.key != "c":
            event.stop()
            event.prevent_default()
            self.post_message(self.Leave(event.character))
