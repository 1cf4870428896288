"""A folder of the user's that a command took the user's own rights from (`chmod 555 .`,
`chmod 311 sub`): given back before the app moves, puts back or lists what lies there. A leaf
module (nothing of the app imported): the walks of gitdirs and folder_walk use it, and sweep.py.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path


def writable_again(folder: Path) -> None:
    """Give the user back write access to a folder of theirs a command took it from (`chmod
    555 .` at the end of a command made every move aside and put back fail, and what they
    should have undone stay: attack8's A8-9). Folders of others, links and failures are left
    alone: the move that follows then fails and says so."""
    try:
        found = os.lstat(folder)  # the folder itself, never a link's target
        mode = stat.S_IMODE(found.st_mode)
        mine = stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid()
        if mine and mode | stat.S_IRWXU != mode:
            os.chmod(folder, mode | stat.S_IRWXU)
    except OSError:
        return


def scandir_again(folder: str) -> Iterator[os.DirEntry[str]]:
    """`os.scandir(folder)`; when it may not be listed, the user's own folder gets its owner's
    rights back first and is listed again: a command's `chmod 311 sub` hid a new AGENTS.md
    or a nested repository from the walks that look for them, while a session started there,
    git, a shell or a loader reach what lies there by name (attack9's A9-10). OSError when it
    still cannot be listed."""
    try:
        return os.scandir(folder)
    except PermissionError:
        writable_again(Path(folder))
        return os.scandir(folder)
