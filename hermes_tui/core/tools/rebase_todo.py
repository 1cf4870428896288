"""The todo list of an interactive rebase is a script git runs: its `exec` lines.

While the user is inside `git rebase -i` (stopped at an `edit` or a conflict: the moment they
ask the agent for help), `.git/rebase-merge/git-rebase-todo` is writable like the rest of the
git directory, since git commands in the sandbox must write there. An `exec` line a command
adds runs at the user's `git rebase --continue`, outside the sandbox (attack9's A9-21); and a
command can make such a rebase state from nothing. So the exec lines of every repository's
todo are taken before a command, and an exec line it adds is taken out after it, and said; the
rest of the todo (the rebase going on: lines consumed, reordered, edited) is the command's.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from hermes_tui.core.tools.contained import Contained

EXEC = re.compile(r"^[ \t]*(?:exec|x)[ \t]", re.IGNORECASE)
MAX_BYTES = 1024 * 1024


def todo_paths(git_dirs: Iterable[Path]) -> list[Path]:
    return [Path(git_dir) / "rebase-merge" / "git-rebase-todo" for git_dir in git_dirs]


def _lines(path: Path) -> list[str] | None:
    """The todo's lines as git reads them: through a link a command made there too (git
    follows it); None when it is no regular file (a FIFO would block the app)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = handle.read(MAX_BYTES)
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def exec_lines(paths: Iterable[Path]) -> dict[Path, frozenset[str]]:
    """Before a command: each todo's exec lines (the user's own, or `git rebase --exec`'s)."""
    found = {}
    for path in paths:
        lines = _lines(path)
        if lines is not None:
            found[path] = frozenset(line.strip() for line in lines if EXEC.match(line))
    return found


def take_out_added(
    before: dict[Path, frozenset[str]], paths: Iterable[Path], walls: Contained
) -> list[str]:
    """After a command: the exec lines it added to a todo, taken out; what was done, in words."""
    said = []
    for path in dict.fromkeys(paths):
        lines = _lines(path)
        if lines is None:
            continue
        known = before.get(path, frozenset())
        added = [line for line in lines if EXEC.match(line) and line.strip() not in known]
        if not added:
            continue
        kept = "".join(line for line in lines if line not in added)
        try:
            walls.write(path, kept.encode("utf-8", "surrogateescape"), 0o644)
            done = "taken out"
        except OSError as exc:
            done = f"could not be taken out ({exc.strerror or exc})"
        shown = "; ".join(line.strip() for line in added[:3])
        said.append(
            f"added {len(added)} exec line(s) to {path} ({shown}), which git runs at your "
            f"`git rebase --continue`: {done}"
        )
    return said
