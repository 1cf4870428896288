"""Finding every instruction file below the working directory after each command, completely
and cheaply (attack7's A7-17: a walk bounded at 20,000 entries stopped inside 20,500 padding
files and never saw pad/zz/AGENTS.md).

A folder's ctime changes whenever an entry is added, removed or renamed in it, and no command
can set it back. So each folder's subfolders and instruction-file entries are remembered with
the ctime (and inode) they were listed at, per working directory, for the process: after a
command only folders whose ctime or inode changed (or that changed within CTIME_SLACK of being
listed: coarse timestamps) are listed again; the others cost one lstat. The walk is complete
whatever a command does: what it creates, however much of it, lies in folders it changed, which
are listed in full. Only a first walk is bounded (FIRST_ENTRIES listed per call, a home folder
of millions of files): what it could not reach is said (`complete` False) and listed by the
next calls, since what was listed once no longer counts.
"""

from __future__ import annotations

import os
import stat
import threading
import time

from hermes_tui.core.records import datarecord
from hermes_tui.core.tools.folder_rights import scandir_again  # one left unlistable too

CTIME_SLACK = 1.0  # seconds: a file system's coarse timestamps
FIRST_ENTRIES = 1_000_000  # entries listed anew per walk, at most (about 1.5 s)


@datarecord
class _Folder:
    """What a folder held when it was listed, and its ctime and inode then."""

    ctime_ns: int
    inode: int
    listed: float  # time.time() when listed
    subfolders: tuple[str, ...]
    named: tuple[str, ...]  # its entries called one of the names


_clock = time.time  # when a folder is listed (a test sets the clock)
_KNOWN: dict[tuple[str, frozenset[str]], dict[str, _Folder]] = {}
_LOCK = threading.Lock()


def files_named(
    base: str, names: frozenset[str], skipped: frozenset[str]
) -> tuple[list[str], bool]:
    """The paths below `base` called one of `names` (a folder so called is not entered), not
    entering a folder named in `skipped` nor following a link; and whether every folder was
    looked at."""
    with _LOCK:
        known = _KNOWN.setdefault((base, names | {"\0", *skipped}), {})
        return _walk(base, names, skipped, known)


def _walk(
    base: str, names: frozenset[str], skipped: frozenset[str], known: dict[str, _Folder]
) -> tuple[list[str], bool]:
    found: list[str] = []
    pending, listed, complete, visited = [base], 0, True, set()
    while pending:
        folder = pending.pop()
        try:
            status = os.lstat(folder)
        except OSError:
            continue
        if not stat.S_ISDIR(status.st_mode):
            continue
        entry = known.get(folder)
        if (
            entry is None
            or entry.ctime_ns != status.st_ctime_ns
            or entry.inode != status.st_ino
            or status.st_ctime >= entry.listed - CTIME_SLACK
        ):
            if listed >= FIRST_ENTRIES:
                complete = False
                continue
            entry, count = _list(folder, names, skipped, status)
            listed += count
            if entry is None:
                continue
            known[folder] = entry
        visited.add(folder)
        found.extend(os.path.join(folder, name) for name in entry.named)
        pending.extend(os.path.join(folder, name) for name in entry.subfolders)
    if complete:  # forget folders that are gone (a partial walk keeps what it did not see)
        for gone in set(known) - visited:
            del known[gone]
    return found, complete


def _list(
    folder: str, names: frozenset[str], skipped: frozenset[str], status: os.stat_result
) -> tuple[_Folder | None, int]:
    subfolders, named, count = [], [], 0
    listed = _clock()
    try:
        with scandir_again(folder) as entries:
            for item in entries:
                count += 1
                if item.name in names:
                    named.append(item.name)
                elif item.name not in skipped and item.is_dir(follow_symlinks=False):
                    subfolders.append(item.name)
    except OSError:
        return None, count
    entry = _Folder(status.st_ctime_ns, status.st_ino, listed, tuple(subfolders), tuple(named))
    return entry, count
