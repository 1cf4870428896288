"""The app's own git in the workspace's repository: whether its configs make git run a program,
and what is tracked and uncommitted (for destroys_work, before `git reset --hard`, `rm -r`).

That repository is one commands may write, so this git must run nothing a command planted:
- the git is the one found at start outside every place commands may write
  (core/host_programs.py), never looked up on PATH (a `.venv/bin/git` would run);
- the configs are judged by git itself (gitconfig.py: a BOM, two headers on a line, CR-only
  lines, includes), and where one names a program or an include, or git cannot read it
  cleanly, git is not run at all: everything counts as tracked and uncommitted, so destroying
  work asks;
- otherwise it runs with neither the system's nor the user's config, every setting that runs a
  program for `status`/`ls-files` neutralised on the command line (`HARDENING`), submodules
  not entered (each has its own config), and, when the sandbox is active, inside it with the
  whole filesystem read-only and no network (`wrap`), so that what the judgement missed still
  runs walled in. git cannot be told not to follow an include: that is why one refuses.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from hermes_tui.core import host_programs
from hermes_tui.core.tools import gitconfig, gitdirs

# What `git status` and `git ls-files` could start, switched off whatever the configs say
# (`-c` outranks every config file): the fsmonitor program, hooks, any transport (a partial
# clone's lazy fetch, its ssh command, remote helpers), credential helpers, an external diff.
HARDENING = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    f"core.hooksPath={os.devnull}",
    "-c",
    "protocol.allow=never",
    "-c",
    "credential.helper=",
    "-c",
    "diff.external=",
    "-c",
    "status.submoduleSummary=false",
    "-c",
    "diff.ignoreSubmodules=all",
)

Wrap = Callable[[list[str]], list[str]]


def config_risk(workdir: Path) -> str | None:
    """Why git, run in this workspace, would start a program its repository config names (a
    repository from a tarball brings its own .git/config), or None."""
    if not os.path.lexists(workdir / ".git"):
        return None
    dirs = gitdirs.resolve(workdir)  # a worktree's or submodule's `.git` file is followed
    if dirs is None:
        return "the workspace's .git leads to no repository git accepts: git would follow it"
    risky: set[tuple[str, str]] = set()
    for config in dirs.configs():
        risky |= gitconfig.file_risks(config)
    if risky:
        keys = ", ".join(sorted({key for key, _ in risky}))
        return f"the repository's .git/config sets {keys}, which makes git run a program"
    return None


def tracked_and_dirty(workdir: Path, wrap: Wrap | None = None):
    """(tracked, dirty) for destroys_work; without a repository nothing is tracked. `wrap`
    puts git in the read-only sandbox (None: on the host, hardened only). git is asked only
    when destroys_work asks (most commands delete nothing)."""
    if not os.path.lexists(workdir / ".git"):
        return (lambda _path: False), (lambda: False)
    allowed: list[list[str] | None] = []

    def argv() -> list[str] | None:
        """The git command line, or None where git must not run (then everything counts)."""
        if not allowed:
            try:
                git = host_programs.programs().require("git", workdir)
            except host_programs.ProgramRefused:
                git = None
            # A config that runs programs (a filter's clean command runs at `git status`
            # too): not run at all; everything counts, so destroying work asks.
            risky = git is None or config_risk(workdir) is not None
            allowed.append(None if risky else [str(git), *HARDENING, "-C", str(workdir)])
        return allowed[0]

    def run(*args: str) -> subprocess.CompletedProcess[bytes] | None:
        prefix = argv()
        if prefix is None:
            return None
        command = [*prefix, *args]
        command = wrap(command) if wrap is not None else command
        inherited = getattr(command, "fds", ())  # the sandbox's socket filter (sandbox.Wrapped)
        try:
            return subprocess.run(
                command,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                env=gitconfig.quiet_env(host_programs.programs().env_path()),
                timeout=10,
                pass_fds=inherited,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None  # cannot tell: ask
        finally:
            for descriptor in inherited:
                os.close(descriptor)

    def tracked(path: str) -> bool:
        found = run("ls-files", "-z", "--", path)
        return found is None or found.returncode != 0 or bool(found.stdout)

    def dirty() -> bool:
        found = run("status", "--porcelain", "--ignore-submodules=all")
        return found is None or found.returncode != 0 or bool(found.stdout.strip())

    return tracked, dirty
