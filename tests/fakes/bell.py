"""A Unix socket outside the sandbox that leaves a marker when anything connects."""

from __future__ import annotations

from pathlib import Path


class Bell:
    """A Unix socket outside the sandbox that leaves a marker when anything connects (the
    user's tmux server, say: a connection is a keystroke into their terminal)."""

    def __init__(self, folder: Path, marker: Path) -> None:
        import socket
        import threading

        folder.mkdir(mode=0o700)
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(folder / "default"))
        self.server.listen()
        self.server.settimeout(0.2)
        self.marker, self.stop = marker, threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.marker.write_text("reached\n")
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.server.close()
