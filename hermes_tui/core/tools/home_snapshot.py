"""What lay at a path of hermes-tui's home before an MCP call, whole, and putting it back.

An MCP server outside the sandbox can reach the hermes home, whose SOUL.md, memories, skills
and commands every later session loads. A call's arguments name what it touches: a file
(attack8's A8-2), or a FOLDER, which a filesystem server's `move_file` moves whole: a new
`skills/<name>/`, or a replacement `memories/` moved in where the real one was moved out
(attack9's A9-13). So each named path is taken whole before the call (a file's bytes, a
folder's tree of files, folders and links: never followed) and, when the call changed it,
what is there is moved aside (never deleted) and what was is made again.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_BYTES = 4 * 1024 * 1024  # kept per named path, at most
MAX_ENTRIES = 2_000  # entries of a named folder kept, at most


@dataclass
class Taken:
    """A path as it was: `kind` "absent", "file", "link" or "folder" ("unkept": too large or
    unreadable to keep); a folder's entries by relative path."""

    kind: str
    data: bytes = b""  # a file's bytes; a link's text
    mode: int = 0o644
    entries: dict[str, tuple[str, bytes, int]] = field(default_factory=dict)


def take(path: Path) -> Taken:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return Taken("absent")
    except OSError:
        return Taken("unkept")
    if stat.S_ISDIR(found.st_mode):
        return _folder(path, stat.S_IMODE(found.st_mode))
    one = _entry(path, found)
    return Taken("unkept") if one is None else Taken(one[0], one[1], one[2])


def _entry(path: Path, found: os.stat_result) -> tuple[str, bytes, int] | None:
    mode = stat.S_IMODE(found.st_mode)
    try:
        if stat.S_ISLNK(found.st_mode):
            return "link", os.readlink(path).encode("utf-8", "surrogateescape"), mode
        if stat.S_ISREG(found.st_mode) and found.st_size <= MAX_BYTES:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as file:
                return "file", file.read(MAX_BYTES + 1), mode
    except OSError:
        return None
    return None


def _folder(path: Path, mode: int) -> Taken:
    entries: dict[str, tuple[str, bytes, int]] = {}
    size, pending = 0, [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(path / relative if relative else path) as listing:
                items = sorted(listing, key=lambda item: item.name)
        except OSError:
            return Taken("unkept")
        for item in items:
            name = os.path.join(relative, item.name) if relative else item.name
            try:
                found = item.stat(follow_symlinks=False)
            except OSError:
                return Taken("unkept")
            if stat.S_ISDIR(found.st_mode):
                entries[name] = ("folder", b"", stat.S_IMODE(found.st_mode))
                pending.append(name)
                continue
            one = _entry(Path(item.path), found)
            if one is None:
                return Taken("unkept")
            entries[name] = one
            size += len(one[1])
            if size > MAX_BYTES or len(entries) > MAX_ENTRIES:
                return Taken("unkept")
    return Taken("folder", mode=mode, entries=entries)


def same(before: Taken, now: Taken) -> bool:
    return (before.kind, before.data, before.entries) == (now.kind, now.data, now.entries)


def put_back(path: Path, before: Taken, aside: Path) -> str:
    """Move what lies at `path` into `aside` (a folder nothing loads), then make `before` again
    there; what was done, in words. Raises OSError when it could not."""
    from hermes_tui.core.storage import atomic_write_bytes

    moved = ""
    if os.path.lexists(path):
        aside.mkdir(parents=True, exist_ok=True)
        target, serial = aside / path.name, 1
        while os.path.lexists(target):
            serial += 1
            target = aside / f"{path.name}.{serial}"
        os.replace(path, target)
        moved = f"moved aside to {target}"
    if before.kind == "absent":
        return moved
    path.parent.mkdir(parents=True, exist_ok=True)  # the home itself was moved away
    if before.kind == "file":
        atomic_write_bytes(path, before.data, mode=before.mode)
    elif before.kind == "link":
        os.symlink(before.data.decode("utf-8", "surrogateescape"), path)
    else:
        os.mkdir(path, before.mode | stat.S_IRWXU)
        for name, (kind, data, mode) in before.entries.items():
            place = path / name
            if kind == "folder":
                os.mkdir(place, mode | stat.S_IRWXU)
            elif kind == "link":
                os.symlink(data.decode("utf-8", "surrogateescape"), place)
            else:
                atomic_write_bytes(place, data, mode=mode)
        os.chmod(path, before.mode)
    return f"{moved + '; ' if moved else ''}put back as it was"
