"""The `todo` tool: the model keeps a checklist for multi-step work (core/todo.py holds it).

`todo(todos=[{content, status}, ...])` replaces the whole list; `todo()` with no list reads it.
The conversation's list is `context.todos` (the Session sets it); a context without one (a
background review) answers with an error, never a list of someone else's.
"""

from __future__ import annotations

from typing import Any

from hermes_tui.core.todo import MAX_CHARS, MAX_ITEMS, STATUSES, TodoError
from hermes_tui.core.tools.registry import Tool, ToolContext

DESCRIPTION = (
    "Keep a todo list for multi-step work (3 or more steps, or when the user gives several "
    "tasks). Send the FULL list each time: it replaces the previous one. Each item has "
    "`content` (one short line) and `status`: pending, in_progress or completed. Mark an item "
    "in_progress before starting it (one at a time) and completed as soon as it is done; drop "
    "items that no longer apply. Call with no arguments to read the current list. The user sees "
    "the list while it has open items. Skip it for a single simple step."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "maxItems": MAX_ITEMS,
            "description": "The whole list, in order. Omit to read the current list.",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1, "maxLength": MAX_CHARS},
                    "status": {"type": "string", "enum": list(STATUSES)},
                },
                "required": ["content", "status"],
                "additionalProperties": False,
            },
        }
    },
    "additionalProperties": False,
}


def _payload(items: Any) -> dict[str, Any]:
    counts = {status: sum(1 for i in items if i.status == status) for status in STATUSES}
    return {
        "success": True,
        "todos": [{"content": i.content, "status": i.status} for i in items],
        "summary": {"total": len(items), **counts},
    }


def todo(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    todos = context.todos
    if todos is None:
        return {"success": False, "error": "there is no todo list in this context"}
    if "todos" not in arguments:
        return _payload(todos.items)
    try:
        items = todos.write(arguments["todos"])
    except TodoError as exc:
        return {"success": False, "error": f"todo list not changed: {exc}"}
    return _payload(items)


def _preview(result: dict[str, Any]) -> str:
    summary = result.get("summary", {})
    return (
        f"{summary.get('completed', 0)}/{summary.get('total', 0)} done, "
        f"{summary.get('in_progress', 0)} in progress"
    )


def make_todo_tools() -> list[Tool]:
    return [
        Tool(
            "todo",
            "todo",
            DESCRIPTION,
            SCHEMA,
            todo,
            # It writes the conversation's checklist and touches nothing outside it: allowed in
            # plan mode, where planning is the point, but not read-only.
            conversation_only=True,
            preview=_preview,
        )
    ]
