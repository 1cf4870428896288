"""File operations that never reach outside a set of folders, whatever links a command left.

The git guard runs in the app's own process, outside the sandbox, on paths a sandboxed command
could have shaped: a `hooks` folder that is a symlink to the user's documents, a `.git` file
naming another repository, a folder swapped for a link on the way. Every change it makes goes
through `Contained`: the folder holding the name is resolved to its real path, which must lie
in one of the roots (the workspace and the git directories it used before the command), opened
without following a link, checked again through the open descriptor, and the change is made
relative to that descriptor on the name itself (a link is removed or replaced, never followed).
An operation that would land outside raises `Outside` and changes nothing.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

MAX_READ = 4_000_000  # a config or pointer file larger than this is not read


class Outside(OSError):
    """The operation would change something outside the guarded folders."""


def within(real: str, roots: Iterable[str]) -> bool:
    """Whether the real path `real` is one of `roots` or inside one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def read_regular(path: Path, limit: int = MAX_READ) -> bytes | None:
    """The bytes of a regular file (a link is followed: reading decides nothing on its own);
    None for a missing file, a FIFO, a device or a folder, which are never opened to block."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        return None
    except OSError:
        return None
    finally:
        os.close(fd)


def _fd_real(fd: int, real: str) -> str | None:
    """Where the open folder `fd` really is now; None when that cannot be told."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    try:  # no /proc: the folder at `real` must still be the one open
        here, there = os.fstat(fd), os.stat(real, follow_symlinks=False)
    except OSError:
        return None
    same = (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)
    return real if same else None


class Contained:
    """Changes confined to `roots` (real paths of folders)."""

    def __init__(self, roots: Iterable[Path | str], resolved: bool = False) -> None:
        """`resolved`: the roots are real paths taken earlier (before the command), kept as
        they are, not resolved again through links the command may have made since."""
        found = {str(root) if resolved else os.path.realpath(root) for root in roots}
        self.roots = tuple(sorted(found))

    @contextmanager
    def _folder(self, path: Path) -> Iterator[int]:
        real = os.path.realpath(path.parent)
        if not within(real, self.roots):
            raise Outside(f"{path.parent} leads to {real}, outside the guarded folders")
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(real, flags)
        try:
            now = _fd_real(fd, real)
            if now is None or not within(now, self.roots):
                raise Outside(f"{path.parent} moved outside the guarded folders")
            yield fd
        finally:
            os.close(fd)

    def unlink(self, path: Path) -> None:
        """Remove the file or link `path` (a link's target is untouched)."""
        with self._folder(path) as fd:
            os.unlink(path.name, dir_fd=fd)

    def rename(self, path: Path, name: str) -> None:
        """Rename `path` (a link stays a link) to `name` in the same folder."""
        with self._folder(path) as fd:
            os.replace(path.name, name, src_dir_fd=fd, dst_dir_fd=fd)

    def write(self, path: Path, data: bytes, mode: int = 0o600) -> None:
        """Replace whatever is at `path` (a link included, never followed) with a regular file
        holding `data`, atomically."""
        with self._folder(path) as fd:
            temp = f".{path.name}.{secrets.token_hex(6)}"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            out = os.open(temp, flags, 0o600, dir_fd=fd)
            try:
                with os.fdopen(out, "wb") as handle:
                    handle.write(data)
                    os.fchmod(handle.fileno(), mode)
                os.replace(temp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temp, dir_fd=fd)
                raise

    def mkdir(self, path: Path) -> None:
        """A folder at `path`; one already there (not a link) is fine."""
        with self._folder(path) as fd:
            try:
                os.mkdir(path.name, 0o755, dir_fd=fd)
            except FileExistsError:
                found = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
                if not stat.S_ISDIR(found.st_mode):
                    raise

    def symlink(self, target: str, path: Path) -> None:
        with self._folder(path) as fd:
            os.symlink(target, path.name, dir_fd=fd)

    def free_name(self, path: Path) -> Path:
        """`path` itself, or `path.2`, `path.3`, … : the first name nothing holds."""
        candidate, serial = path, 1
        while os.path.lexists(candidate):
            serial += 1
            candidate = path.with_name(f"{path.name}.{serial}")
        return candidate

    def move_aside(self, path: Path, suffix: str = ".refused") -> Path:
        """Rename `path` (a link itself, not its target) to a free `<name><suffix>` beside it."""
        aside = self.free_name(path.with_name(path.name + suffix))
        self.rename(path, aside.name)
        return aside
