"""Events the core emits to its faces (DESIGN.md section 9): frozen dataclasses, no UI types.

A face passes a sink callable; the agent and the stores call it from whatever thread they run
on, so a sink must be cheap and thread-safe (the TUI's posts a message, the CLI's prints).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Origin = Literal["user", "agent", "review", "curator"]
MemoryTarget = Literal["memory", "user"]
NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class MemoryChanged:
    target: MemoryTarget
    origin: Origin
    action: str
    before: str
    after: str


@dataclass(frozen=True)
class SkillChanged:
    name: str
    action: str
    origin: Origin
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Notice:
    level: NoticeLevel
    text: str


@dataclass(frozen=True)
class ErrorEvent:
    text: str
    detail: str = ""


@dataclass(frozen=True)
class TurnStarted:
    session_id: str
    text: str


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: dict
    source: Literal["main", "review"] = "main"


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str
    ok: bool
    duration: float
    preview: str
    source: Literal["main", "review"] = "main"


@dataclass(frozen=True)
class TurnFinished:
    usage: dict = field(default_factory=dict)
    cached_tokens: int = 0
    n_tool_calls: int = 0
    n_errors: int = 0
    interrupted: bool = False


@dataclass(frozen=True)
class NudgeCounters:
    memory: int
    memory_interval: int
    skills: int
    skills_interval: int


Event = (
    MemoryChanged
    | SkillChanged
    | Notice
    | ErrorEvent
    | TurnStarted
    | TextDelta
    | ToolCallStarted
    | ToolCallFinished
    | TurnFinished
    | NudgeCounters
)
Sink = Callable[[Event], None]


def discard(_event: Event) -> None:
    """A sink for callers that do not listen (tests, one-shot CLI commands)."""
