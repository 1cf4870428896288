"""Events the core emits to its faces (DESIGN.md section 9): frozen dataclasses, no UI types.

A face passes a sink callable; the agent and the stores call it from whatever thread they run
on, so a sink must be cheap and thread-safe (the TUI's posts a message, the CLI's prints).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Literal

from hermes_tui.core.pricing import UsageTotals
from hermes_tui.core.records import datarecord
from hermes_tui.core.todo import TodoItem

Origin = Literal["user", "agent", "review", "curator"]
MemoryTarget = Literal["memory", "user"]
NoticeLevel = Literal["info", "warning", "error"]


@datarecord
class MemoryChanged:
    """A memory store changed (by the agent, a review, the curator or the user)."""

    target: MemoryTarget
    origin: Origin
    action: str
    before: str
    after: str


@datarecord
class SkillChanged:
    """A skill was created, changed, archived or restored."""

    name: str
    action: str
    origin: Origin
    before: str | None
    after: str | None


@datarecord
class Notice:
    """Something the user should hear about, at a level (info, warning, error)."""

    level: NoticeLevel
    text: str
    # Notices with the same non-empty key say one fact (a server that fails to start, again
    # after a reload or in another runtime): a face shows it once.
    key: str = ""


@datarecord
class ErrorEvent:
    """The turn failed: what happened, and what to do about it."""

    text: str
    detail: str = ""


@datarecord
class TurnStarted:
    """A user turn began in a session."""

    session_id: str
    text: str


@datarecord
class TextDelta:
    """More of the assistant's reply."""

    text: str


@datarecord
class ReasoningDelta:
    """Reasoning the model streamed before or between its answer text; never part of the answer."""

    text: str


@datarecord
class ServerWaiting:
    """The provider's server has sent nothing for `seconds` (whole, from 1 s on); 0: it spoke
    again. Faces show a live "waiting for the server (Ns)"."""

    seconds: float
    source: str = "main"  # "review" for the background review's calls


@datarecord
class TextReset:
    """Drop the text and reasoning streamed for the current model call: it is being retried."""

    reason: str


@datarecord
class ToolCallStarted:
    """The model called a tool; it is running."""

    call_id: str
    name: str
    arguments: dict
    source: Literal["main", "review"] = "main"


@datarecord
class ToolCallFinished:
    """A tool call ended: whether it worked, how long it took, what it gave back."""

    call_id: str
    name: str
    ok: bool
    duration: float
    preview: str
    source: Literal["main", "review"] = "main"
    # The whole result as JSON text, secrets redacted but not cut: the model (and sessions.db)
    # may have got a copy capped at tools.max_result_chars, the faces can show all of it.
    result: str = ""
    # When the model's copy was cut: the file in the session's scratch folder holding the
    # uncut output (what the model was told to page through).
    full_output_path: str | None = None
    output: str = ""  # the uncut result as a person reads it (a command's whole output)
    diff: str = ""  # a file edit as a unified diff (write_file, patch); the model never sees it


@datarecord
class TurnFinished:
    """A user turn ended, with its token usage."""

    usage: dict = field(default_factory=dict)
    cached_tokens: int = 0
    interrupted: bool = False
    last_input_tokens: int = 0  # of the turn's last model call: how full the context is
    last_cached_tokens: int = 0


@datarecord
class UsageUpdated:
    """The conversation's tokens so far and what they cost, after each of its model calls."""

    session_id: str
    model: str
    totals: UsageTotals  # the conversation's own turns (failed and retried attempts included)
    cost_usd: float | None  # turns and reviews; None: no price is known for the model
    review: UsageTotals = field(default_factory=UsageTotals)  # its background reviews' calls


@datarecord
class NudgeCounters:
    """Where the memory and skill nudge counters stand."""

    memory: int
    memory_interval: int
    skills: int
    skills_interval: int


@datarecord
class ReviewChange:
    """One write a background review made (or staged): what it was and the text around it."""

    kind: Literal["memory", "skill"]
    target: str  # "memory"/"user", or the skill's name
    action: str
    before: str | None
    after: str | None
    pending_id: str | None = None  # set when write approval staged it instead
    file: str | None = None  # a skill's support file, when the change was to one


@datarecord
class ReviewStarted:
    """A background review began."""

    review_id: str
    session_id: str
    kind: str  # memory, skills or combined


@datarecord
class ReviewFinished:
    """A background review ended, with what it changed."""

    review_id: str
    session_id: str
    status: str  # done, failed, timeout
    summary: str
    changes: tuple[ReviewChange, ...] = ()


@datarecord
class WriteHeld:
    """A memory, skill or instruction-file write staged in pending/ for the user (taint or
    the scanner)."""

    pending_id: str
    kind: str  # memory, skill or file (AGENTS.md...: `target` is its path)
    target: str
    action: str
    origin: Origin
    reason: str
    source: str = ""  # the tool call it copies from, or the one that tainted the conversation
    # When it copies a tool result: the copied text as the result has it, and as the write does.
    tool_excerpt: str = ""
    write_excerpt: str = ""
    # It is held for copying `source`, which `reason` then names already (a face adds `source`
    # only when it does not).
    copies: bool = False


@datarecord
class TodoChanged:
    """The agent's todo list for the conversation, whole, after the model wrote it."""

    session_id: str
    items: tuple[TodoItem, ...]


Event = (
    MemoryChanged
    | SkillChanged
    | Notice
    | ErrorEvent
    | TurnStarted
    | TextDelta
    | ReasoningDelta
    | TextReset
    | ServerWaiting
    | ToolCallStarted
    | ToolCallFinished
    | TurnFinished
    | UsageUpdated
    | NudgeCounters
    | ReviewStarted
    | ReviewFinished
    | WriteHeld
    | TodoChanged
)
Sink = Callable[[Event], None]


def discard(_event: Event) -> None:
    """A sink for callers that do not listen (tests, one-shot CLI commands)."""
