"""`chat -q --stream-json`: the turn as one JSON object per line on stdout, as it happens.

Each line is an object with a `type`; every line matches `schemas/stream-json.schema.json`
(shipped in the package, described in the README). Text arrives as `text` deltas; a
`text_reset` says the deltas since the last tool call or reset are discarded (the provider
retried); the last line is always `result`, the object `--json` prints, with a `type`. Lines are
written whole under a lock (reviews run on their own threads) and flushed at once, so a reader
sees each event the moment it happens. Strings are JSON-escaped for terminals
(`json_for_terminal`): a reply's escape sequences never reach a terminal raw.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from importlib.resources import files
from typing import Any, TextIO

from hermes_tui.core import events as ev
from hermes_tui.core.text import json_for_terminal

SCHEMA_FILE = "stream-json.schema.json"


def schema() -> dict[str, Any]:
    """The JSON schema every line matches (draft 2020-12)."""
    return json.loads((files("hermes_tui") / "schemas" / SCHEMA_FILE).read_text("utf-8"))


def _tokens(totals: Any) -> dict[str, int]:
    return {
        "input_tokens": totals.input_tokens,
        "output_tokens": totals.output_tokens,
        "cached_tokens": totals.cached_tokens,
        "cache_write_tokens": totals.cache_write_tokens,
    }


# Events whose line is a type and some of their fields as they are, in this order.
PLAIN_LINES: dict[type, tuple[str, tuple[str, ...]]] = {
    ev.TurnStarted: ("turn_started", ("session_id", "text")),
    ev.TextDelta: ("text", ("text",)),
    ev.ReasoningDelta: ("reasoning", ("text",)),
    ev.TextReset: ("text_reset", ("reason",)),
    ev.ServerWaiting: ("waiting", ("seconds", "source")),
    ev.ToolCallStarted: ("tool_call", ("call_id", "name", "arguments", "source")),
    ev.TurnFinished: ("turn_finished", ("interrupted",)),
    ev.Notice: ("notice", ("level", "text")),
    ev.ErrorEvent: ("error", ("text", "detail")),
    ev.MemoryChanged: ("memory_changed", ("target", "action", "origin")),
    ev.SkillChanged: ("skill_changed", ("name", "action", "origin")),
    ev.WriteHeld: (
        "write_held",
        ("pending_id", "kind", "target", "action", "origin", "reason", "source"),
    ),
    ev.ReviewStarted: ("review_started", ("review_id", "session_id", "kind")),
}


def event_line(event: Any) -> dict[str, Any] | None:
    """The line for one core event, or None for events a script has no use for."""
    if (plain := PLAIN_LINES.get(type(event))) is not None:
        kind, names = plain
        return {"type": kind, **{name: getattr(event, name) for name in names}}
    match event:
        case ev.ToolCallFinished():
            return {
                "type": "tool_result",
                "call_id": event.call_id,
                "name": event.name,
                "ok": event.ok,
                "duration_s": round(event.duration, 3),
                "preview": event.preview,
                "result": event.result,
                "full_output_path": event.full_output_path,
                "diff": event.diff,
                "source": event.source,
            }
        case ev.UsageUpdated():
            return {
                "type": "usage",
                "model": event.model,
                **_tokens(event.totals),
                "cost_usd": event.cost_usd,
                "review": _tokens(event.review),
            }
        case ev.ReviewFinished():
            return {
                "type": "review_finished",
                "review_id": event.review_id,
                "session_id": event.session_id,
                "status": event.status,
                "summary": event.summary,
                "changes": [
                    {"kind": c.kind, "target": c.target, "action": c.action, "file": c.file}
                    for c in event.changes
                ],
            }
        case ev.TodoChanged():
            return {
                "type": "todo",
                "items": [{"content": i.content, "status": i.status} for i in event.items],
            }
        case ev.NudgeCounters():
            return None  # the app's nudge bar; nothing a script acts on
    if dataclasses.is_dataclass(event):
        # An event added to the core since this mapping was written: still told, generically.
        return {
            "type": "event",
            "name": type(event).__name__,
            "data": json.loads(json.dumps(dataclasses.asdict(event), default=str)),
        }
    return None


class StreamJsonSink:
    """Writes each core event as one JSON line to `out`; thread-safe."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lock = threading.Lock()

    def write(self, line: dict[str, Any]) -> None:
        text = json_for_terminal(line) + "\n"
        with self._lock:
            self.out.write(text)
            self.out.flush()

    def __call__(self, event: ev.Event) -> None:
        line = event_line(event)
        if line is not None:
            self.write(line)

    def approval(self, command: str, reason: str, allowed: bool, told: str = "") -> None:
        """A question the turn put to the user, answered by --yolo (allowed) or not (refused);
        `told` is the console's sentence for it, not needed here."""
        self.write(
            {
                "type": "approval",
                "decision": "allowed" if allowed else "refused",
                "command": command,
                "reason": reason,
            }
        )

    def result(self, outcome: dict[str, Any]) -> None:
        self.write({"type": "result", **outcome})

    def flush_text(self) -> None:
        """Nothing is held: text deltas are written as they come."""
