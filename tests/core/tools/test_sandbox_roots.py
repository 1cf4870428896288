"""hermes-tui started in `/` (or with a writable root that holds /tmp, /proc or /run): binding
that place writable brings back the host's copy of what the sandbox makes private. The user's
sockets (tmux, ssh-agent: each runs what it is sent, outside the sandbox) and the host's
processes must stay out of reach. /tmp itself is never made writable: commands are refused
there, saying where to go instead.

Run as the unprivileged user (`sandbox_world.runner`) when the suite runs as root: root in the
sandbox's user namespace cannot reach other users' folders, and outside it reaches everything,
so neither judges what a user's command gets."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.bell import Bell
from sandbox_world import REPO, SYSTEM_PATH, runner, sandbox_works

pytestmark = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])

# One terminal call, made by the user the commands run as; prints what the model would see.
CALL = """
import json, subprocess, sys, time
from pathlib import Path
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
workdir, command, roots, held = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), sys.argv[4:]
holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *held]) if held else None
settings = TerminalSettings(sandbox="on", network="off", writable_roots=tuple(map(Path, roots)))
registry = ToolRegistry(make_terminal_tools(settings))
context = ToolContext(cwd=workdir, workdir=workdir, approvals=Approvals(lambda _request: "once"))
result = registry.call("terminal", {"command": command.replace("HOLDER", str(holder and holder.pid)), "timeout": 60}, context)
if holder:
    holder.kill()
print(result.get("output", "") + result.get("error", ""))
"""
KNOCK = (
    "import socket, sys\n"
    "try:\n"
    "    socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print('CONNECTED')\n"
    "except OSError as exc:\n"
    "    print('refused', exc)\n"
)


def _user() -> tuple[list[str], dict[str, str], int | None]:
    prefix, user, _why = runner()
    entry = pwd.getpwnam(user) if user else None
    home = entry.pw_dir if entry else os.environ.get("HOME", "/")
    env = {"PYTHONPATH": str(REPO), "PATH": SYSTEM_PATH, "HOME": home}
    return prefix, env, entry.pw_uid if entry else None


def _run(workdir: Path, command: str, roots: tuple[str, ...] = (), held: str = "") -> str:
    prefix, env, _uid = _user()
    argv = [*prefix, sys.executable, "-c", CALL, str(workdir), command, json.dumps(roots)]
    for _attempt in range(3):
        found = subprocess.run(
            [*argv, *([held] if held else [])], capture_output=True, text=True, env=env, timeout=90
        )
        assert found.returncode == 0, found.stderr[-2000:]
        # Started in `/`, the sandbox binds what it found there by name (each repository's
        # git folders, among others); another test removing its own folder meanwhile (the
        # corpus's worlds live in this user's home) made bubblewrap refuse to start: the
        # command never ran, whatever this test is about. It is run again.
        if "bwrap: Can't find source path" not in found.stdout:
            break
    return found.stdout


@pytest.fixture
def in_real_tmp() -> Iterator[Path]:
    """A folder in the real /tmp whatever TMPDIR says, the user's: their file and a socket."""
    folder = Path(tempfile.mkdtemp(prefix="hermes-roots-", dir="/tmp"))
    (folder / "notes.txt").write_text("the user's file in /tmp\n")
    (folder / "knock.py").write_text(KNOCK)
    _prefix, _env, uid = _user()
    try:
        if uid is not None:
            shutil.chown(folder, uid, uid)
            os.chmod(folder, 0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bell_path(folder: Path) -> Path:
    return folder / "tmux" / "default"


def _bell(folder: Path) -> Bell:
    """The user's tmux server stand-in: reachable by the user outside the sandbox."""
    marker = folder / "PWNED"
    bell = Bell(folder / "tmux", marker)
    _prefix, _env, uid = _user()
    if uid is not None:
        shutil.chown(folder / "tmux", uid, uid)
        shutil.chown(folder / "tmux" / "default", uid, uid)
    return bell


def test_started_in_the_root_a_command_reaches_no_socket_of_the_user(in_real_tmp: Path) -> None:
    """Bound writable, `/` brought the real /tmp back: the private one lies over it again."""
    bell = _bell(in_real_tmp)
    try:
        prefix, env, _uid = _user()
        outside = subprocess.run(
            [*prefix, sys.executable, str(in_real_tmp / "knock.py"), str(bell_path(in_real_tmp))],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        ).stdout
        assert "CONNECTED" in outside and bell.wait_rung()  # the detector: the user reaches it
        (in_real_tmp / "PWNED").unlink()
        output = _run(
            Path("/"),
            f"ls {in_real_tmp}; python3 - {bell_path(in_real_tmp)} <<'EOF'\n{KNOCK}EOF",
        )
    finally:
        bell.close()
    assert not (in_real_tmp / "PWNED").exists(), output
    assert "CONNECTED" not in output and "refused" in output, output
    assert "notes.txt" not in output  # the sandbox's private /tmp, not the user's


def test_started_in_the_root_the_host_processes_stay_out_of_sight() -> None:
    """With the host's /proc a command reads the command line of every process of the user's
    (an API key passed as an argument, say): the sandbox's own /proc lies over it again."""
    output = _run(
        Path("/"),
        "cat /proc/HOLDER/cmdline; grep -a -l LOOKATME /proc/[0-9]*/cmdline; echo done",
        held=f"--api-key=sk-proj-{os.getpid()}LOOKATME",
    )
    assert "done" in output and "LOOKATME" not in output, output


@pytest.mark.parametrize("as_root", [False, True], ids=["working-directory", "writable-root"])
def test_tmp_itself_is_never_made_writable(in_real_tmp: Path, as_root: bool) -> None:
    """/tmp itself bound writable would show the user's sockets, and no private /tmp can lie
    over the place that holds the work: commands are refused, saying where to go."""
    bell = _bell(in_real_tmp)
    work = in_real_tmp / "project" if as_root else Path("/tmp")
    work.mkdir(exist_ok=True)
    os.chmod(work, 0o777) if as_root else None
    try:
        output = _run(
            work,
            f"touch {in_real_tmp}/made; python3 {in_real_tmp}/knock.py {bell_path(in_real_tmp)}",
            ("/tmp",) if as_root else (),
        )
    finally:
        bell.close()
    assert not (in_real_tmp / "PWNED").exists() and not (in_real_tmp / "made").exists(), output
    assert output.startswith("not run: the sandbox will not make /tmp writable"), output
    assert ("terminal.writable_roots" in output) == as_root
