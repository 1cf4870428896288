"""Undo what a terminal command left in the workspace's git directories that would run later.

A setting in a repository's config such as `core.fsmonitor`, `core.pager`, `core.hooksPath` or
a `!` alias, or a hook, would run a program the next time the user runs git there, outside the
sandbox. The sandbox keeps them read-only; without it (or through a trick that gets around a
bind mount) nothing does. So the terminal tool takes a snapshot of the configs and hooks before
each command and, after it, puts back any change that adds or alters such a setting, or any
hook, and says so in the result. This covers the workspace's repository, also when it is a
linked worktree or a submodule (its `.git` file followed to the folders git uses, gitdirs.py),
and every repository nested inside the workspace; one the command created keeps no such
setting and no hook but git's samples. A `commondir` or `gitdir` file in their git directories
that git would not have written is put back (it would send git to a config of the command's
making), and a folder made to look like a git directory (HEAD, objects, refs: git's discovery
takes it for one) keeps no setting that runs a program either. Inside the sandbox nothing of the command outlives it
(its pid namespace dies with it), so the check after it cannot be raced.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools import gitdirs
from hermes_tui.core.tools.shell_policy.commands import git_config_risk

MAX_HOOK_BYTES = 1_000_000  # beyond this the hooks are left alone (and said so) - never seen


@dataclass(frozen=True)
class GitSnapshot:
    git_dir: Path  # the common directory: config, hooks
    config: bytes | None
    hooks: dict[str, tuple[int, bytes]] | None  # name: (mode, content); None: too large
    # A linked worktree's own config.worktree (path, content): git reads it too.
    extra: tuple[tuple[Path, bytes | None], ...] = ()


def _git_dir(workdir: Path) -> Path | None:
    candidate = workdir / ".git"
    return candidate if candidate.is_dir() and not candidate.is_symlink() else None


NOT_A_FILE = (0, b"")


def _hooks(git_dir: Path) -> dict[str, tuple[int, bytes]] | None:
    folder = git_dir / "hooks"
    found: dict[str, tuple[int, bytes]] = {}
    total = 0
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return {}
    for entry in entries:
        if entry.is_file() and not entry.is_symlink():
            data = entry.read_bytes()
            total += len(data)
            if total > MAX_HOOK_BYTES:
                return None
            found[entry.name] = (entry.stat().st_mode & 0o7777, data)
        else:
            found[entry.name] = NOT_A_FILE
    return found


@dataclass(frozen=True)
class GitLink:
    """A `.git` file or link the workspace had before the command: the user's own worktree or
    submodule (`gitdir: …`), never to be moved aside as an impostor."""

    target: bytes
    is_link: bool
    repo: GitSnapshot | None = None  # the folders it leads to, when git accepts it


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _repo_snapshot(dirs: gitdirs.GitDirs) -> GitSnapshot:
    extra = tuple((path, _read(path)) for path in dirs.configs()[1:])
    return GitSnapshot(
        dirs.common_dir, _read(dirs.common_dir / "config"), _hooks(dirs.common_dir), extra
    )


def _link(workdir: Path) -> GitLink | None:
    path = workdir / ".git"
    try:
        if path.is_symlink():
            return GitLink(os.fsencode(os.readlink(path)), True)
        if path.is_file():
            return GitLink(path.read_bytes()[:65536], False)
    except OSError:
        return None
    return None


def snapshot(workdir: Path) -> GitSnapshot | GitLink | None:
    """The git state of one working tree: its `.git` folder's config and hooks, or its `.git`
    file or link and what git reaches through it."""
    git_dir = _git_dir(workdir)
    if git_dir is None:
        link = _link(workdir)
        dirs = gitdirs.resolve(workdir) if link is not None else None
        return dataclasses.replace(link, repo=_repo_snapshot(dirs)) if link and dirs else link
    return _repo_snapshot(gitdirs.resolve(workdir) or gitdirs.GitDirs(workdir, git_dir, git_dir))


@dataclass(frozen=True)
class WorkspaceSnapshot:
    top: GitSnapshot | GitLink | None
    nested: dict[Path, GitSnapshot | GitLink | None]  # each nested working tree's
    # The git directories whose `commondir` / `gitdir` files are held, and those files.
    pointer_roots: tuple[Path, ...] = ()
    pointers: dict[Path, bytes] = dataclasses.field(default_factory=dict)
    # Folders that git takes for a git directory (HEAD, objects, refs) outside any `.git`.
    bare: dict[Path, GitSnapshot] = dataclasses.field(default_factory=dict)

    def common_dirs(self) -> set[str]:
        """The real paths of the git folders holding these repositories' configs and hooks:
        a tree the command adds that shares one (`git worktree add`) leaves it to them."""
        found = set()
        for state in (self.top, *self.nested.values()):
            repo = state.repo if isinstance(state, GitLink) else state
            if repo is not None:
                found.add(os.path.realpath(repo.git_dir))
        return found


def _pointer_roots(workdir: Path, nested: list[Path]) -> set[Path]:
    roots = set()
    for dirs in gitdirs.repositories(workdir, nested):
        roots |= {Path(os.path.realpath(dirs.git_dir)), Path(os.path.realpath(dirs.common_dir))}
    for tree in [workdir, *nested]:
        if _git_dir(tree) is not None:
            roots.add(Path(os.path.realpath(tree / ".git")))
    return roots


def _pointers(roots: set[Path] | tuple[Path, ...]) -> dict[Path, bytes]:
    found: dict[Path, bytes] = {}
    for root in roots:
        for path in gitdirs.pointer_files(root):
            data = _read(path)
            if data is not None:
                found[path] = data
    return found


def _bare_snapshot(folder: Path) -> GitSnapshot:
    return GitSnapshot(folder, _read(folder / "config"), _hooks(folder))


def snapshot_workspace(workdir: Path) -> WorkspaceSnapshot:
    """The workspace's repository and every one nested in it (gitdirs.scan), the `commondir`
    and `gitdir` files of their git directories, and the folders git takes for one."""
    trees, bare = gitdirs.scan(workdir)
    nested = {tree: snapshot(tree) for tree in trees}
    roots = _pointer_roots(workdir, trees)
    return WorkspaceSnapshot(
        snapshot(workdir),
        nested,
        tuple(sorted(roots)),
        _pointers(roots),
        {folder: _bare_snapshot(folder) for folder in bare},
    )


def _git_made(path: Path, data: bytes | None, roots: set[Path]) -> bool:
    """Whether a `commondir` / `gitdir` file reads as git writes one (`git worktree add`,
    `move`, `remove`): a commondir naming one of the workspace's git directories, a gitdir
    naming a `.git` file; gone with its whole folder."""
    if data is None:
        return not path.parent.is_dir()
    text = data.decode("utf-8", "replace").strip()
    if path.name == "gitdir":
        return Path(text).name == ".git"
    return Path(os.path.realpath(path.parent / text)) in roots


def _restore_pointers(before: WorkspaceSnapshot, workdir: Path, trees: list[Path]) -> list[str]:
    """Put back every `commondir` / `gitdir` file the command wrote, removed or made that git
    would not have: one sends git to a config of the command's making."""
    after = _pointers({*before.pointer_roots, *_pointer_roots(workdir, trees)})
    # Where a commondir may lead: git directories there before, and `.git` folders (not what
    # a commondir written by the command names).
    folders = [tree / ".git" for tree in [workdir, *trees] if _git_dir(tree) is not None]
    roots = {*before.pointer_roots, *(Path(os.path.realpath(f)) for f in folders)}
    undone = []
    for path in sorted({*before.pointers, *after}):
        old, new = before.pointers.get(path), after.get(path)
        if new == old or _git_made(path, new, roots):
            continue
        if old is None:
            path.unlink(missing_ok=True)
        else:
            _write(path, old)
        undone.append(f"changed {path} (it tells git where its config is); put back")
    return undone


def _restore_bare(before: WorkspaceSnapshot, bare: list[Path], workdir: Path) -> list[str]:
    """A folder made to look like a git directory (HEAD, objects, refs): git, run there, reads
    its config. One that was one before keeps what it had; a new one keeps no setting that runs
    a program and no hook but git's samples."""
    undone: list[str] = []
    for folder in bare:
        state = before.bare.get(folder)
        if state is not None:
            done = _restore_repo(state)
        else:
            done = []
            config = folder / "config"
            if config.is_file() and not config.is_symlink():
                text = config.read_text(encoding="utf-8", errors="replace")
                risky = risky_settings(text)
                if risky:
                    aside = config.with_name("config.refused")
                    os.replace(config, aside)
                    keys = ", ".join(sorted({key for key, _ in risky}))
                    done.append(f"made a git directory whose config sets {keys}; moved to {aside}")
            elif os.path.lexists(config):
                aside = config.with_name("config.refused")
                os.replace(config, aside)
                done.append(f"made a git directory whose config is a link; moved to {aside}")
            hooks = _hooks(folder) or {}
            sample = {name: v for name, v in hooks.items() if name.endswith(".sample")}
            done += _restore_hooks(GitSnapshot(folder, None, sample), folder)
        where = folder.relative_to(workdir)
        undone += [f"{text} (in {where})" for text in done]
    return undone


def restore_workspace(before: WorkspaceSnapshot, workdir: Path) -> list[str]:
    """`restore` for the workspace's repository and the nested ones; a nested repository the
    command made is held to what a fresh one has. What was undone, in words."""
    trees, bare = gitdirs.scan(workdir)
    undone = _restore_pointers(before, workdir, trees)
    undone += restore(before.top, workdir)
    known = before.common_dirs()
    for tree in sorted({*before.nested, *trees}):
        state = before.nested.get(tree)
        if not os.path.lexists(tree / ".git"):
            continue  # removed with its repository: nothing left to run
        if state is not None and isinstance(state, GitLink) == (_git_dir(tree) is None):
            done = restore(state, tree)
        else:  # new here, or turned from a folder into a link or back
            done = _restore_created(tree, known)
        where = tree.relative_to(workdir)
        undone += [f"{text} (in {where})" for text in done]
    return undone + _restore_bare(before, bare, workdir)


def risky_settings(text: str) -> set[tuple[str, str]]:
    """(key, value) pairs of a git config file that make git run a program."""
    found: set[tuple[str, str]] = set()
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        header = re.match(r'\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)', line)
        if header:
            name, sub, line = header.group(1), header.group(2), header.group(3).strip()
            section = name.lower() + (f".{sub}" if sub is not None else "")
            if "." in name:  # [section.sub] old-style
                section = name.lower()
        if not line or line.startswith(("#", ";")):
            continue
        key, _eq, value = line.partition("=")
        full = f"{section}.{key.strip()}"
        value = value.strip()
        if git_config_risk(full, value) or (
            full.lower().startswith("alias.") and value.lstrip('"').startswith("!")
        ):
            found.add((full.lower(), value))
    return found


def _write(path: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temp, path)


def restore(before: GitSnapshot | GitLink | None, workdir: Path) -> list[str]:
    """Put back what the command changed that would run later; what was undone, in words."""
    if isinstance(before, GitLink):
        undone = _restore_repo(before.repo) if before.repo is not None else []
        if _link(workdir) == dataclasses.replace(before, repo=None):
            return undone
        path = workdir / ".git"
        if os.path.lexists(path) and not path.is_dir():
            path.unlink()
        if not os.path.lexists(path):
            if before.is_link:
                os.symlink(os.fsdecode(before.target), path)
            else:
                _write(path, before.target)
            return [*undone, "changed the workspace's .git link; put back the one it had"]
        return [
            *undone,
            "replaced the workspace's .git link with a folder; check it before running git",
        ]
    if before is None:
        impostor = workdir / ".git"
        if os.path.lexists(impostor) and _git_dir(workdir) is None:
            # A `.git` file or link sends git to a folder of the command's choosing, with
            # whatever config it wrote there: the user's next git command would obey it.
            aside = workdir / ".git.refused"
            serial = 1
            while os.path.lexists(aside):
                serial += 1
                aside = workdir / f".git.refused.{serial}"
            os.replace(impostor, aside)
            return [f"made a .git that is not a folder (git would follow it); moved to {aside}"]
        return _restore_created(workdir)
    if _git_dir(workdir) is None:
        return ["removed or replaced .git; check it before running git"]
    return _restore_repo(before)


def _restore_created(tree: Path, known: set[str] = set()) -> list[str]:  # noqa: B006 - read only
    """A repository the command made itself (`git init`, `git clone`, `git submodule add`):
    git's own templates (`*.sample` hooks, configs without programs) are what it may keep. A
    worktree it added to a repository `known` from before keeps that one's config and hooks
    (guarded as that repository's); only its own config.worktree is held."""
    dirs = gitdirs.resolve(tree)
    if dirs is None:
        return []
    shared = os.path.realpath(dirs.common_dir) in known
    undone: list[str] = []
    for config_path in dirs.configs()[1:] if shared else dirs.configs():
        if not config_path.is_file():
            continue
        risky = risky_settings(config_path.read_text(encoding="utf-8", errors="replace"))
        if risky:
            aside = config_path.with_name(config_path.name + ".refused")
            os.replace(config_path, aside)
            keys = ", ".join(sorted({key for key, _ in risky}))
            undone.append(
                f"made a repository whose .git/{config_path.name} sets {keys}; moved to {aside}"
            )
    if shared:
        return undone
    hooks = _hooks(dirs.common_dir) or {}
    sample = {name: v for name, v in hooks.items() if name.endswith(".sample")}
    return undone + _restore_hooks(GitSnapshot(dirs.common_dir, None, sample), dirs.common_dir)


def _restore_repo(before: GitSnapshot) -> list[str]:
    """Put back a repository's configs that gained a setting that runs a program, and its
    hooks."""
    if not before.git_dir.is_dir():
        return []  # the repository went (a worktree's, removed with it): nothing runs from it
    undone: list[str] = []
    for config_path, old_bytes in ((before.git_dir / "config", before.config), *before.extra):
        try:
            after = config_path.read_bytes()
        except OSError:
            after = None
        if after == old_bytes or after is None:
            continue
        old = risky_settings((old_bytes or b"").decode("utf-8", "replace"))
        new = risky_settings(after.decode("utf-8", "replace")) - old
        if new:
            if old_bytes is None:
                config_path.unlink()
            else:
                _write(config_path, old_bytes)
            keys = ", ".join(sorted({key for key, _ in new}))
            name = f".git/{config_path.name}"
            undone.append(f"set {keys} in {name} (git would run it later); put back")
    return undone + _restore_hooks(before, before.git_dir)


def _restore_hooks(before: GitSnapshot, git_dir: Path) -> list[str]:
    undone: list[str] = []
    hooks_after = _hooks(git_dir)
    if before.hooks is not None and hooks_after != before.hooks:
        folder = git_dir / "hooks"
        folder.mkdir(exist_ok=True)
        for name in set(hooks_after or {}) - set(before.hooks):
            target = folder / name
            if target.is_file() or target.is_symlink():
                target.unlink()
        for name, (mode, data) in before.hooks.items():
            if (hooks_after or {}).get(name) != (mode, data) and (mode, data) != NOT_A_FILE:
                _write(folder / name, data)
                os.chmod(folder / name, mode)
        undone.append("changed .git/hooks (git would run them later); put back")
    return undone
