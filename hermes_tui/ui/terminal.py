"""The app's terminal going away (window closed, ssh dropped, tmux pane killed): the app ends.

Textual keeps running when its pty is hung up: its input thread reads end-of-file in a busy loop
(a whole core) and frames are written to nowhere. Two things tell us the terminal is gone:
SIGHUP (sent to the terminal's session when it has one) and a hang-up on the terminal's file
descriptor, which poll() reports even to a process the signal never reaches (started without a
controlling terminal, or under `nohup`). Either one calls `on_gone` on the event loop, once.
The file-descriptor watch is Linux only: macOS's poll() does not support terminals (it answers
POLLNVAL at once), so there the signal alone tells.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import sys
import threading
from collections.abc import Callable

GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def watch_terminal(fd: int, on_gone: Callable[[], None]) -> None:
    """Call `on_gone` on the running event loop when the terminal behind `fd` goes away."""
    loop = asyncio.get_running_loop()
    done = threading.Event()

    def gone() -> None:
        if not done.is_set():
            done.set()
            on_gone()

    loop.add_signal_handler(signal.SIGHUP, gone)
    if not sys.platform.startswith("linux"):
        return

    def wait_for_hang_up() -> None:
        poller = select.poll()
        poller.register(fd, 0)
        while not done.is_set():
            try:
                events = poller.poll()  # blocks without a timeout: costs nothing while it waits
            except InterruptedError:
                continue
            if any(mask & GONE for _fd, mask in events):
                loop.call_soon_threadsafe(gone)
                return

    threading.Thread(target=wait_for_hang_up, name="terminal-watch", daemon=True).start()


def exit_after(seconds: float, code: int) -> None:
    """Leave the process after `seconds` if a clean exit has not finished by then: with no
    terminal, Textual's shutdown can block writing to it."""

    def leave() -> None:
        threading.Event().wait(seconds)
        os._exit(code)

    threading.Thread(target=leave, name="exit-deadline", daemon=True).start()
