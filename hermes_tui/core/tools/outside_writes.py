"""What a tool that writes outside the sandbox must not leave in the working directory.

An MCP server is a process of the user's, outside the sandbox, that the model drives with
paths: a filesystem server's write_file on `.git/config` (core.fsmonitor), `.envrc`, a hook, or
package.json's lint-staged key ran at the user's next git command or cd (attack7's A7-16), past
every wall the terminal has. So each MCP call is watched as a sandboxed command is: git's
configs and hooks (gitguard), the run-later paths (sweep) and package.json's hook keys
(package_hooks) are taken before it and, after it, what it changed there is put back or moved
aside into `.hermes-moved-aside/`, and the call's result says so. (Instruction files are the
agent loop's write gate's, as for commands.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class OutsideWrites:
    """The working directory's run-later state before a call (`take`); `undo` after it."""

    workdir: Path
    git: Any  # gitguard.WorkspaceSnapshot
    swept: list[Path]
    identities: dict[Path, Any]
    package: Any  # package_hooks.Snapshot

    @classmethod
    def take(cls, workdir: Path) -> OutsideWrites:
        from hermes_tui.core.tools import gitguard, package_hooks
        from hermes_tui.core.tools.sweep import identities, swept_paths

        swept = swept_paths(workdir)
        return cls(
            workdir,
            gitguard.snapshot_workspace(workdir),
            swept,
            identities(swept),
            package_hooks.snapshot(workdir),
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
        return undone
