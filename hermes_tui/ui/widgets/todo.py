"""The agent's todo list as a compact checklist above the message box, shown while it has open
items (the core's TodoChanged events and a resumed session's list set `items`)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from hermes_tui.core.text import neutralise

MAX_ROWS = 6  # items drawn; the rest are counted on the last row
MARKS = {"completed": "✓", "in_progress": "▸", "pending": "○"}


def checklist(items: tuple) -> Text:
    """The title row and up to MAX_ROWS items: the unfinished ones around the one in progress
    first, so the row that matters is never the one cut."""
    done = sum(1 for item in items if item.status == "completed")
    text = Text(f"Todo {done}/{len(items)}", style="bold")
    start = 0
    if len(items) > MAX_ROWS:
        current = next(
            (n for n, item in enumerate(items) if item.status != "completed"), len(items) - 1
        )
        start = max(0, min(current - 1, len(items) - MAX_ROWS))
    shown = items[start : start + MAX_ROWS]
    for item in shown:
        style = {"completed": "dim strike", "in_progress": "bold"}.get(item.status, "")
        text.append("\n")
        text.append(f" {MARKS.get(item.status, '○')} ", style="bold" if style == "bold" else "")
        text.append(neutralise(item.content), style=style)
    hidden = len(items) - len(shown)
    if hidden:
        text.append(f"\n   … {hidden} more", style="dim")
    return text


class TodoPanel(Static):
    DEFAULT_CSS = """
    TodoPanel {
        height: auto;
        max-height: 9;
        padding: 0 1;
        border-left: thick $accent;
        background: $boost;
        display: none;
    }
    TodoPanel.-open {
        display: block;
    }
    """

    items: reactive[tuple] = reactive((), always_update=True)

    def watch_items(self, items: tuple) -> None:
        has_open = any(item.status != "completed" for item in items)
        self.set_class(has_open, "-open")
        self.update(checklist(items) if has_open else "")
