"""Running one terminal command (terminal.py decides whether and how): bash in the conversation's
working directory, its output captured through a temp file (no pipe can fill up and stall the
command), the directory it ended in reported on a descriptor handed down.

What a command writes there is bounded twice (attack4's A4-33: `yes`, or 1.5 GB of `a`, filled
the host's /tmp and then the app's memory): the command is stopped once its output passes
OUTPUT_LIMIT (checked with every wait, twenty times a second), and only the head and the tail
of it, MAX_OUTPUT bytes at most, are ever read back. What the model sees is capped again
centrally at tools.max_result_chars (results.py), with what was read saved for paging and the UI.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from hermes_tui.core import host_programs
from hermes_tui.core.tools.registry import ToolContext

MAX_OUTPUT = 2_000_000  # bytes read back at most: the first third and the last two thirds
OUTPUT_LIMIT = 128 * 2**20  # bytes of output (and directory report) that stop the command
_CWD_TAIL = 65_536  # the directory report's last bytes: a path, whatever else came first


def run_command(
    command: str,
    context: ToolContext,
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
    wrap: Any = None,
) -> dict[str, Any]:
    """Run `command` with bash in context.cwd; `wrap(argv)` turns the argv into a sandboxed one.

    The shell's last directory comes back through a file descriptor handed down (the
    sandbox's /tmp is not ours, so a path would not do).
    """
    # In the host's own /tmp, never $TMPDIR (it may lie in the workspace, where a command could
    # swap the files for links), and read back through the descriptors opened here.
    with tempfile.TemporaryDirectory(prefix="hermes-term-", dir="/tmp") as scratch:
        out_path = Path(scratch) / "out"
        cwd_path = Path(scratch) / "cwd"
        with out_path.open("w+b") as out, cwd_path.open("w+b") as cwd_file:
            fd = cwd_file.fileno()
            script = f"{command}\n__hermes_rc=$?\npwd >&{fd} 2>/dev/null\nexit $__hermes_rc\n"
            # The host's bash found at start, never one a command put on PATH (host_programs).
            argv = [host_programs.programs().require("bash", context.workdir), "-c", script]
            argv = wrap(argv) if wrap is not None else argv
            inherited = getattr(argv, "fds", ())  # the sandbox's socket filter (sandbox.Wrapped)
            try:
                process = subprocess.Popen(
                    argv,
                    cwd=context.cwd,
                    env=dict(env) if env is not None else None,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=(fd, *inherited),
                )
            finally:
                for descriptor in inherited:
                    os.close(descriptor)
            deadline = time.monotonic() + timeout
            stopped = ""
            ended = _waiter(process)
            while True:
                # Woken the moment the command ends (a sleep between polls adds up to its
                # length to every command); cancel, timeout and size are checked between waits.
                if ended(0.05):
                    break
                if context.cancel.is_set():
                    stopped = "cancelled by the user"
                elif time.monotonic() > deadline:
                    stopped = f"timed out after {timeout:g}s"
                elif os.fstat(out.fileno()).st_size + os.fstat(fd).st_size > OUTPUT_LIMIT:
                    stopped = f"stopped once its output passed {OUTPUT_LIMIT // 2**20} MB"
                if stopped:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                    ended(0)  # closes the pidfd
                    break
            output = _head_and_tail(out)
            reported = _tail(cwd_file, _CWD_TAIL).decode("utf-8", errors="replace")
        reported = reported.strip().splitlines()
        if reported:
            new_cwd = Path(reported[-1])
            if new_cwd.is_absolute() and new_cwd.is_dir():
                context.cwd = new_cwd
    result: dict[str, Any] = {
        "success": not stopped and process.returncode == 0,
        "exit_code": process.returncode,
        "output": output,
        "cwd": str(context.cwd),
    }
    if stopped:
        result["error"] = f"command {stopped}; output so far is included"
    elif process.returncode != 0:
        result["error"] = f"command exited with status {process.returncode}"
    return result


def _head_and_tail(file: BinaryIO) -> str:
    """The output as text: whole when it is MAX_OUTPUT bytes or less, else its first third and
    last two thirds with what lies between counted; never more than that read, whatever the
    file holds (a process the command left behind, outside the sandbox, may still write: read
    with pread, which leaves the offset it shares alone)."""
    head, tail = MAX_OUTPUT // 3, MAX_OUTPUT * 2 // 3
    fd = file.fileno()
    size = os.fstat(fd).st_size
    if size <= MAX_OUTPUT:
        return os.pread(fd, MAX_OUTPUT, 0).decode("utf-8", errors="replace")
    first, last = os.pread(fd, head, 0), os.pread(fd, tail, size - tail)
    return (
        f"{first.decode('utf-8', errors='replace')}\n"
        f"[... {size - head - tail:,} bytes of output left out ...]\n"
        f"{last.decode('utf-8', errors='replace')}"
    )


def _tail(file: BinaryIO, size: int) -> bytes:
    length = os.fstat(file.fileno()).st_size
    return os.pread(file.fileno(), size, max(0, length - size))


def _waiter(process: subprocess.Popen) -> Any:
    """`ended(seconds)`: wait at most that long for `process` to end; whether it has. A pidfd
    wakes at the exit itself; without one, Popen.wait polls (with a growing delay)."""
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        pidfd = None

    def ended(seconds: float) -> bool:
        if pidfd is None:
            try:
                process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                return False
            return True
        select.select([pidfd], [], [], seconds)
        if process.poll() is None:
            return False
        os.close(pidfd)
        return True

    return ended
