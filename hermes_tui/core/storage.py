"""Durable file primitives every store uses: a cross-process lock, atomic replace, locked append.

DESIGN.md section 1.3: writes go to a temp file in the same directory, are fsynced and
`os.replace`d over the target; a second process is kept out by `fcntl.flock` on `<file>.lock`.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class StorageError(OSError):
    """A file could not be locked, read or written; the message says which and why."""


# flock() conflicts between separate open file descriptions even inside one process, so the
# file lock alone serialises threads too; this lock only keeps one thread from waiting on the
# kernel while another thread of ours holds the same path.
_thread_locks: dict[str, threading.RLock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock_for(path: Path) -> threading.RLock:
    key = str(path)
    with _thread_locks_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.RLock()
        return lock


# Lock files this thread holds: taking one again is a no-op, because a second flock on a new
# descriptor would wait for the first forever.
_held = threading.local()

TEMP_SUFFIX = ".tmp"

_PLAIN_ERRORS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def is_temp_file(name: str) -> bool:
    """Whether `name` is one of atomic_write_bytes's temp files (`.<target>.<random>.tmp`).

    Another writer's temp file is half a write in progress (or the leftover of a killed one):
    scanners and listings skip it.
    """
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def plain_os_error(exc: OSError) -> str:
    """The cause of an OSError in the words a user searches for ("disk full", "read-only ...")."""
    return _PLAIN_ERRORS.get(exc.errno or 0, exc.strerror or str(exc))


def lock_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `<path>.lock` (mode 0600, never followed through a symlink).

    Re-entrant within one thread, so a locked operation may call another that locks the same file.
    """
    lock_path = lock_path_for(path)
    held: set[str] = _held.__dict__.setdefault("paths", set())
    if str(lock_path) in held:
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    with _thread_lock_for(lock_path):
        try:
            fd = os.open(lock_path, flags, 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StorageError(
                    f"{lock_path} is a symlink; refusing to lock through it. Remove it and retry."
                ) from exc
            raise StorageError(f"cannot open lock file {lock_path}: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held.add(str(lock_path))
            try:
                yield
            finally:
                held.discard(str(lock_path))
        finally:
            # Closing the descriptor releases the flock.
            os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    only_if: Callable[[], bool] | None = None,
) -> bool:
    """Replace `path` with `data` so a reader (or a crash) sees the old file or the new, never half.

    `only_if` is asked once the new bytes are safely on disk, right before the replace; when it
    says no (the target changed meanwhile), nothing is replaced and the result is False.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        elif path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        if only_if is not None and not only_if():
            os.unlink(tmp_name)
            return False
        os.replace(tmp_name, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)
    return True


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def append_line(path: Path, line: str) -> None:
    """Append one line (newline added) under the file's lock, fsynced: for append-only logs."""
    if "\n" in line:
        raise ValueError("append_line takes a single line")
    with file_lock(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            size = os.fstat(fd).st_size
            # A writer killed mid-line leaves no newline; start on a fresh line so this
            # record is not glued to the torn one and lost with it.
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
            os.write(fd, (("\n" if torn else "") + line + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)


def write_merged_cache(
    path: Path,
    read: Callable[[], dict[str, Any]],
    new: dict[str, Any],
    used: set[str],
    max_entries: int,
    document: Callable[[dict[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    """Under the file's lock: the entries on disk (`read()`, what other processes wrote
    meanwhile) with `new` added, those in `used` moved to the young end, the oldest dropped past
    `max_entries`, written atomically (0600) as the JSON `document(entries)`. Returns the
    entries written; raises OSError (a read-only home, a full disk) for the caller to shrug off."""
    ensure_private_dir(path.parent)
    with file_lock(path):
        entries = read()
        entries.update(new)
        # Most recently used last, so trimming drops the least recently used.
        for key in sorted(used & entries.keys()):
            entries[key] = entries.pop(key)
        while len(entries) > max_entries:
            del entries[next(iter(entries))]
        data = json.dumps(document(entries), ensure_ascii=False, separators=(",", ":"))
        atomic_write_bytes(path, data.encode("utf-8"), mode=0o600)
    return entries


def make_private(path: Path, mode: int) -> None:
    """Tighten an existing file or folder we own to `mode` (0600/0700) if others can read it.

    Someone else's file is left alone (chmod would fail, and it is theirs to decide); a missing
    one is nothing to do.
    """
    try:
        info = os.stat(path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return  # nothing there to tighten, or not ours to look at; the opener reports it
    if info.st_uid != os.geteuid() or (info.st_mode & 0o777) & ~mode == 0:
        return
    if os.path.islink(path):
        return
    try:
        os.chmod(path, mode)
    except OSError as exc:  # a read-only home: reading it must still work
        log.warning("cannot make %s private (%s)", path, exc.strerror or exc)


def ensure_private_dir(path: Path) -> None:
    """Create `path` as a 0700 folder (or tighten the one that is there) for private data; the
    folders made on the way to it are 0700 too (logs/curator/<stamp>), existing ones untouched."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    make_private(path, 0o700)


# ---- noticing writers that do not take our lock ----------------------------------------------

Fingerprint = tuple[int, int, int, str]  # (inode, mtime_ns, size, sha256) of the bytes read


def open_for_reading(path: Path) -> Any:
    """The file opened for reading (keep it open: after replacing the file, a write can still
    read what lands in the old one), or None when there is no file."""
    try:
        return path.open("rb", buffering=0)
    except FileNotFoundError:
        return None


def read_with_fingerprint(handle: Any) -> tuple[bytes, Fingerprint]:
    """The bytes an open file holds now and their fingerprint; works on a replaced file too."""
    handle.seek(0)
    data = handle.read()
    stat = os.fstat(handle.fileno())
    return data, (stat.st_ino, stat.st_mtime_ns, stat.st_size, hashlib.sha256(data).hexdigest())


def still_holds(path: Path, fingerprint: Fingerprint | None) -> bool:
    """Whether the file at `path` is still the one with `fingerprint` (None: still absent):
    checked just before replacing it, so that an edit made meanwhile by a program that took no
    lock is seen and merged instead of overwritten."""
    handle = open_for_reading(path)
    if handle is None:
        return fingerprint is None
    with handle:
        return read_with_fingerprint(handle)[1] == fingerprint
