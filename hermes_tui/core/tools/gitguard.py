"""Undo what a terminal command left in the project's git directory that would run later.

The sandbox keeps `.git/hooks` read-only but leaves `.git/config` writable (everyday git
writes it: `git config user.name`, `push -u`, `remote add`). A setting there such as
`core.fsmonitor`, `core.pager`, `core.hooksPath` or a `!` alias would run a program the next
time the user runs git, outside the sandbox. So the terminal tool takes a snapshot of the
config and the hooks before each command and, after it, puts back any change that adds or
alters such a setting, or any hook (the rename-.git-away trick gets around a bind mount),
and says so in the result. Inside the sandbox nothing of the command outlives it (its pid
namespace dies with it), so the check after it cannot be raced.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools.shell_policy.commands import git_config_risk

MAX_HOOK_BYTES = 1_000_000  # beyond this the hooks are left alone (and said so) - never seen


@dataclass(frozen=True)
class GitSnapshot:
    git_dir: Path
    config: bytes | None
    hooks: dict[str, tuple[int, bytes]] | None  # name: (mode, content); None: too large


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
    git_dir = _git_dir(workdir)
    if git_dir is None:
        return _link(workdir)
    try:
        config = (git_dir / "config").read_bytes()
    except OSError:
        config = None
    return GitSnapshot(git_dir, config, _hooks(git_dir))


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
        if _link(workdir) == before:
            return []
        path = workdir / ".git"
        if os.path.lexists(path) and not path.is_dir():
            path.unlink()
        if not os.path.lexists(path):
            if before.is_link:
                os.symlink(os.fsdecode(before.target), path)
            else:
                _write(path, before.target)
            return ["changed the workspace's .git link; put back the one it had"]
        return ["replaced the workspace's .git link with a folder; check it before running git"]
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
        created = _git_dir(workdir)
        if created is None:
            return []
        # A repository the command made itself (`git init`, `git clone .`): git's own
        # templates (`*.sample` hooks, a config without programs) are what it may keep.
        hooks = _hooks(created) or {}
        before = GitSnapshot(
            created, None, {name: v for name, v in hooks.items() if name.endswith(".sample")}
        )
        config_path = created / "config"
        if config_path.is_file():
            risky = risky_settings(config_path.read_text(encoding="utf-8", errors="replace"))
            if risky:
                aside = config_path.with_name("config.refused")
                os.replace(config_path, aside)
                keys = ", ".join(sorted({key for key, _ in risky}))
                undone = [f"made a repository whose .git/config sets {keys}; moved to {aside}"]
                return undone + _restore_hooks(before, created)
        return _restore_hooks(before, created)
    undone: list[str] = []
    git_dir = _git_dir(workdir)
    if git_dir is None:
        return ["removed or replaced .git; check it before running git"]
    config_path = git_dir / "config"
    try:
        after = config_path.read_bytes()
    except OSError:
        after = None
    if after != before.config and after is not None:
        old = risky_settings((before.config or b"").decode("utf-8", "replace"))
        new = risky_settings(after.decode("utf-8", "replace")) - old
        if new:
            if before.config is None:
                config_path.unlink()
            else:
                _write(config_path, before.config)
            keys = ", ".join(sorted({key for key, _ in new}))
            undone.append(f"set {keys} in .git/config (git would run it later); put back")
    return undone + _restore_hooks(before, git_dir)


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
