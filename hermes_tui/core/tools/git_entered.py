"""Which repositories a git command started in a folder enters, and whether any of their
configs names a program: what strict mode's proof that a git command only reads must know.

git run in a folder uses the repository it finds there, walking up from where it really is (a
`.git`, or a folder that is a git directory itself); `git -C vendor/lib` starts in a nested
repository, whose config arrived with the project just like the top one. `git status`, `git
diff` and `git grep --recurse-submodules` go on into each populated submodule, which runs that
submodule's own config (its `core.fsmonitor`, its filters): submodules are the index's gitlinks
(mode 160000), their git directories live in `.git/modules/**`, and a clone nested anywhere in
the tree is judged too (a gitlink of an older commit leads `git log -p` there). A config that
includes another file, a repository that cannot be read (an index this cannot parse, a `.git`
leading nowhere) or more than MAX_REPOSITORIES count as risky: the command asks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hermes_tui.core.tools import gitdirs, gitguard
from hermes_tui.core.tools.contained import read_regular
from hermes_tui.core.tools.folder_rights import scandir_again
from hermes_tui.core.tools.shell_policy.readonly import ReadOnly, prove_read_only

MAX_REPOSITORIES = 64  # repositories judged for one command, at most; past it: risky
GITLINK = 0o160000


def prove_in_workspace(
    command: str, cwd: Path, workdir: Path, unreadable: Iterable[Path]
) -> ReadOnly:
    """strict and plan modes' proof that `command` only reads: links resolved, the sandbox's
    unreadable places outside, and every repository a git command enters judged here."""
    return prove_read_only(
        command,
        str(cwd),
        str(workdir),
        realpath=os.path.realpath,
        excluded=[str(path) for path in unreadable],
        git_config_risk=lambda start: entered_risk(Path(start), workdir),
    )


def entered_risk(start: Path, workdir: Path) -> str | None:
    """Why git started in `start` would run a program a config of a repository it enters
    names (the one it finds from `start` inside `workdir`, nested submodules included), or
    None. Above `workdir` git finds the user's own repository, which is not judged here."""
    # git walks up from the folder it is really in (`-C` through a link lands at its target).
    top = _repository_of(Path(os.path.realpath(start)), Path(os.path.realpath(workdir)))
    if top is None:
        return None
    if not os.path.lexists(top / ".git"):  # a git directory itself (git's discovery takes it)
        return _configs_risk([top / "config", *_held_configs(top)], workdir)
    # Submodules are found in the index below; a clone nested anywhere in the tree is judged
    # too (a gitlink in an older commit leads `git log -p --submodule=diff` into it).
    pending, judged = [top, *gitdirs.nested_trees(top)], set()
    while pending:
        tree = pending.pop()
        if tree in judged:
            continue
        judged.add(tree)
        if len(judged) > MAX_REPOSITORIES:
            return f"{_name(top, workdir)} holds more repositories than strict mode can check"
        if why := _tree_risk(tree, workdir):
            return why
        dirs = gitdirs.resolve(tree)
        if dirs is None:  # (_tree_risk said so)
            continue
        links = gitlinks(dirs.git_dir / "index")
        if links is None:
            return f"the index of {_name(tree, workdir)} cannot be read to find its submodules"
        pending += [tree / link for link in links if os.path.lexists(tree / link / ".git")]
    return None


def _name(path: Path, workdir: Path) -> str:
    return "the workspace" if path == workdir else os.path.relpath(path, workdir)


def _repository_of(start: Path, workdir: Path) -> Path | None:
    """The folder (between `start` and `workdir`) whose repository git uses from `start`."""
    folder = start
    while folder == workdir or workdir in folder.parents:
        if os.path.lexists(folder / ".git"):
            return folder
        try:
            with scandir_again(str(folder)) as entries:  # one left unlistable too
                names = {entry.name for entry in entries}
        except OSError:
            names = set()
        if names >= gitdirs.GIT_DIR_MARKS:
            return folder
        folder = folder.parent
    return None


def _tree_risk(tree: Path, workdir: Path) -> str | None:
    """The risk of the repository whose working tree is `tree`: its configs, and those of the
    git directories it keeps for its submodules (`modules/**`) and worktrees."""
    dirs = gitdirs.resolve(tree)  # a worktree's or submodule's `.git` file is followed
    if dirs is None:
        return f"{_name(tree, workdir)}'s .git leads to no repository git accepts"
    return _configs_risk([*dirs.configs(), *_held_configs(dirs.common_dir)], workdir)


def _held_configs(git_dir: Path) -> list[Path]:
    """The configs of the git directories `git_dir` keeps for submodules and worktrees."""
    names = {"config", "config.worktree"}
    return [path for sub in ("modules", "worktrees") for path in _files_named(git_dir / sub, names)]


def _configs_risk(configs: list[Path], workdir: Path) -> str | None:
    for config in configs:
        data = read_regular(config)
        if data is None:
            continue
        text = data.decode("utf-8", "replace").replace("\ufeff", "").replace("\r", "\n")
        where = os.path.relpath(config, workdir)
        if "include" in text.lower():  # git follows it to a file not judged here
            return f"{where} (a repository git enters) includes another config, not judged"
        risky = gitguard.risky_settings(text)
        if risky:
            keys = ", ".join(sorted({key for key, _ in risky}))
            return f"{where} (a repository git enters) sets {keys}, which makes git run a program"
    return None


def _files_named(base: Path, names: set[str]) -> list[Path]:
    """Files called one of `names` below `base` (no link followed), at most a bounded walk."""
    return gitdirs.files_named(base, frozenset(names), frozenset({"objects"}))


def gitlinks(index: Path) -> list[str] | None:
    """The paths of the submodules (gitlinks) recorded in a git index, [] without an index,
    None when the file is not an index this can read (versions 2-4, SHA-1 or SHA-256)."""
    if not os.path.lexists(index):
        return []
    data = read_regular(index)
    if data is None or len(data) < 12 or data[:4] != b"DIRC":
        return None
    if GITLINK.to_bytes(4, "big") not in data[12:]:
        return []  # every gitlink entry holds its mode so: none here (read at C speed)
    for hash_size in (20, 32):
        links = _entries(data, hash_size)
        if links is not None:
            return links
    return None


def _entries(data: bytes, hash_size: int) -> list[str] | None:
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    links: list[str] = []
    pos, previous = 12, b""
    try:
        for _ in range(count):
            mode = int.from_bytes(data[pos + 24 : pos + 28], "big")
            flags = int.from_bytes(data[pos + 40 + hash_size : pos + 42 + hash_size], "big")
            name_at = pos + 42 + hash_size + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, name_at = _varint(data, name_at)
                end = data.index(b"\0", name_at)
                if strip > len(previous):
                    return None
                name = previous[: len(previous) - strip] + data[name_at:end]
                pos = end + 1
            else:
                end = data.index(b"\0", name_at)
                name = data[name_at:end]
                pos += (name_at - pos + len(name) + 8) & ~7
            if (flags & 0x0FFF) not in (len(name), 0x0FFF) or pos > len(data):
                return None  # the name's length in the flags disagrees: wrong hash size
            previous = name
            if mode & 0o170000 == GITLINK:
                links.append(os.fsdecode(name))
    except (ValueError, IndexError):
        return None
    return links


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4's prefix length)."""
    byte = data[at]
    value = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at + 1
