"""The agent's todo list for multi-step work: one per conversation, written whole each time.

As in Hermes and Claude Code, the model sends the full list (each item's text and status:
pending, in_progress or completed) and the list replaces the previous one; nothing is merged.
The list lives in the core `Session` (stored with it, so a resumed conversation shows it again)
and every change is told to the faces as a `TodoChanged` event. Invariants: at most
`MAX_ITEMS` items, each 1..`MAX_CHARS` characters of single-line text (control characters
folded to spaces), statuses from the closed set; a list that breaks one is refused whole with
an error naming the item, and the previous list stays.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Literal, get_args

from hermes_tui.core.records import datarecord

TodoStatus = Literal["pending", "in_progress", "completed"]
STATUSES: tuple[str, ...] = get_args(TodoStatus)
MAX_ITEMS = 50
MAX_CHARS = 300


class TodoError(ValueError):
    """A list the model sent that cannot be kept, with what to fix."""


@datarecord
class TodoItem:
    """One line of the agent's todo list."""

    content: str
    status: TodoStatus = "pending"


def _clean(text: str) -> str:
    # One line: the list is drawn one item per row, and a face must never get control codes.
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def parse_items(raw: Any) -> tuple[TodoItem, ...]:
    """The model's list, checked; raises TodoError naming the first bad item."""
    if not isinstance(raw, list):
        raise TodoError("todos must be a list of {content, status} objects")
    if len(raw) > MAX_ITEMS:
        raise TodoError(f"at most {MAX_ITEMS} items; merge or drop some ({len(raw)} sent)")
    items = []
    for number, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise TodoError(f"item {number} must be an object with content and status")
        content = _clean(str(entry.get("content", "")))
        status = entry.get("status", "pending")
        if not content:
            raise TodoError(f"item {number} has no content")
        if len(content) > MAX_CHARS:
            raise TodoError(f"item {number} is {len(content)} characters; at most {MAX_CHARS}")
        if status not in STATUSES:
            raise TodoError(
                f"item {number} has status {status!r}; use one of {', '.join(STATUSES)}"
            )
        items.append(TodoItem(content, status))
    return tuple(items)


def items_to_json(items: Iterable[TodoItem]) -> str:
    return json.dumps([{"content": i.content, "status": i.status} for i in items])


def items_from_json(text: str) -> tuple[TodoItem, ...]:
    """A stored list; an unreadable one is an empty list (it is a convenience, not a record)."""
    if not text:
        return ()
    try:
        return parse_items(json.loads(text))
    except (json.JSONDecodeError, TodoError):
        return ()


class TodoList:
    """The conversation's list; `on_change(items)` is called after every accepted write."""

    def __init__(
        self,
        items: tuple[TodoItem, ...] = (),
        on_change: Callable[[tuple[TodoItem, ...]], None] | None = None,
    ) -> None:
        self._items = items
        self.on_change = on_change

    @property
    def items(self) -> tuple[TodoItem, ...]:
        return self._items

    @property
    def open_count(self) -> int:
        return sum(1 for item in self._items if item.status != "completed")

    def write(self, raw: Any) -> tuple[TodoItem, ...]:
        """Replace the list with the model's (checked first); returns the new list."""
        items = parse_items(raw)
        self._items = items
        if self.on_change is not None:
            self.on_change(items)
        return items
