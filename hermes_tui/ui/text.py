"""Outside text made safe for a widget: control characters visible, markup never parsed.

Every face neutralises through `hermes_tui.core.text.neutralise`; these wrap the result in the
types Textual treats as literal text, for the widgets (tree nodes, table cells, collapsible
titles) that would otherwise read a `[` as the start of markup.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from rich.text import Text
from textual.content import Content

from hermes_tui.core.text import neutralise


def literal(text: str) -> Content:
    """Content shown exactly as written (no markup), with controls made visible."""
    return Content(neutralise(text))


def literal_text(text: str) -> Text:
    """The Rich equivalent of `literal`, for widgets that take Rich Text (Tree, DataTable)."""
    return Text(neutralise(text))


def pasted(text: str) -> str:
    """A paste as a widget takes it: a line break as a newline (terminals send a pasted line
    break as a carriage return), every other control character as its visible stand-in."""
    return neutralise(text.replace("\r\n", "\n").replace("\r", "\n"))


def ago(moment: float, now: float | None = None) -> str:
    """How long ago `moment` (a Unix time) was, in the largest whole unit: `3 h ago`."""
    seconds = max(0, int((time.time() if now is None else now) - moment))
    if seconds < 60:
        return f"{seconds}s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} d ago"


def local_time(moment: float, now: float | None = None) -> str:
    """A moment as a person reads it: local date and time, and how long ago (`2026-11-27
    00:18 · 3 h ago`)."""
    shown = datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M")
    return f"{shown} · {ago(moment, now)}"


def stamp_time(stamp: str) -> float | None:
    """The Unix time of a UTC stamp as the stores name files (`20261127T001813.148033Z`)."""
    for form in ("%Y%m%dT%H%M%S.%fZ", "%Y%m%dT%H%M%SZ"):
        try:
            return datetime.strptime(stamp, form).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return None
