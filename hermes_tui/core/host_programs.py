"""The programs hermes-tui itself runs on the host (git, bwrap, socat, nsenter, bash), found once.

A program the app runs outside the sandbox must not be one a sandboxed command could have
written: with a project's venv activated, PATH starts with `<workspace>/.venv/bin`, and a `git`
a command put there would run, unsandboxed, the next time the app asks git something. So each
program is looked up once, when the first conversation's tools are made (before any command
ran), in the PATH folders that lie outside every place commands may write (the working
directory, `terminal.writable_roots`, the sandbox's cache), and kept as an absolute path whose
real path lies outside them too (a link in /usr/local/bin into the workspace does not count).
A program found nowhere else is refused with a message that says why (`ProgramRefused`), never
looked up on PATH again. Every use checks the path against the working directory of that use.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from hermes_tui.core.records import datarecord

KNOWN = ("git", "bwrap", "socat", "nsenter", "bash")


class ProgramRefused(OSError):
    """The program is not on PATH outside the places commands may write."""


def _real(path: Path | str) -> str:
    return os.path.realpath(os.path.expanduser(str(path)))


def _within(real: str, roots: Iterable[str]) -> bool:
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


# The system's own program folders: a place that holds one whole (hermes-tui started in `/`)
# does not make it a command's (only root can change it, as before); a place inside one does.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/nix/store", "/snap/bin")


def _exposed(real: str, avoid: Iterable[str]) -> bool:
    """Whether the real path `real` lies in an avoided place, a system folder that place holds
    whole aside."""
    for place in avoid:
        if _within(real, [place]) and not any(
            _within(real, [system]) and _within(system, [place]) for system in SYSTEM
        ):
            return True
    return False


def trusted_path(search_path: str, avoid: Iterable[str]) -> tuple[str, list[str]]:
    """(the PATH folders that lie outside `avoid` (real paths), joined; those left out). A
    relative folder (".", "bin") means wherever the app happens to be: left out too."""
    avoid = tuple(avoid)
    kept: list[str] = []
    dropped: list[str] = []
    for folder in search_path.split(os.pathsep):
        if not folder:
            continue
        if not os.path.isabs(folder) or _exposed(_real(folder), avoid):
            dropped.append(folder)
        else:
            kept.append(folder)
    return os.pathsep.join(dict.fromkeys(kept)), dropped


def _reaches(path: str, avoid: tuple[str, ...]) -> bool:
    """Whether `path`, a link it leads through or the file it ends at lies in `avoid` (a
    link there could be pointed elsewhere later)."""
    for _hop in range(40):
        folder = _real(os.path.dirname(path))
        here = os.path.join(folder, os.path.basename(path))
        if _exposed(here, avoid):
            return True
        if not os.path.islink(here):
            return False
        path = os.path.join(folder, os.readlink(here))
    return True  # a loop of links: nothing to run


@datarecord(frozen=False)
class HostPrograms:
    """The places commands may write (real paths), and each program found outside them."""

    avoid: tuple[str, ...]
    search_path: str  # PATH without the folders inside `avoid`
    given: str = ""  # PATH as it was
    dropped: tuple[str, ...] = ()  # PATH folders left out
    found: dict[str, str | None] = field(default_factory=dict)

    def which(self, name: str) -> str | None:
        """The program's absolute path, looked up once: in a PATH folder outside every avoided
        place, and no link on the way to the file inside one either."""
        if name not in self.found:
            hit = shutil.which(name, path=self.search_path)
            self.found[name] = hit if hit and not _reaches(hit, self.avoid) else None
        return self.found[name]

    def require(self, name: str, workdir: Path | None = None) -> str:
        """`which`, or ProgramRefused saying why; also refused when it lies in `workdir`."""
        path = self.which(name)
        if path is not None and (workdir is None or not _exposed(_real(path), [_real(workdir)])):
            return path
        skipped = f" (PATH folders left out: {', '.join(self.dropped)})" if self.dropped else ""
        raise ProgramRefused(
            f"{name} is not installed outside the working directory and "
            f"terminal.writable_roots, where commands may write{skipped}; hermes-tui runs "
            f"only a {name} a command cannot have replaced"
        )

    def command(self, command: str) -> str:
        """A program the user configured (an MCP server, $EDITOR): a bare name found as
        `require` finds it; a path kept as given unless it lies where commands may write."""
        if os.sep not in command:
            return self.require(command)
        # hermes-tui's own Python is what runs already (doctor warns when it lies there).
        path = os.path.abspath(os.path.expanduser(command))
        if not os.path.lexists(path):
            return command  # nothing there to run (now): it fails as not found
        if _reaches(path, self.avoid) and _real(path) != _real(sys.executable):
            raise ProgramRefused(
                f"{command} lies in the working directory or terminal.writable_roots, where "
                "commands may write; hermes-tui does not run it (move it, or name one elsewhere)"
            )
        return command

    def env_path(self) -> str:
        """A PATH for a program the app runs on the host: `search_path`, or the system's."""
        return self.search_path or os.defpath


def find(avoid: Iterable[Path | str], search_path: str | None = None) -> HostPrograms:
    """The programs in KNOWN, found on `search_path` (PATH) outside `avoid`."""
    roots = tuple(dict.fromkeys(_real(p) for p in avoid))
    path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    kept, dropped = trusted_path(path, roots)
    programs = HostPrograms(roots, kept, path, tuple(dropped))
    for name in KNOWN:
        programs.which(name)
    return programs


_settled: HostPrograms | None = None


def settle(avoid: Iterable[Path | str]) -> HostPrograms:
    """Find the programs once for this process, outside `avoid` and the current directory; a
    later call naming a place not avoided yet (or after the app's PATH changed) looks again,
    outside all of them."""
    global _settled
    wanted = {_real(p) for p in [Path.cwd(), *avoid]}
    path = os.environ.get("PATH", os.defpath)  # the app's own: no command can change it
    if _settled is None or not wanted <= set(_settled.avoid) or path != _settled.given:
        before = _settled
        _settled = find(sorted(wanted | set(before.avoid if before else ())))
    return _settled


def programs() -> HostPrograms:
    """The programs found for this process (`settle`d before, or now: outside the current
    directory, wherever that is now, too)."""
    return settle(())
