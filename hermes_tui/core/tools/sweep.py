"""What a command must not leave in the working directory, and moving it aside when it did.

A path that runs later outside the sandbox (`PROTECTED_IN_WORKDIR` that git's guard does not
handle, and a top-level `hermes_tui` that `python -m hermes_tui` would run) and did not exist
before the command is moved aside after it ends (every process of the command is gone by then,
its pid namespace dies with it, so the sweep cannot be raced).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from hermes_tui.core.tools.run_later import PROTECTED_IN_WORKDIR, own_name_shadows

MOVED_ASIDE = ".hermes-moved-aside"  # beside a swept path, when the quarantine cannot take it


def swept_paths(workdir: Path) -> list[Path]:
    """What a command must not create in the working directory (moved aside after it when it
    did): the protected paths git's guard does not handle, and `own_name_shadows`."""
    names = [name for name in PROTECTED_IN_WORKDIR if not name.startswith(".git/")]
    return [*(workdir / name for name in names), *own_name_shadows(workdir)]


def sweep_created(
    protected: Iterable[Path], existed: set[Path], quarantine: Path
) -> list[tuple[Path, Path]]:
    """Protected paths that did not exist before the command and do now, moved into
    `quarantine` (never deleted: the user may want to look). Returns (from, to) pairs.

    When the quarantine lies on another filesystem (a workspace on a tmpfs /tmp or a data
    disk, the home on another), a path goes into `.hermes-moved-aside/` beside it instead,
    where nothing runs it; one that cannot be moved at all is removed, and one failure never
    leaves the rest where they are."""
    moved: list[tuple[Path, Path]] = []
    for path in protected:
        if path in existed or not os.path.lexists(path):
            continue
        for place in (quarantine, path.parent / MOVED_ASIDE):
            try:
                target = _free_name(place, path.name.lstrip("."))
                os.replace(path, target)
            except OSError:
                continue
            moved.append((path, target))
            break
        else:
            with contextlib.suppress(OSError):
                _remove(path)
            moved.append((path, Path(os.devnull)))
    return moved


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
    """Where `sweep_created` put what it moved, for the tool result."""
    places = sorted({str(to.parent) for _, to in moved if to != Path(os.devnull)})
    removed = [str(old.name) for old, to in moved if to == Path(os.devnull)]
    said = f"moved aside to {', '.join(places)}" if places else ""
    if removed:
        said += ("; " if said else "") + f"removed (could not be moved): {', '.join(removed)}"
    return said or f"moved aside to {quarantine}"
