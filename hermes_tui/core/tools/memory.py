"""The memory tool: add, replace or remove entries of MEMORY.md / USER.md, singly or in a batch.

The one place that turns the store's outcomes (core/memory/outcome.py) into the payloads the
model reads: `change_payload` for a write made, `refusal_payload` for one refused (the agent's
write gate and the review use it too, for a preview the store refuses).
"""

from __future__ import annotations

from typing import Any

from hermes_tui.core.memory import MemoryChange, MemoryRefusal, MemoryRefused, MemoryStore
from hermes_tui.core.tools.registry import Tool, ToolContext

DESCRIPTION = (
    "Save durable facts across sessions. target 'user' is who the user is (name, role, "
    "preferences, how they like to work); target 'memory' is your own notes (environment facts, "
    "project conventions, tool quirks, lessons learned). Write short declarative facts, not "
    "instructions or task logs. Memory is bounded: when full, replace overlapping entries with a "
    "shorter merged one or remove stale ones. replace/remove find the entry by a short unique "
    "substring in old_text. Use operations to do several changes at once."
)


SAVED_NOTE = "Saved. This update is complete; do not repeat it."


def change_payload(change: MemoryChange) -> dict[str, Any]:
    """What the model reads for a write the store made."""
    result: dict[str, Any] = {
        "success": True,
        "done": True,
        "target": change.target,
        "message": change.message,
        "usage": str(change.usage),
        "entry_count": len(change.entries),
        "note": SAVED_NOTE,
    }
    if change.warning:
        result["warning"] = change.warning
    return result


def refusal_payload(refusal: MemoryRefusal) -> dict[str, Any]:
    """What the model reads for a write the store refused: the reason in words, and what it
    needs to do better (the entries and usage to consolidate, the rules that refused it)."""
    result: dict[str, Any] = {"success": False, "error": refusal.message}
    if refusal.current_entries is not None:
        result["current_entries"] = list(refusal.current_entries)
    if refusal.usage is not None:
        result["usage"] = f"{refusal.usage.chars:,}/{refusal.usage.limit:,}"
    if refusal.matches is not None:
        result["matches"] = list(refusal.matches)
    if refusal.pattern_ids is not None:
        result["pattern_ids"] = list(refusal.pattern_ids)
    if refusal.drift_backup is not None:
        result["drift_backup"] = refusal.drift_backup
    return result


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
        try:
            if operations:
                if not isinstance(operations, list):
                    return {
                        "success": False,
                        "error": "operations must be a list of {action, content, old_text}",
                    }
                result = change_payload(store.apply_batch(target, operations, origin=origin))
            elif action == "add":
                content = str(args.get("content") or "")
                result = change_payload(store.add(target, content, origin=origin))
            elif action == "replace":
                old_text, content = str(args.get("old_text") or ""), str(args.get("content") or "")
                result = change_payload(store.replace(target, old_text, content, origin=origin))
            elif action == "remove":
                old_text = str(args.get("old_text") or "")
                result = change_payload(store.remove(target, old_text, origin=origin))
            else:
                result = {
                    "success": False,
                    "error": "action must be add, replace or remove (or give operations)",
                }
        except MemoryRefused as refused:
            result = refusal_payload(refused.refusal)
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
