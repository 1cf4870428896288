"""The app on a real pseudo-terminal: when the terminal goes away, the process ends.

A closed terminal window hangs up its pty. Textual alone keeps running (its input thread spins
on end-of-file), so these start `hermes-tui` on a pty, wait for its first screen, close the
terminal's side and wait for the process to end. The timeouts are generous: they bound a hang,
they do not measure speed.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from helpers import REPO, cli_env

START_TIMEOUT = 60.0
EXIT_TIMEOUT = 30.0


def start_on_pty(home: Path, controlling: bool) -> tuple[subprocess.Popen, int]:
    """`hermes-tui` on a fresh 80×24 pty (as its controlling terminal, or merely its stdio)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

    def take_terminal() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=take_terminal if controlling else None,
        env=cli_env(TERM="xterm-256color", PYTHONPATH=str(REPO)),
    )
    os.close(slave)
    return process, master


def wait_for_screen(master: int, process: subprocess.Popen, text: bytes) -> None:
    seen = b""
    deadline = time.monotonic() + START_TIMEOUT
    while text not in seen:
        assert process.poll() is None, seen.decode(errors="replace")[-2000:]
        assert time.monotonic() < deadline, "the app never drew its screen"
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            seen += os.read(master, 65536)


@pytest.mark.parametrize("controlling", [True, False], ids=["controlling-tty", "stdio-only"])
def test_closing_the_terminal_ends_the_app(home: Path, controlling: bool) -> None:
    process, master = start_on_pty(home, controlling)
    try:
        wait_for_screen(master, process, b"hermes-tui")
        os.close(master)  # the terminal window is gone
        code = process.wait(timeout=EXIT_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # 129 (128 + SIGHUP) from our own shutdown; -1 would mean the signal killed it outright.
    assert code == 129
