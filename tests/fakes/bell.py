"""A Unix socket outside the sandbox that leaves a marker when anything connects."""

from __future__ import annotations

from pathlib import Path


class Bell:
    """A Unix socket outside the sandbox that leaves a marker when anything connects (the
    user's tmux server, say: a connection is a keystroke into their terminal).

    connect() returns as soon as the kernel queues a connection, before this side accepts it:
    `wait_rung` waits for the marker, and `close` still answers what is queued, so a connection
    made just before it is never missed."""

    def __init__(self, folder: Path, marker: Path) -> None:
        import socket
        import threading

        folder.mkdir(mode=0o700)
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(folder / "default"))
        self.server.listen()
        self.server.settimeout(0.2)
        self.marker, self.stop, self.rang = marker, threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            self._answer()

    def _answer(self) -> bool:
        try:
            connection, _ = self.server.accept()
        except OSError:
            return False
        self.marker.write_text("reached\n")
        self.rang.set()
        connection.close()
        return True

    def wait_rung(self, timeout: float = 10.0) -> bool:
        """Whether something connected within `timeout` seconds (then forgets it)."""
        rung = self.rang.wait(timeout)
        self.rang.clear()
        return rung

    def close(self) -> None:
        if self.stop.is_set():
            return
        self.stop.set()
        self.thread.join(5)
        self.server.setblocking(False)
        while self._answer():
            pass
        self.server.close()
