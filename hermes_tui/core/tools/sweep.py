"""What a command must not leave in the working directory, and moving it aside when it did.

A path that runs later outside the sandbox (`PROTECTED_IN_WORKDIR` that git's guard does not
handle, a top-level `hermes_tui` that `python -m hermes_tui` would run, and the folders of the
user's PATH inside a writable place) is judged by identity: one the command created, or
replaced (another file, folder or link where it was: a protected `.vscode` that was a link the
sandbox cannot bind, a PATH folder whose parent was renamed), is moved aside after the command
ends (every process of the command is gone by then, its pid namespace dies with it, so the
sweep cannot be raced), and a link that was there is put back as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermes_tui.core.tools.folder_rights import writable_again
from hermes_tui.core.tools.run_later import (
    PROTECTED_IN_WORKDIR,
    made_below,
    own_name_shadows,
    top_pattern_configs,
)

MOVED_ASIDE = ".hermes-moved-aside"  # beside a swept path, when the quarantine cannot take it


def swept_paths(workdir: Path) -> list[Path]:
    """What a command must not create in the working directory (moved aside after it when it
    did): the protected paths git's guard does not handle, and `own_name_shadows`."""
    names = [name for name in PROTECTED_IN_WORKDIR if not name.startswith(".git/")]
    return [
        *(workdir / name for name in names),
        *own_name_shadows(workdir),
        *made_below(workdir),
        *top_pattern_configs(workdir),
    ]


# What a path is: device, inode, file type; a link by the text it holds and by what it leads
# to (the real path, device and inode: a folder above its target renamed and made anew, or a
# link on the way changed, is another place though the link itself is the same).
Identity = tuple[int, int, int, str | None, tuple[str, int, int] | None]


def identity(path: Path) -> Identity | None:
    """What lies at `path` (not following a link there), None when nothing does."""
    try:
        found = os.lstat(path)
        if not stat.S_ISLNK(found.st_mode):
            return found.st_dev, found.st_ino, stat.S_IFMT(found.st_mode), None, None
        text = os.readlink(path)
    except OSError:
        return None
    try:
        target = os.stat(path)
        leads = (os.path.realpath(path), target.st_dev, target.st_ino)
    except OSError:
        leads = None  # leads nowhere
    return 0, 0, stat.S_IFLNK, text, leads


def identities(paths: Iterable[Path]) -> dict[Path, Identity | None]:
    """`identity` of each path, taken before the command runs."""
    return {path: identity(path) for path in paths}


def sweep_created(
    protected: Iterable[Path], before: Mapping[Path, Identity | None], quarantine: Path
) -> list[tuple[Path, Path]]:
    """Protected paths that the command created or replaced (what lies there is not what lay
    there before; a path missing from `before` did not exist), moved into `quarantine`
    (never deleted: the user may want to look), and a link that lay there put back when it
    still leads where it did (when not, the link is moved aside too). Returns (from, to)
    pairs; a link put back where nothing else was pairs with itself.

    When the quarantine lies on another filesystem (a workspace on a tmpfs /tmp or a data
    disk, the home on another), a path goes into `.hermes-moved-aside/` beside it instead,
    where nothing runs it; one that cannot be moved at all is removed, and one failure never
    leaves the rest where they are."""
    moved: list[tuple[Path, Path]] = []
    for path in dict.fromkeys(protected):
        was, now = before.get(path), identity(path)
        if now == was:
            continue
        writable_again(path.parent)
        if now is not None:
            moved.append((path, move_aside(path, quarantine)))
        if was is None or was[3] is None:
            continue
        # A link: put back, when it still leads where it led (else nothing stays there: what
        # it would lead to now is the command's).
        with contextlib.suppress(OSError):
            os.symlink(was[3], path)
        if identity(path) == was:
            if now is None:
                moved.append((path, path))
        elif os.path.lexists(path):
            moved.append((path, move_aside(path, quarantine)))
    return moved


def move_aside(path: Path, quarantine: Path) -> Path:
    """`path` moved into `quarantine` (beside it when that fails), removed when it cannot be
    moved at all; where it went (os.devnull: removed; itself: still there)."""
    for place in (quarantine, None):
        try:
            target = _free_name(place or aside_folder(path.parent), path.name.lstrip("."))
            os.replace(path, target)
        except OSError:
            continue
        return target
    with contextlib.suppress(OSError):
        _remove(path)
    return Path(os.devnull) if not os.path.lexists(path) else path


def aside_folder(parent: Path) -> Path:
    """`.hermes-moved-aside` in `parent`, a real folder of its own. A command may have put a
    link there (or a file): followed, the app would move what it holds aside into any folder
    the user can write, ~/.bashrc.d say, where it runs (attack7's A7-13). A link there is
    removed first (it is the command's, and holds nothing); anything else that is not a
    folder is an OSError, as is a folder that is not one once made."""
    place = parent / MOVED_ASIDE
    writable_again(parent)
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISLNK(os.lstat(place).st_mode):
            os.unlink(place)
    with contextlib.suppress(FileExistsError):
        os.mkdir(place, 0o700)
    if not stat.S_ISDIR(os.lstat(place).st_mode):
        raise OSError(f"{place} is not a folder")
    writable_again(place)
    return place


def _free_name(place: Path, name: str) -> Path:
    place.mkdir(parents=True, exist_ok=True)
    target, serial = place / name, 1
    while os.path.lexists(target):
        serial += 1
        target = place / f"{name}.{serial}"
    return target


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def moved_to(moved: list[tuple[Path, Path]], quarantine: Path) -> str:
    """Where `sweep_created` put what it moved, and the links it put back, for the tool
    result."""
    places = sorted({str(to.parent) for old, to in moved if to not in (Path(os.devnull), old)})
    removed = [str(old.name) for old, to in moved if to == Path(os.devnull)]
    said = f"moved aside to {', '.join(places)}" if places else ""
    if removed:
        said += ("; " if said else "") + f"removed (could not be moved): {', '.join(removed)}"
    stuck = [str(old.name) for old, to in moved if to == old and not old.is_symlink()]
    if stuck:
        said += ("; " if said else "") + f"STILL THERE (could not be moved): {', '.join(stuck)}"
    links = sorted(old.name for old, _ in moved if old.is_symlink())
    if links:
        were = "the links {} put back as they were" if len(links) > 1 else "the link {} put back"
        said += ("; " if said else "") + were.format(", ".join(links))
    return said or f"moved aside to {quarantine}"


# What lies under a shadowed name: its identity and whether it may run (a `chmod +x` of a file
# that was there makes it a program).
Program = tuple[Identity | None, bool]


def _program(path: Path) -> Program:
    try:
        runnable = bool(os.stat(path).st_mode & 0o111)
    except OSError:
        runnable = False
    return identity(path), runnable


def shadow_programs(folders: Iterable[tuple[Path, frozenset[str]]]) -> dict[Path, Program]:
    """Before a command: what lies in each folder of `run_later.shadowing_folders` under one of
    the names it shadows."""
    found: dict[Path, Program] = {}
    for folder, names in folders:
        # A command may leave it unlistable (`chmod 311`: the shell finds a program there by
        # name with search permission alone): its owner's rights back first (attack9's A9-10).
        writable_again(folder)
        with contextlib.suppress(OSError):
            for name in names.intersection(os.listdir(folder)):
                found[folder / name] = _program(folder / name)
    return found


def sweep_shadows(
    folders: Iterable[tuple[Path, frozenset[str]]],
    before: Mapping[Path, Program],
    quarantine: Path,
) -> list[tuple[Path, Path]]:
    """After a command: each program it left under a shadowed name (created, replaced, or made
    runnable), moved into `quarantine`: `git` in a working directory that is on PATH ahead of
    /usr/bin. One that was there and is unchanged stays (the user's own)."""
    moved: list[tuple[Path, Path]] = []
    for path, now in shadow_programs(folders).items():
        if now != before.get(path) and now[1]:
            moved.append((path, move_aside(path, quarantine)))
    return moved
