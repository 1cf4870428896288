"""Reading, replacing and deleting a file by its recorded real path without ever following a
symbolic link on the way (for /rewind: core/checkpoints.py).

The files tools record the real path of what they wrote (no link in it). Between that write and
a rewind, a command may have swapped a folder on the path, or the file itself, for a link to
somewhere else (the user's home): following it would make the app, which is not sandboxed,
write or delete there. So each component is opened relative to the one before with
O_NOFOLLOW (a link is refused, not followed), and the file is read, written (a temporary file
then a rename, both in the folder already opened) or unlinked through that folder's descriptor:
a swap made after the check cannot redirect the write either.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

_DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_PATH", os.O_RDONLY)


class UnsafePath(OSError):
    """A path that cannot be used without following a link (or reaching a special file)."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = str(path)
        self.why = why


def _why_not_a_folder(parent: int, name: str, so_far: str) -> str:
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return f"{so_far} cannot be opened"
    if stat.S_ISLNK(info.st_mode):
        target = ""
        with suppress(OSError):
            target = f" to {os.readlink(name, dir_fd=parent)}"
        return f"{so_far} is now a symbolic link{target}, which is not followed"
    return f"{so_far} is not a folder"


def open_parent(path: Path, *, create: bool = False) -> int | None:
    """A descriptor of `path`'s folder, reached from / one component at a time without following
    a link. None when a folder on the way does not exist (unless `create`: then it is made).
    Raises UnsafePath when a component is a link or not a folder."""
    if not path.is_absolute():
        raise UnsafePath(path, "not an absolute path")
    parts = path.parent.parts[1:]
    fd = os.open("/", _DIR_FLAGS)
    so_far = "/"
    try:
        for name in parts:
            so_far = os.path.join(so_far, name)
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                with suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                child = _open_child(fd, name, so_far)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise UnsafePath(path, _why_not_a_folder(fd, name, so_far)) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(parent: int, name: str, so_far: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise UnsafePath(so_far, _why_not_a_folder(parent, name, so_far)) from None


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist. Raises UnsafePath when the path goes
    through a link (a folder on the way or the file itself) or the file is not a regular file
    (a named pipe would block the app forever)."""
    parent = open_parent(path)
    if parent is None:
        return None
    try:
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=parent)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise UnsafePath(path, _why_not_a_folder(parent, path.name, str(path))) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UnsafePath(path, "not a regular file")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        os.close(parent)


def write_bytes(path: Path, data: bytes) -> None:
    """Replace the file with `data` atomically (a temporary file renamed over it, in the folder
    already opened), keeping its permission bits; missing folders are made."""
    parent = open_parent(path, create=True)
    assert parent is not None
    try:
        try:
            mode = os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise UnsafePath(path, "not a regular file")
        tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=parent
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), stat.S_IMODE(mode))
                os.fsync(handle.fileno())
            os.replace(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise
        _fsync_folder(parent)
    finally:
        os.close(parent)


def unlink(path: Path) -> None:
    """Delete the file (a missing one, or a missing folder on the way, is fine)."""
    parent = open_parent(path)
    if parent is None:
        return
    try:
        try:
            mode = os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode):
            raise UnsafePath(path, "not a regular file")
        with suppress(FileNotFoundError):
            os.unlink(path.name, dir_fd=parent)
    finally:
        os.close(parent)


def _fsync_folder(parent: int) -> None:
    with suppress(OSError):
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=parent)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
