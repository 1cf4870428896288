"""What a tool that writes outside the sandbox must not leave in the working directory.

An MCP server is a process of the user's, outside the sandbox, that the model drives with
paths: a filesystem server's write_file on `.git/config` (core.fsmonitor), `.envrc`, a hook, or
package.json's lint-staged key ran at the user's next git command or cd (attack7's A7-16), past
every wall the terminal has. So each MCP call is watched as a sandboxed command is: git's
configs and hooks (gitguard), the run-later paths (sweep) and package.json's hook keys
(package_hooks) are taken before it and, after it, what it changed there is put back or moved
aside into `.hermes-moved-aside/`, and the call's result says so. (Instruction files are the
agent loop's write gate's, as for commands.) A server rooted above the working directory can
also reach hermes-tui's own home, whose SOUL.md, memories, skills and commands every later
session loads (attack8's A8-2): a path there that the call's arguments name, a file or a whole
folder (attack9's A9-13: `move_file` of a folder into `skills/`), is taken before it and put
back after it when the call changed it (home_snapshot.py; only those named: a background
review may be writing the memory files meanwhile).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.home_snapshot import Taken, put_back, same, take

# What hermes-tui loads from its home into every session, or runs (commands/ are slash commands).
HOME_LOADED = ("SOUL.md", "memories", "skills", "commands", "config.yaml", ".env")


@dataclass
class OutsideWrites:
    """The working directory's run-later state before a call (`take`); `undo` after it."""

    workdir: Path
    git: Any  # gitguard.WorkspaceSnapshot
    swept: list[Path]
    identities: dict[Path, Any]
    package: Any  # package_hooks.Snapshot
    home: Path | None = None
    named: dict[Path, Taken] = field(default_factory=dict)  # home paths the call names, whole

    @classmethod
    def take(
        cls, workdir: Path, home: Path | None = None, arguments: Any = None, cwd: Path | None = None
    ) -> OutsideWrites:
        from hermes_tui.core.tools import gitguard, package_hooks
        from hermes_tui.core.tools.sweep import identities, swept_paths

        swept = swept_paths(workdir)
        named = {}
        if home is not None:
            named = {path: take(path) for path in home_paths(home, arguments, cwd or workdir)}
        return cls(
            workdir,
            gitguard.snapshot_workspace(workdir),
            swept,
            identities(swept),
            package_hooks.snapshot(workdir),
            home,
            named,
        )

    def undo(self) -> list[str]:
        """Put back what the call changed that runs later; what was done, said for the
        model (empty when nothing was)."""
        from hermes_tui.core.tools import gitguard, package_hooks
        from hermes_tui.core.tools.sweep import aside_folder, moved_to, sweep_created, swept_paths

        undone = gitguard.restore_workspace(self.git, self.workdir)
        try:
            quarantine = aside_folder(self.workdir)
        except OSError:
            quarantine = self.workdir / ".hermes-moved-aside" / "unusable"  # removal, said
        swept = [*self.swept, *swept_paths(self.workdir)]
        if moved := sweep_created(swept, self.identities, quarantine):
            names = ", ".join(dict.fromkeys(str(old.relative_to(self.workdir)) for old, _ in moved))
            undone.append(
                f"created or replaced {names}, which run later; {moved_to(moved, quarantine)}"
            )
        if hooks := package_hooks.restore(self.package, self.workdir, quarantine):
            undone.append(hooks)
        undone += self._home_put_back()
        return undone

    def _home_put_back(self) -> list[str]:
        from hermes_tui.core.tools.sweep import aside_folder

        said = []
        for path, was in self.named.items():
            now = take(path)
            if same(was, now):
                continue
            if self.home is not None and not os.path.lexists(self.home):
                os.makedirs(self.home, mode=0o700, exist_ok=True)  # moved away whole
            if "unkept" in (was.kind, now.kind):
                done = "not put back: too large or unreadable to keep a copy of"
            else:
                try:
                    done = put_back(path, was, aside_folder(self.home or path.parent))
                except OSError as exc:
                    done = f"could not be put back ({exc.strerror or exc})"
            said.append(
                f"changed {path} in hermes-tui's home, which every later session loads or runs "
                f"(use the memory and skill tools for those): {done}"
            )
        return said


def home_paths(home: Path, arguments: Any, cwd: Path) -> list[Path]:
    """The paths of `home`'s loaded places (HOME_LOADED) that a string among `arguments` names:
    an absolute or `~` path into it, or a relative one naming them from the home or a folder
    above it (`memories/MEMORY.md`, `.local/share/hermes-tui/skills/x/SKILL.md`); every loaded
    place when it names the home itself or a folder above it."""
    real = Path(os.path.realpath(home))
    found = []
    for text in _strings(arguments):
        if "/" not in text and text not in HOME_LOADED:
            continue
        expanded = os.path.expanduser(text)
        if os.path.isabs(expanded) or text.startswith(("./", "../")):
            path = Path(os.path.realpath(os.path.join(cwd, expanded)))
            if real in path.parents and path.relative_to(real).parts[0] in HOME_LOADED:
                found.append(path)
            elif path == real or path in real.parents:
                # The home itself, or a folder above it, moved aside with a prepared one put
                # in its place (attack9's A9-13 addendum): every loaded place is taken.
                found += [real / name for name in HOME_LOADED]
            continue
        parts = Path(os.path.normpath(text)).parts
        for at in range(len(parts)):
            if parts[at] in HOME_LOADED and (at == 0 or parts[at - 1] == real.name):
                found.append(real.joinpath(*parts[at:]))
                break
    return list(dict.fromkeys(found))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value.strip()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
