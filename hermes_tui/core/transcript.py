"""A stored conversation as a face draws it: what was said, thought and run, in order.

`Session.transcript()` builds these from the agent's history; the faces draw them and never
read the model's message format or a tool's JSON payload themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Said:
    """A user message or an assistant reply."""

    role: Literal["user", "assistant"]
    text: str
    interrupted: bool = False  # a reply cut off by the user or an error


@dataclass(frozen=True)
class Thought:
    """The model's reasoning shown before its reply."""

    text: str


@dataclass(frozen=True)
class ToolRun:
    """A finished tool call: its arguments, whether it worked, a one-line preview, its output."""

    name: str
    arguments: dict[str, Any] = field(hash=False)
    ok: bool
    preview: str
    output: str
    diff: str = ""


@dataclass(frozen=True)
class Failure:
    """An error shown in the conversation."""

    text: str


TranscriptItem = Said | Thought | ToolRun | Failure
