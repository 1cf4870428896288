"""A SQLite file that can fail: what kind of failure an error is, and who holds the file."""

from __future__ import annotations

import os
import sqlite3
from contextlib import suppress
from pathlib import Path


def error_kind(exc: sqlite3.DatabaseError) -> str:
    """locked, damaged or other, from SQLite's error code (or its message on old Pythons)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "locked"
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or any(
        marker in text for marker in ("malformed", "not a database")
    ):
        return "damaged"
    return "other"


def readonly_hint(directory: Path, exc: sqlite3.DatabaseError) -> str:
    try:
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        return f"{directory} is on a read-only file system; use a writable --home"
    if not os.access(directory, os.W_OK):
        return f"{directory} is not writable ({exc}); fix its permissions or use another --home"
    return f"{exc}"


def processes_holding(path: Path) -> list[str]:
    """Processes with the database open (Linux /proc), as 'pid N (command)'; empty if unknown."""
    wanted = {str(path), f"{path}-wal", f"{path}-shm"}
    found: list[str] = []
    try:
        pids = [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # gone, or not ours to look at
        links = set()
        for fd in fds:
            with suppress(OSError):  # closed while we looked
                links.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        if links & wanted:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                command = "?"
            mine = " — this process" if int(pid) == os.getpid() else ""
            found.append(f"pid {pid} ({command[:80]}){mine}")
    return found
