"""Bounded memory: MEMORY.md (the agent's notes) and USER.md (who the user is).

format.py is the files' format and the records the store hands out; outcome.py what a write
returns (MemoryChange, MemoryPreview) or raises (MemoryRefused); store.py is MemoryStore
(locked, archived, scanned, announced writes). The memory tool's failure budget lives with the
tool (core/tools/memory_budget.py).
"""

from hermes_tui.core.memory.files import FileState
from hermes_tui.core.memory.format import (
    ENTRY_DELIMITER,
    FILENAMES,
    TARGETS,
    ArchivedEntry,
    MemorySnapshot,
    Target,
    Usage,
    join_entries,
    parse_entries,
)
from hermes_tui.core.memory.outcome import (
    MemoryChange,
    MemoryPreview,
    MemoryRefusal,
    MemoryRefused,
    MemoryStoreError,
    RefusalReason,
)
from hermes_tui.core.memory.store import MemoryStore

__all__ = [
    "ENTRY_DELIMITER",
    "FILENAMES",
    "TARGETS",
    "ArchivedEntry",
    "FileState",
    "MemoryChange",
    "MemoryPreview",
    "MemoryRefusal",
    "MemoryRefused",
    "MemorySnapshot",
    "MemoryStore",
    "MemoryStoreError",
    "RefusalReason",
    "Target",
    "Usage",
    "join_entries",
    "parse_entries",
]
