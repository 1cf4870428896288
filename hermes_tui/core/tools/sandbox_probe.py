"""What the terminal's sandbox is here, read when a conversation starts: the modes, whether
bubblewrap works (`probe`, which `terminal.mode: auto` needs to choose sandboxed or strict; bwrap,
socat and nsenter found outside the places commands may write, core/host_programs.py) and the
programs to mount back under the private /tmp (`current_programs`); and where no wall can
be built at all (`unwalled_place`, `wall_refusal`: asked before each command, without the wall).

Apart from the wall itself (sandbox.py: the bubblewrap profile, the scrubbed environment, the
sweep of created paths), which is imported by the first command that runs, so a conversation
that runs none never loads it (bench/oneshot.py). sandbox.py re-exports all of this.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from hermes_tui.core.records import datarecord

SandboxMode = Literal["auto", "on", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "on", "off")
NetworkMode = Literal["off", "allowlist", "on"]
NETWORK_MODES: tuple[NetworkMode, ...] = ("off", "allowlist", "on")
# The hosts the public package registries of Python, JavaScript and Rust download from, and
# nothing else: not crates.io itself (cargo's publishing API; it downloads from index. and
# static.crates.io), nor PyPI's upload hosts (netproxy.PUBLISH_HOSTS). Not Go's module proxy
# and checksum database either: they fetch from whatever origin a module path names
# (`proxy.golang.org/<any host>/<data>/@v/list` makes Google's server request that host), so a
# command could hand any host data through them; a Go download asks.
DEFAULT_NETWORK_ALLOW = (
    "pypi.org",
    "files.pythonhosted.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "index.crates.io",
    "static.crates.io",
)


@datarecord
class SandboxStatus:
    """Whether the OS sandbox is available here, and the programs it uses."""

    active: bool
    detail: str  # how it runs, or why it does not
    bwrap: str | None = None
    socat: str | None = None  # the bridge into the network namespace (allowlist mode)
    nsenter: str | None = None  # joins a held network namespace (netns.py), when there


# The bubblewrap programs (path and file identity) that made a sandbox in this process: the
# runtime, each conversation's terminal and the eval's checker probe, and a trial (a bwrap
# run, about 6 ms of CPU and 25 ms) is not repeated for one that worked. A failure is tried
# again next time.
_WORKED: set[tuple[str, int, int, int, int]] = set()


def probe(
    mode: SandboxMode,
    which: Callable[[str], str | None] | None = None,
) -> SandboxStatus:
    """Whether commands will run inside bubblewrap, and why (or why not). The programs are
    found by `which`, by default outside every place commands may write (host_programs)."""
    if which is None:
        from hermes_tui.core import host_programs

        which = host_programs.programs().which
    if mode == "off":
        return SandboxStatus(False, "off (terminal.sandbox: off)")
    bwrap = which("bwrap")
    if bwrap is None:
        return SandboxStatus(
            False, "bwrap (bubblewrap) is not on PATH; install the bubblewrap package"
        )
    try:
        found = os.stat(bwrap)
        identity = (bwrap, found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size)
    except OSError as exc:
        return SandboxStatus(False, f"bwrap at {bwrap} could not start: {exc}")
    if identity not in _WORKED:
        try:
            trial = subprocess.run(
                [bwrap, *_isolation(network="off"), "--ro-bind", "/", "/", "--", "true"],
                capture_output=True,
                text=True,
                timeout=15,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxStatus(False, f"bwrap at {bwrap} could not start: {exc}")
        if trial.returncode != 0:
            why = " ".join(trial.stderr.split())[:200] or f"exit status {trial.returncode}"
            return SandboxStatus(
                False,
                f"bwrap at {bwrap} cannot create a sandbox here ({why}); are user namespaces off?",
            )
        _WORKED.add(identity)
    return SandboxStatus(True, f"bubblewrap ({bwrap})", bwrap, which("socat"), which("nsenter"))


def _isolation(network: NetworkMode) -> list[str]:
    # No UTS or cgroup namespace: without a capability a command can change neither the
    # hostname nor a cgroup of the host's, and each namespace costs about a millisecond per
    # command (bench/sandbox.py).
    args = ["--unshare-user", "--unshare-ipc", "--unshare-pid"]
    args += ["--cap-drop", "ALL", "--new-session", "--die-with-parent"]
    if network != "on":
        args.append("--unshare-net")
    return args


def interpreter_paths(
    prefixes: Iterable[str], import_path: Iterable[str], search_path: str
) -> tuple[Path, ...]:
    """Where the programs a command runs live: the interpreter's `prefixes` (a venv and the
    Python it was made from), its `import_path` (an editable install's source folder) and each
    folder of `search_path` (PATH), a venv's whole folder for its `bin/`. Read once, at start:
    only real folders, none reached through a symbolic link."""
    found = [Path(p) for p in (*prefixes, *import_path) if p and os.path.isabs(p)]
    for folder in search_path.split(os.pathsep):
        if os.path.isabs(folder):
            parent = Path(folder).parent
            found.append(parent if (parent / "pyvenv.cfg").is_file() else Path(folder))
    return tuple(
        path
        for path in dict.fromkeys(Path(os.path.normpath(p)) for p in found)
        if _real_folder(path)
    )


def search_path_entries(search_path: str) -> tuple[Path, ...]:
    """The folders of PATH in its order: an absolute one as written and where it leads (links
    resolved), read once, at start: a command cannot change what the sandbox keeps read-only
    by changing a link later (run_later.on_search_path picks those inside writable places). An
    entry starting with `~` is the home's (bash expands it when it looks a program up: the
    classic `export PATH="~/bin:$PATH"`, A6-6). A relative one (`.`, `bin`,
    `./node_modules/.bin`; an empty one is `.`) stays relative: the shell looks it up from
    where it is, which run_later takes as the working directory (the app itself never looks a
    program up through one: host_programs)."""
    found: list[Path] = []
    for folder in search_path.split(os.pathsep) if search_path else ():
        folder = os.path.expanduser(folder) if folder.startswith("~") else folder
        if os.path.isabs(folder):
            found += [Path(os.path.normpath(folder)), Path(os.path.realpath(folder))]
        else:
            found.append(Path(os.path.normpath(folder or ".")))
    return tuple(dict.fromkeys(found))


def current_programs() -> tuple[Path, ...]:
    """Where this Python and the programs on PATH live now (`interpreter_paths`)."""
    return interpreter_paths(
        (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix),
        sys.path,
        os.environ.get("PATH", ""),
    )


def _real_folder(path: Path) -> bool:
    """A folder reached without any symbolic link on the way (what it is cannot be swapped
    by changing where a link points)."""
    return os.path.realpath(path) == str(path) and path.is_dir() and not path.is_symlink()


PRIVATE_TMP = ("/tmp", "/var/tmp")  # each a fresh tmpfs inside the sandbox


def unwalled_place(workdir: Path, writable_roots: Iterable[Path]) -> Path | None:
    """The working directory or writable root that is /tmp or /var/tmp itself, if any: bound
    writable, it would bring back the user's sockets there (tmux, ssh-agent, X11: each runs
    what it is sent, outside the sandbox), and no private /tmp can lie over the place that
    holds the work. Commands are refused there (`terminal`), and so is such a root (config)."""
    roots = {os.path.realpath(tmp) for tmp in PRIVATE_TMP}
    for place in (workdir, *writable_roots):
        if os.path.realpath(place) in roots:
            return Path(place)
    return None


def wall_refusal(
    mode: SandboxMode,
    status: SandboxStatus,
    workdir: Path,
    writable_roots: Iterable[Path],
    *,
    outside: bool,
) -> str | None:
    """Why a command cannot run at all here (None when it can): the sandbox is required and
    missing, or it would run in a place no wall can be built around (`unwalled_place`)."""
    if mode == "on" and not status.active:
        return (
            f"terminal.sandbox is on but the sandbox is unavailable: {status.detail}. "
            "Tell the user; they can set terminal.sandbox: auto."
        )
    place = unwalled_place(workdir, writable_roots) if status.active and not outside else None
    if place is None:
        return None
    return (
        f"the sandbox will not make {place} writable: it holds the user's sockets (tmux, "
        "ssh-agent), through which a command would run outside it. Tell the user to start "
        f"hermes-tui in a folder of its own (mkdir {place}/work && cd {place}/work)"
        + (", or to name one in terminal.writable_roots" if place != workdir else "")
        + "."
    )
