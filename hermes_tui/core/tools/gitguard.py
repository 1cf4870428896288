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
takes it for one) keeps no setting that runs a program either. What a config sets is asked of git
itself (gitconfig.py: a BOM, two headers on a line, CR-only lines read as git reads them; an
include counts as a program), and a file a config included before the command is held like a
config of its own. Inside the sandbox nothing of the command outlives it
(its pid namespace dies with it), so the check after it cannot be raced.

The guard runs outside the sandbox on paths the command shaped, so it changes nothing outside
the workspace and the git directories its repositories used before the command (contained.py:
no link followed, each folder's real path checked through an open descriptor). A `hooks`,
`config` or `.git` that is a link is itself what is removed or moved aside, never its target,
and a `.git` file or `commondir` the command made that leads outside is moved aside or put
back, never followed to change what is there.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools import gitconfig, gitdirs, rebase_todo
from hermes_tui.core.tools.contained import Contained, Outside, read_regular, within

MAX_HOOK_BYTES = 1_000_000  # beyond this the hooks are left alone (and said so) - never seen


@dataclass(frozen=True)
class GitSnapshot:
    git_dir: Path  # the common directory: config, hooks
    config: bytes | None
    hooks: dict[str, tuple[int, bytes]] | None  # name: (mode, content); None: too large
    # A linked worktree's own config.worktree (path, content): git reads it too.
    extra: tuple[tuple[Path, bytes | None], ...] = ()
    hooks_link: str | None = None  # where `hooks` led when it was a link (the user's own)
    # The folder an existing core.hooksPath names (`.husky`): (folder, its hooks, its link).
    hooks_elsewhere: tuple[tuple[Path, dict[str, tuple[int, bytes]] | None, str | None], ...] = ()


def _git_dir(workdir: Path) -> Path | None:
    candidate = workdir / ".git"
    return candidate if candidate.is_dir() and not candidate.is_symlink() else None


NOT_A_FILE = (0, b"")


def _link_text(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _hooks(
    git_dir: Path, through_link: bool = True, folder: Path | None = None
) -> dict[str, tuple[int, bytes]] | None:
    """The regular files in `git_dir/hooks` (or `folder`; read through a link there unless not
    `through_link`; reading decides nothing outside)."""
    folder = folder or git_dir / "hooks"
    if not through_link and folder.is_symlink():
        return {}
    found: dict[str, tuple[int, bytes]] = {}
    total = 0
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return {}
    for entry in entries:
        if entry.is_file() and not entry.is_symlink():
            data = read_regular(entry, MAX_HOOK_BYTES)
            if data is None:
                return None  # too large, or not readable: the hooks are left alone
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


_read = read_regular


def _included(configs: list[Path]) -> list[Path]:
    """The files these configs include (whether they exist yet or not): git reads them as
    config, so they are held like one. git is asked only where a config names an include."""
    found: list[Path] = []
    for config in configs:
        if b"include" in (_read(config) or b"").lower():
            found += gitconfig.included_files(config)
    return [path for path in dict.fromkeys(found) if path not in configs]


def _repo_snapshot(dirs: gitdirs.GitDirs) -> GitSnapshot:
    configs = dirs.configs()
    extra = tuple((path, _read(path)) for path in [*configs[1:], *_included(configs)])
    common = dirs.common_dir
    hooks = common / "hooks"
    link = _link_text(hooks) if hooks.is_symlink() else None
    held = tuple(
        (folder, _hooks(common, folder=folder), _link_text(folder))
        for folder in dirs.hooks_paths()
        if folder != hooks
    )
    config = _read(common / "config")
    return GitSnapshot(common, config, _hooks(common), extra, link, held)


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
    # Real paths of the folders the guard may change: the workspace and these git directories.
    roots: tuple[str, ...] = ()
    # The exec lines of each interactive rebase's todo (rebase_todo.py).
    rebase_execs: dict[Path, frozenset[str]] = dataclasses.field(default_factory=dict)

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
    hooks = folder / "hooks"
    link = _link_text(hooks) if hooks.is_symlink() else None
    return GitSnapshot(folder, _read(folder / "config"), _hooks(folder), (), link)


def snapshot_workspace(workdir: Path) -> WorkspaceSnapshot:
    """The workspace's repository and every one nested in it (gitdirs.scan), the `commondir`
    and `gitdir` files of their git directories, and the folders git takes for one."""
    trees, bare = gitdirs.scan(workdir)
    nested = {tree: snapshot(tree) for tree in trees}
    roots = _pointer_roots(workdir, trees)
    top = snapshot(workdir)
    return WorkspaceSnapshot(
        top,
        nested,
        tuple(sorted(roots)),
        _pointers(roots),
        {folder: _bare_snapshot(folder) for folder in bare},
        _walls(workdir, [top, *nested.values()], roots).roots,
        rebase_todo.exec_lines(_todos(workdir, trees)),
    )


def _todos(workdir: Path, trees: list[Path]) -> list[Path]:
    return rebase_todo.todo_paths(d.git_dir for d in gitdirs.repositories(workdir, trees))


def _walls(
    workdir: Path, states: list[GitSnapshot | GitLink | None], extra: set[Path] | None = None
) -> Contained:
    """What the guard may change: the workspace, and the git directories its repositories
    used before the command (a linked worktree's shared one may lie outside)."""
    roots: set[Path | str] = {workdir, *(extra or set())}
    for state in states:
        repo = state.repo if isinstance(state, GitLink) else state
        if repo is not None:
            roots.add(repo.git_dir)
            roots |= {path.parent for path, _ in repo.extra}
    return Contained(roots)


def _attempt(undone: list[str], what: Path, action, *args) -> bool:  # noqa: ANN001
    """Run one change; one that would reach outside the guarded folders, or fails, is left
    undone and said so (it is never made through a link)."""
    try:
        action(*args)
        return True
    except Outside as why:
        undone.append(f"left {what} as it is: {why}; check it before running git")
    except OSError as why:
        undone.append(f"could not put back {what} ({why.strerror or why}); check it")
    return False


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


def _restore_pointers(
    before: WorkspaceSnapshot, workdir: Path, trees: list[Path], walls: Contained
) -> list[str]:
    """Put back every `commondir` / `gitdir` file the command wrote, removed or made that git
    would not have: one sends git to a config of the command's making. Only git directories
    inside the guarded folders are looked at: a `.git` file the command made that leads to
    another repository is not followed there (it is moved aside, `_restore_created`)."""
    found = {root for root in _pointer_roots(workdir, trees) if within(str(root), walls.roots)}
    after = _pointers({*before.pointer_roots, *found})
    # Where a commondir may lead: git directories there before, and `.git` folders (not what
    # a commondir written by the command names).
    folders = [tree / ".git" for tree in [workdir, *trees] if _git_dir(tree) is not None]
    roots = {*before.pointer_roots, *(Path(os.path.realpath(f)) for f in folders)}
    undone: list[str] = []
    for path in sorted({*before.pointers, *after}):
        old, new = before.pointers.get(path), after.get(path)
        if new == old or _git_made(path, new, roots):
            continue
        if old is None:
            done = _attempt(undone, path, walls.unlink, path)
        else:
            done = _attempt(undone, path, walls.write, path, old)
        if done:
            undone.append(f"changed {path} (it tells git where its config is); put back")
    return undone


def _refuse_config(config: Path, walls: Contained, what: str) -> list[str]:
    """A new repository's config (or one that is a link) moved to `config.refused` when it
    sets something that runs a program; a link is moved, never read through to change."""
    undone: list[str] = []
    if config.is_symlink():
        why = "is a link"
    elif config.is_file():
        risky = gitconfig.file_risks(config, strict=True)  # only what git itself writes
        if not risky:
            return []
        why = "sets " + ", ".join(sorted({key for key, _ in risky}))
    else:
        return []
    aside = config.with_name(config.name + ".refused")
    if _attempt(undone, config, walls.rename, config, aside.name):
        undone.append(f"made {what} whose {config.name} {why}; moved to {aside}")
    return undone


def _restore_bare(
    before: WorkspaceSnapshot, bare: list[Path], workdir: Path, walls: Contained
) -> list[str]:
    """A folder made to look like a git directory (HEAD, objects, refs): git, run there, reads
    its config. One that was one before keeps what it had; a new one keeps no setting that runs
    a program and no hook but git's samples."""
    undone: list[str] = []
    for folder in bare:
        state = before.bare.get(folder)
        if state is not None:
            done = _restore_repo(state, walls)
        else:
            done = _refuse_config(folder / "config", walls, "a git directory")
            sample = _samples(folder)
            done += _restore_hooks(GitSnapshot(folder, None, sample), folder, walls)
        where = folder.relative_to(workdir)
        undone += [f"{text} (in {where})" for text in done]
    return undone


def _samples(git_dir: Path) -> dict[str, tuple[int, bytes]]:
    """git's `*.sample` hooks in a new repository (none read through a `hooks` link)."""
    hooks = _hooks(git_dir, through_link=False) or {}
    return {name: value for name, value in hooks.items() if name.endswith(".sample")}


def restore_workspace(before: WorkspaceSnapshot, workdir: Path) -> list[str]:
    """`restore` for the workspace's repository and the nested ones; a nested repository the
    command made is held to what a fresh one has. What was undone, in words."""
    walls = Contained(before.roots, resolved=True) if before.roots else Contained([workdir])
    trees, bare = gitdirs.scan(workdir)
    undone = _restore_pointers(before, workdir, trees, walls)
    undone += restore(before.top, workdir, walls)
    known = before.common_dirs()
    for tree in sorted({*before.nested, *trees}):
        state = before.nested.get(tree)
        if not os.path.lexists(tree / ".git"):
            continue  # removed with its repository: nothing left to run
        if state is not None and isinstance(state, GitLink) == (_git_dir(tree) is None):
            done = restore(state, tree, walls)
        else:  # new here, or turned from a folder into a link or back
            done = _restore_created(tree, known, walls)
        where = tree.relative_to(workdir)
        undone += [f"{text} (in {where})" for text in done]
    undone += rebase_todo.take_out_added(before.rebase_execs, _todos(workdir, trees), walls)
    return undone + _restore_bare(before, bare, workdir, walls)


def risky_settings(text: str) -> set[tuple[str, str]]:
    """(key, value) pairs of a config's text that make git run a program, as git itself reads
    them (gitconfig.py: never parsed here; an include is one, an unreadable text one pair)."""
    return gitconfig.bytes_risks(text.encode("utf-8", "replace"))


def restore(
    before: GitSnapshot | GitLink | None, workdir: Path, walls: Contained | None = None
) -> list[str]:
    """Put back what the command changed that would run later; what was undone, in words.
    Nothing outside `walls` (by default the workspace and `before`'s git directories) is
    changed."""
    walls = walls or _walls(workdir, [before])
    if isinstance(before, GitLink):
        undone = _restore_repo(before.repo, walls) if before.repo is not None else []
        if _link(workdir) == dataclasses.replace(before, repo=None):
            return undone
        path = workdir / ".git"
        is_folder = path.is_dir() and not path.is_symlink()
        if (
            os.path.lexists(path)
            and not is_folder
            and not _attempt(undone, path, walls.unlink, path)
        ):
            return undone
        if not os.path.lexists(path):
            target = before.target
            if before.is_link:
                done = _attempt(undone, path, walls.symlink, os.fsdecode(target), path)
            else:
                done = _attempt(undone, path, walls.write, path, target)
            if done:
                undone.append("changed the workspace's .git link; put back the one it had")
            return undone
        return [
            *undone,
            "replaced the workspace's .git link with a folder; check it before running git",
        ]
    if before is None:
        impostor = workdir / ".git"
        if os.path.lexists(impostor) and _git_dir(workdir) is None:
            # A `.git` file or link sends git to a folder of the command's choosing, with
            # whatever config it wrote there: the user's next git command would obey it.
            return _move_git_aside(
                impostor, walls, "a .git that is not a folder (git would follow it)"
            )
        return _restore_created(workdir, set(), walls)
    if _git_dir(workdir) is None:
        return ["removed or replaced .git; check it before running git"]
    return _restore_repo(before, walls)


def _move_git_aside(dot: Path, walls: Contained, what: str) -> list[str]:
    undone: list[str] = []
    aside = walls.free_name(dot.with_name(".git.refused"))
    if _attempt(undone, dot, walls.rename, dot, aside.name):
        undone.append(f"made {what}; moved to {aside}")
    return undone


def _leads_outside(tree: Path, walls: Contained) -> str | None:
    """Where a `.git` link or file the command made leads, when that is outside the guarded
    folders (another of the user's repositories): git would change it; the guard will not."""
    dot = tree / ".git"
    if dot.is_symlink():
        real = os.path.realpath(dot)
        return None if within(real, walls.roots) else real
    dirs = gitdirs.resolve(tree)
    if dirs is None or not dirs.linked:
        return None
    for folder in (dirs.git_dir, dirs.common_dir):
        real = os.path.realpath(folder)
        if not within(real, walls.roots):
            return real
    return None


def _restore_created(
    tree: Path,
    known: set[str] = set(),  # noqa: B006 - read only
    walls: Contained | None = None,
) -> list[str]:
    """A repository the command made itself (`git init`, `git clone`, `git submodule add`):
    git's own templates (`*.sample` hooks, configs without programs) are what it may keep. A
    worktree it added to a repository `known` from before keeps that one's config and hooks
    (guarded as that repository's); only its own config.worktree is held. A `.git` file or
    link that leads outside the guarded folders is moved aside, never followed."""
    walls = walls or Contained([tree])
    outside = _leads_outside(tree, walls)
    if outside is not None:
        what = f"a .git that leads outside the workspace (to {outside})"
        return _move_git_aside(tree / ".git", walls, what)
    dirs = gitdirs.resolve(tree)
    if dirs is None:
        return []
    shared = os.path.realpath(dirs.common_dir) in known
    undone: list[str] = []
    for config_path in dirs.configs()[1:] if shared else dirs.configs():
        undone += _refuse_config(config_path, walls, "a repository")
    if shared:
        return undone
    hooks = _restore_hooks(
        GitSnapshot(dirs.common_dir, None, _samples(dirs.common_dir)), dirs.common_dir, walls
    )
    return undone + hooks


def _restore_repo(before: GitSnapshot, walls: Contained) -> list[str]:
    """Put back a repository's configs that gained a setting that runs a program, and its
    hooks."""
    if not before.git_dir.is_dir():
        return []  # the repository went (a worktree's, removed with it): nothing runs from it
    undone: list[str] = []
    for config_path, old_bytes in ((before.git_dir / "config", before.config), *before.extra):
        after = _read(config_path)
        if after == old_bytes or after is None:
            continue
        # Each file as git reads it, its includes listed (a new one is a risky key), not
        # followed: what they name is held as a config of its own (`_included`).
        new = gitconfig.bytes_risks(after, True) - gitconfig.bytes_risks(old_bytes, True)
        if new:
            if old_bytes is None:
                done = _attempt(undone, config_path, walls.unlink, config_path)
            else:
                done = _attempt(undone, config_path, walls.write, config_path, old_bytes)
            keys = ", ".join(sorted({key for key, _ in new}))
            own = config_path.name in ("config", "config.worktree")
            name = f".git/{config_path.name}" if own else str(config_path)
            if done:
                undone.append(f"set {keys} in {name} (git would run it later); put back")
    undone += _restore_hooks(before, before.git_dir, walls)
    for folder, hooks, link in before.hooks_elsewhere:  # core.hooksPath's folder
        held = GitSnapshot(before.git_dir, None, hooks, hooks_link=link)
        undone += _restore_hooks(held, before.git_dir, walls, folder)
    return undone


def _restore_hooks(
    before: GitSnapshot, git_dir: Path, walls: Contained, elsewhere: Path | None = None
) -> list[str]:
    """Put back the hooks folder (`elsewhere`: the one core.hooksPath names) as `before` had
    it. A `hooks` that became a link (or another link) is removed itself, its target
    untouched, and the folder made again."""
    undone: list[str] = []
    folder = elsewhere or git_dir / "hooks"
    shown = ".git/hooks" if elsewhere is None else str(elsewhere)
    link = _link_text(folder) if folder.is_symlink() else None
    if link is not None and link != before.hooks_link:
        if not _attempt(undone, folder, walls.unlink, folder):
            return undone
        undone.append(f"made {shown} a link to {link}; removed the link (not what it leads to)")
        if before.hooks_link is not None:
            if _attempt(undone, folder, walls.symlink, before.hooks_link, folder):
                undone.append(f"changed {shown} (git would run them later); put back")
            return undone
        hooks_after: dict[str, tuple[int, bytes]] | None = {}
        changed = True
    else:
        hooks_after = _hooks(git_dir, folder=folder)
        changed = hooks_after != before.hooks
    if before.hooks is None or not changed:
        return undone
    if not folder.is_dir() and not _attempt(undone, folder, walls.mkdir, folder):
        return undone
    for name in set(hooks_after or {}) - set(before.hooks):
        target = folder / name
        if target.is_file() or target.is_symlink():
            _attempt(undone, target, walls.unlink, target)
    for name, (mode, data) in before.hooks.items():
        if (hooks_after or {}).get(name) != (mode, data) and (mode, data) != NOT_A_FILE:
            _attempt(undone, folder / name, walls.write, folder / name, data, mode)
    undone.append(f"changed {shown} (git would run them later); put back")
    return undone
