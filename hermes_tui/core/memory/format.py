"""The memory files' format (Hermes semantics, DESIGN.md section 6): entries joined by
"\n§\n", limits in characters of the joined text, the usage line, and the frozen snapshot's
records."""

from __future__ import annotations

from typing import Literal

from hermes_tui.core.records import datarecord

Target = Literal["memory", "user"]
TARGETS: tuple[Target, ...] = ("memory", "user")
ENTRY_DELIMITER = "\n§\n"
FILENAMES: dict[str, str] = {"memory": "MEMORY.md", "user": "USER.md"}
BLOCK_TITLES: dict[str, str] = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}
RULE = "═" * 46
WARN_PERCENT = 90
PREVIEW_WIDTH = 80


@datarecord
class Usage:
    """A memory store's size against its limit, in characters."""

    chars: int
    limit: int

    @property
    def percent(self) -> int:
        return min(100, self.chars * 100 // self.limit) if self.limit > 0 else 0

    def __str__(self) -> str:
        return f"{self.percent}% — {self.chars:,}/{self.limit:,} chars"


@datarecord
class ArchivedEntry:
    """A removed or replaced memory entry kept in memories/.archive.jsonl."""

    id: str
    time: float
    origin: str
    target: str
    action: str
    entry: str
    replaced_by: str | None = None


@datarecord
class MemorySnapshot:
    """The memory blocks of one session's system prompt, frozen when the session starts."""

    memory: str
    user: str


def preview(entry: str) -> str:
    flat = entry.replace("\n", " ")
    return flat[:PREVIEW_WIDTH] + ("..." if len(flat) > PREVIEW_WIDTH else "")


def parse_entries(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(ENTRY_DELIMITER) if part.strip()]


def join_entries(entries: list[str] | tuple[str, ...]) -> str:
    return ENTRY_DELIMITER.join(entries)


def encode(text: str, crlf: bool) -> bytes:
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
