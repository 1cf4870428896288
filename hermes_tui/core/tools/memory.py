"""The memory tool: add, replace or remove entries of MEMORY.md / USER.md, singly or in a batch."""

from __future__ import annotations

from typing import Any

from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.tools.registry import Tool, ToolContext

DESCRIPTION = (
    "Save durable facts across sessions. target 'user' is who the user is (name, role, "
    "preferences, how they like to work); target 'memory' is your own notes (environment facts, "
    "project conventions, tool quirks, lessons learned). Write short declarative facts, not "
    "instructions or task logs. Memory is bounded: when full, replace overlapping entries with a "
    "shorter merged one or remove stale ones. replace/remove find the entry by a short unique "
    "substring in old_text. Use operations to do several changes at once."
)


def make_memory_tools(
    store: MemoryStore, *, memory_enabled: bool = True, user_enabled: bool = True
) -> list[Tool]:
    def memory(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        target = args.get("target") or "memory"
        if target not in ("memory", "user"):
            return {"success": False, "error": f"target must be 'memory' or 'user', not {target!r}"}
        if (target == "memory" and not memory_enabled) or (target == "user" and not user_enabled):
            return {"success": False, "error": f"the {target} store is turned off in config.yaml"}
        origin = context.origin
        operations = args.get("operations")
        action = args.get("action")
        if operations:
            if not isinstance(operations, list):
                return {
                    "success": False,
                    "error": "operations must be a list of {action, content, old_text}",
                }
            result = store.apply_batch(target, operations, origin=origin)
        elif action == "add":
            result = store.add(target, str(args.get("content") or ""), origin=origin)
        elif action == "replace":
            result = store.replace(
                target,
                str(args.get("old_text") or ""),
                str(args.get("content") or ""),
                origin=origin,
            )
        elif action == "remove":
            result = store.remove(target, str(args.get("old_text") or ""), origin=origin)
        else:
            result = {
                "success": False,
                "error": "action must be add, replace or remove (or give operations)",
            }
        return context.memory_budget.apply(result)

    op_schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
            "content": {"type": "string"},
            "old_text": {"type": "string"},
        },
        "required": ["action"],
        "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
            "target": {"type": "string", "enum": ["memory", "user"]},
            "content": {"type": "string", "description": "add/replace: the entry's new text."},
            "old_text": {
                "type": "string",
                "description": "replace/remove: a short unique part of the entry.",
            },
            "operations": {
                "type": "array",
                "items": op_schema,
                "description": "Several changes applied together, all or nothing.",
            },
        },
        "required": ["target"],
        "additionalProperties": False,
    }
    return [
        Tool(
            "memory",
            "memory",
            DESCRIPTION,
            schema,
            memory,
            preview=lambda r: f"{r.get('message', 'saved')} ({r.get('usage', '')})",
        )
    ]
