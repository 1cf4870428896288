"""The headless faces' printer: core events to stdout (the reply) and stderr (everything else).

Reply text goes to stdout: live on a terminal, else held per model call and written when the
call ends, so a retried attempt's text never reaches a pipe. stderr gets the tool trace,
notices, learning notifications and "waiting for the server (Ns)" (redrawn in place on a
terminal, else a line now and then).
"""

from __future__ import annotations

import json
import threading
from typing import Any, TextIO

from hermes_tui.core import events as ev
from hermes_tui.core.text import neutralise


class ConsoleSink:
    """Prints core events: reply text to `out`, the rest to `err` (thread-safe)."""

    def __init__(
        self, out: TextIO, err: TextIO, *, stream_text: bool = True, hold: bool | None = None
    ) -> None:
        self.out, self.err = out, err
        self.stream_text = stream_text
        # Not a terminal: hold each model call's text until the call ends (see the docstring).
        self.hold = not _is_terminal(out) if hold is None else hold
        self._held = ""
        self._lock = threading.Lock()
        self._mid_line = False
        self._thinking = False  # said "thinking…" for the reasoning now streaming
        self._live_status = _is_terminal(err)  # the waiting line is redrawn in place
        self._status_shown = False
        self._waits_told = 0  # not a terminal: the last threshold of a wait already printed

    def _write_text(self, text: str) -> None:
        if text:
            self._clear_status()
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def flush_text(self) -> None:
        """Write the held text of the model call that just ended."""
        held, self._held = self._held, ""
        self._write_text(held)

    def _clear_status(self) -> None:
        if self._status_shown:
            self._status_shown = False
            getattr(self.err, "write_control", self.err.write)("\r\x1b[K")
            self.err.flush()

    def _say(self, text: str) -> None:
        self._clear_status()
        if self._mid_line and self.stream_text:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(text + "\n")
        self.err.flush()

    def _waiting(self, seconds: float) -> None:
        """A live "waiting for the server (Ns)" on a terminal; else a line now and then."""
        if seconds <= 0:
            self._clear_status()
            self._waits_told = 0
            return
        if self._live_status:
            if self._mid_line and self.stream_text:
                self.out.write("\n")
                self.out.flush()
                self._mid_line = False
            control = getattr(self.err, "write_control", self.err.write)
            control("\r\x1b[K")
            self.err.write(f"waiting for the server ({seconds:.0f}s)")
            self.err.flush()
            self._status_shown = True
            return
        threshold = next((t for t in reversed(WAIT_LINES) if seconds >= t), 0)
        if seconds >= WAIT_LINES[-1]:
            threshold = int(seconds // WAIT_LINES[-1]) * WAIT_LINES[-1]
        if threshold > self._waits_told:
            self._waits_told = threshold
            self._say(f"waiting for the server ({seconds:.0f}s)")

    def approval(self, command: str, reason: str, allowed: bool, told: str) -> None:
        """A question the turn put to the user, answered without asking (`told` says how)."""
        self(ev.Notice("warning", told))

    def __call__(self, event: ev.Event) -> None:
        with self._lock:
            self._handle(event)

    def _handle(self, event: Any) -> None:
        if isinstance(event, ev.ServerWaiting):
            if event.source == "main":
                self._waiting(event.seconds)
            return
        if isinstance(event, ev.ReasoningDelta):
            # The reasoning is not the answer (it is in --json and `sessions show`); a line on
            # stderr says why nothing appears yet.
            if not self._thinking:
                self._thinking = True
                self._say("thinking…")
            return
        if not isinstance(event, ev.Notice):
            self._thinking = False
        if isinstance(event, ev.TextDelta):
            if self.stream_text:
                if self.hold:
                    self._held += event.text
                else:
                    self._write_text(event.text)
            return
        if isinstance(event, ev.TextReset):
            if self._held or not self.hold:
                what = "held back" if self.hold else "above"
                self._held = ""
                self._say(
                    f"[provider retry: the partial reply {what} is discarded ({event.reason})]"
                )
            return
        if not isinstance(event, (ev.Notice, ev.UsageUpdated, ev.NudgeCounters)):
            self.flush_text()  # the model call ended: tools run, the turn ends, or it failed
        if isinstance(event, ev.ToolCallStarted):
            tag = "[review] " if event.source == "review" else ""
            self._say(f"{tag}→ {event.name} {_summary(event.arguments)}")
        elif isinstance(event, ev.ToolCallFinished):
            tag = "[review] " if event.source == "review" else ""
            mark = "✓" if event.ok else "✗"
            self._say(f"{tag}  {mark} {event.name} {event.duration:.2f}s {event.preview}")
        elif isinstance(event, ev.Notice):
            self._say(f"{event.level}: {event.text}")
        elif isinstance(event, ev.ErrorEvent):
            self._say(f"error: {event.text}" + (f" {event.detail}" if event.detail else ""))
        elif isinstance(event, ev.MemoryChanged):
            name = "USER.md" if event.target == "user" else "MEMORY.md"
            self._say(f"learned: {name} {event.action} by {event.origin}")
        elif isinstance(event, ev.SkillChanged):
            self._say(f"learned: skill {event.name} {event.action} by {event.origin}")
        elif isinstance(event, ev.ReviewStarted):
            self._say(f"review: started ({event.kind} review of session {event.session_id})")
        elif isinstance(event, ev.ReviewFinished):
            self._say(f"review: {event.summary}")
        elif isinstance(event, ev.WriteHeld):
            why = f" — {event.source}" if event.source and not event.copies else ""
            self._say(
                neutralise(
                    f"held for approval: {event.kind} {event.target} {event.action} "
                    f"({event.reason}{why}); see `hermes-tui pending list`"
                )
            )
            if event.tool_excerpt:  # what the tool returned beside what the write says
                from hermes_tui.core.pending import side_by_side

                for line in side_by_side(
                    ("tool result", event.tool_excerpt), ("this write", event.write_excerpt)
                ):
                    self._say(neutralise(line))


# Seconds of silence at which a waiting line is printed when stderr is not a terminal (then
# every WAIT_LINES[-1] seconds).
WAIT_LINES = (5, 15, 30)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _summary(arguments: dict[str, Any]) -> str:
    if "command" in arguments:
        text = str(arguments["command"])
    elif "path" in arguments:
        text = str(arguments["path"])
    else:
        text = json.dumps(arguments, ensure_ascii=False)
    text = " ".join(text.split())
    return text[:100] + ("…" if len(text) > 100 else "")
