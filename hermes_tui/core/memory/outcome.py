"""What a memory write tells its caller: the change it made, the preview of one, or why it was
refused. The store speaks in these; only the memory tool (core/tools/memory.py) turns them into
the model's payload, so a face reads typed fields and never a payload's keys or its wording."""

from __future__ import annotations

import enum

from hermes_tui.core.memory.format import Target, Usage
from hermes_tui.core.records import datarecord


class MemoryStoreError(Exception):
    """Raised for a caller mistake (unknown target, unknown archive id), and as MemoryRefused
    for a write the store will not make."""


class RefusalReason(enum.Enum):
    """Why the store would not write; the message says it in words for the model and the user."""

    EMPTY = "empty"  # no content, no operations, or an operation missing what it needs
    INVALID = (
        "invalid"  # an operation that is not {action, content, old_text}, or an unknown action
    )
    SEPARATOR = "separator"  # content holding a line of only '§'
    THREAT = "threat"  # the scanner refuses the text (pattern_ids say which rules)
    SECRET = "secret"  # the text holds a known secret (a .env value, a key) in some form
    TOO_LARGE = "too_large"  # content too large to be one entry
    FULL = "full"  # the file's character limit would be passed (current_entries to consolidate)
    NO_MATCH = "no_match"  # old_text names no entry
    AMBIGUOUS = "ambiguous"  # old_text names several entries (matches lists them)
    DRIFT = "drift"  # the file was edited by hand into a shape a rewrite would change
    LINK = "link"  # the file or its folder is a symbolic link out of the home
    CONTENDED = "contended"  # another program kept changing the file during the write


@datarecord
class MemoryRefusal:
    """A write the store would not make; nothing was changed by it."""

    reason: RefusalReason
    message: str
    # The entries as the model may see them and the file's usage, so it can consolidate
    # (for a full file and for an operation that names no entry, or several).
    current_entries: tuple[str, ...] | None = None
    usage: Usage | None = None
    matches: tuple[str, ...] | None = None  # previews of the entries an ambiguous old_text names
    pattern_ids: tuple[str, ...] | None = None  # the threat rules that refused the text
    drift_backup: str | None = None  # where the hand-edited file was copied to


class MemoryRefused(MemoryStoreError):
    """The store refused a write; `refusal` says why (str(exc) is its message)."""

    def __init__(self, refusal: MemoryRefusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal

    @property
    def reason(self) -> RefusalReason:
        return self.refusal.reason


@datarecord
class MemoryChange:
    """A write the store made (or found already made: `changed` is False then)."""

    target: Target
    action: str  # add, replace, remove, batch or restore
    message: str
    usage: Usage  # of the file after the write
    entries: tuple[str, ...]  # the file's entries after the write
    changed: bool = True
    warning: str | None = None  # the file is nearly full, or a restore sits beside its replacement


@datarecord
class MemoryPreview:
    """What a batch would make of a file, without writing: the joined text before and after."""

    before: str
    after: str
