"""Where the repositories of a workspace keep what git runs: for each working tree, the git
directory and the common directory that holds its `config`, `hooks` and `info`.

A `.git` folder is both. A `.git` file (a linked worktree, a submodule) is followed as git
follows it: `gitdir: <path>` (relative to the working tree) names the tree's own git directory,
and a `commondir` file there (relative to it) the shared one. A `.git` file that leads nowhere
git would accept (no HEAD) resolves to nothing, and callers treat it as unknown.

`repositories` lists the workspace's own repository and every one nested inside it (a vendored
clone, a submodule, a worktree): the bounded scan enters no symlink, no `.git`, and none of
the tool folders in SKIPPED (package caches and environments nobody runs git in).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools.contained import read_regular
from hermes_tui.core.tools.folder_rights import scandir_again

# Folders the scan for nested repositories does not enter: installed packages, environments and
# caches, large and never a place the user runs git.
SKIPPED = frozenset(
    {
        "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", "site-packages", ".cargo", ".gradle", ".m2",
    }
)  # fmt: skip
MAX_ENTRIES = 20_000  # entries the scan looks at, at most (a few ms for an ordinary project)
MAX_REPOSITORIES = 64  # nested repositories protected, at most (each costs bind mounts)


@dataclass(frozen=True)
class GitDirs:
    """A repository's work tree and where its git folders really are."""

    tree: Path  # the working tree (where `.git` is)
    git_dir: Path  # its own git directory (HEAD, index, config.worktree)
    common_dir: Path  # shared: config, hooks, info (the same folder for a plain repository)

    @property
    def linked(self) -> bool:
        """Whether `.git` is a file that git follows (a worktree or a submodule)."""
        return self.git_dir != self.tree / ".git"

    def configs(self) -> list[Path]:
        """The config files git reads for this tree, besides the user's and the system's."""
        # config.worktree is read with extensions.worktreeConfig (`git sparse-checkout init`
        # sets it), in the main worktree too: held as config wherever it is.
        return [self.common_dir / "config", self.git_dir / "config.worktree"]

    def folders(self) -> list[Path]:
        """The git directory and the common one (the same folder but in a linked worktree)."""
        return list(dict.fromkeys([self.git_dir, self.common_dir]))

    def hooks_paths(self) -> list[Path]:
        """The folder an existing `core.hooksPath` names (husky's `.husky`, a `githooks/`), as
        git reads the configs, relative to the working tree: git runs the hooks there (and, for
        husky's `.husky/_`, the scripts its hooks run in `.husky`). git is asked only when a
        config spells `hookspath` or an include."""
        from hermes_tui.core.tools import gitconfig

        texts = [(read_regular(config) or b"").lower() for config in self.configs()]
        if not any(b"hookspath" in text or b"include" in text for text in texts):
            return []
        value = None
        for config in self.configs():
            for setting in (gitconfig.listing(config) or []) if config.is_file() else []:
                if setting.key.lower() == "core.hookspath" and setting.value:
                    value = setting.value
        if not value:
            return []
        folder = Path(os.path.expanduser(value))
        folder = Path(os.path.normpath(folder if folder.is_absolute() else self.tree / folder))
        return [folder, folder.parent] if folder.name == "_" else [folder]

    def run_later(self) -> list[Path]:
        """What git runs from, or is told to run by, later: read-only in the sandbox."""
        found = [*self.configs(), self.common_dir / "hooks", self.common_dir / "info"]
        return found + self.hooks_paths()


def _follow(base: Path, text: str) -> Path:
    return Path(os.path.realpath(base / text.strip()))


def _text(path: Path) -> str:
    """A regular file's text (a FIFO or device planted there is never opened to block)."""
    data = read_regular(path)
    if data is None:
        raise OSError(f"not a regular file: {path}")
    return data.decode("utf-8", "replace")


def resolve(tree: Path) -> GitDirs | None:
    """The git directories of the working tree at `tree`; None when it has no `.git`, or one
    that is a symlink or a file leading to no git directory."""
    dot = tree / ".git"
    if dot.is_symlink():
        return None
    if dot.is_dir():
        common = dot  # git follows a `commondir` file in any git directory
        with contextlib.suppress(OSError):
            common = _follow(dot, _text(dot / "commondir"))
        return GitDirs(tree, dot, common)
    try:
        first = _text(dot).splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    git_dir = _follow(tree, first[0].removeprefix("gitdir:"))
    if not (git_dir / "HEAD").is_file():
        return None
    common = git_dir  # a submodule's git directory is its own common directory
    with contextlib.suppress(OSError):
        common = _follow(git_dir, _text(git_dir / "commondir"))
    if not (common / "config").is_file() and not (common / "HEAD").is_file():
        return None
    return GitDirs(tree, git_dir, common)


def nested_trees(workdir: Path) -> list[Path]:
    """Working trees inside `workdir` (not itself) that have a `.git` folder or file."""
    return scan(workdir)[0]


# What makes a folder a git directory to git's discovery (safe.bareRepository=all, its default):
# `cd` into it, or below its core.worktree, and git reads its config.
GIT_DIR_MARKS = frozenset({"HEAD", "objects", "refs"})


def scan(workdir: Path) -> tuple[list[Path], list[Path]]:
    """(working trees inside `workdir`, not itself, with a `.git` folder or file; folders in
    it, itself included, that git takes for a git directory: HEAD, objects and refs)."""
    found: list[str] = []
    bare: list[str] = []
    top = str(workdir)
    pending = [top]
    seen = 0
    while pending and seen < MAX_ENTRIES and len(found) < MAX_REPOSITORIES:
        folder = pending.pop()
        try:
            entries = scandir_again(folder)
        except OSError:
            continue
        names: set[str] = set()
        with entries:
            for entry in entries:
                seen += 1
                name = entry.name
                names.add(name)
                if name == ".git":
                    if folder != top:
                        found.append(folder)
                elif name not in SKIPPED and entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
        if names >= GIT_DIR_MARKS and len(bare) < MAX_REPOSITORIES:
            bare.append(folder)
    return [Path(tree) for tree in sorted(found)], [Path(b) for b in sorted(bare)]


POINTERS = ("commondir", "gitdir")  # files in a git directory that send git elsewhere
_NOT_POINTING = frozenset({"objects", "refs", "logs", "lfs", "hooks", "info"})


def pointer_files(git_dir: Path) -> list[Path]:
    """The `commondir` and `gitdir` files in `git_dir` and in the git directories it holds
    (`worktrees/*`, `modules/**`): a planted `commondir` sends git to another config."""
    return sorted(files_named(git_dir, frozenset(POINTERS), _NOT_POINTING))


def files_named(base: Path, names: frozenset[str], skipped: frozenset[str]) -> list[Path]:
    """Files called one of `names` below `base`, not entering a folder named in `skipped` nor
    following a link; a bounded walk (MAX_ENTRIES)."""
    found: list[Path] = []
    pending, seen = [str(base)], 0
    while pending and seen < MAX_ENTRIES:
        folder = pending.pop()
        try:
            entries = scandir_again(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                if entry.name in names:
                    found.append(Path(entry.path))
                elif entry.name not in skipped and entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
    return found


def repositories(workdir: Path, nested: list[Path] | None = None) -> list[GitDirs]:
    """The workspace's repository (when it has one git accepts) and those nested inside it
    (`nested`: the trees `nested_trees` found, when the caller has them already)."""
    trees = nested_trees(workdir) if nested is None else nested
    found = [resolve(workdir), *(resolve(tree) for tree in trees)]
    return [dirs for dirs in found if dirs is not None]
