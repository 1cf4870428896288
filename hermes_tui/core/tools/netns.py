"""A network namespace kept for a conversation's sandboxed commands, so that each command does
not pay for making one (and, in `allowlist`, for starting the bridge to the proxy and waiting
for it to listen).

`NetworkHolder` starts one long-lived bubblewrap process with its own user and network
namespace; in `allowlist` that process is `socat`, listening on 127.0.0.1:PROXY_PORT in the
namespace and forwarding to the filtering proxy's socket on the host, otherwise `sleep`. Each
sandboxed command then joins that network namespace with `nsenter --user --net` before its own
bubblewrap (which still makes its own user, pid, ipc and mount namespaces and drops every
capability). Nothing of a command outlives it (its pid namespace dies with it), so what the
commands share is the loopback interface with the bridge on it, nothing else. The holder dies
with hermes-tui (bubblewrap's --die-with-parent: with the thread that started it, so it is
checked before each use and started again when gone), and `close()` ends it, as does
dropping the holder (garbage collection) or the interpreter's exit.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from pathlib import Path

START_TIMEOUT = 5.0


class HolderUnavailable(RuntimeError):
    """The namespace could not be made: commands fall back to one namespace each."""


class NetworkHolder:
    def __init__(
        self,
        bwrap: str,
        nsenter: str,
        listen_port: int,
        socat: str | None = None,
        proxy_socket: Path | None = None,
    ) -> None:
        self.bwrap, self.nsenter, self.port = bwrap, nsenter, listen_port
        self.socat, self.proxy_socket = socat, proxy_socket
        self._process: subprocess.Popen[bytes] | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    def prefix(self) -> list[str]:
        """The argv that puts what follows into the held network namespace."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start()
            assert self._pid is not None
            return [
                self.nsenter,
                f"--target={self._pid}",
                "--user",
                "--net",
                "--preserve-credentials",
                "--",
            ]

    def _start(self) -> None:
        self._stop()
        read_end, write_end = os.pipe()
        args = [self.bwrap, "--unshare-user", "--unshare-net", "--die-with-parent"]
        args += ["--ro-bind", "/", "/", "--info-fd", str(write_end), "--"]
        bridge = self.socat is not None and self.proxy_socket is not None
        if bridge:
            args += [
                str(self.socat),
                f"TCP-LISTEN:{self.port},bind=127.0.0.1,fork,reuseaddr",
                f"UNIX-CONNECT:{self.proxy_socket}",
            ]
        else:
            args += ["sleep", "infinity"]
        try:
            process = subprocess.Popen(
                args,
                pass_fds=(write_end,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            raise HolderUnavailable(f"bwrap could not start: {exc}") from exc
        finally:
            os.close(write_end)
        self._process = process
        # A holder nobody keeps any more (a conversation dropped without close) ends its process.
        self._reaper = weakref.finalize(self, _end, process)
        try:
            info = _read_all(read_end, START_TIMEOUT)
        finally:
            os.close(read_end)
        try:
            self._pid = int(json.loads(info)["child-pid"])
        except (ValueError, KeyError, TypeError) as exc:
            self._stop()
            raise HolderUnavailable(f"bwrap did not say its child's pid: {info!r}") from exc
        if bridge and not _wait_listening(self._pid, self.port, START_TIMEOUT):
            self._stop()
            raise HolderUnavailable("the bridge to the proxy did not start listening")

    def _stop(self) -> None:
        if self._process is not None:
            self._reaper()
        self._process, self._pid = None, None

    def close(self) -> None:
        with self._lock:
            self._stop()


def _end(process: subprocess.Popen[bytes]) -> None:
    """Kill bubblewrap and everything in its session (it may leave a process of its own in the
    user namespace behind, which --die-with-parent does not reach); only while it has not been
    reaped, so its id cannot be another process's by now."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()


def _read_all(fd: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    data = b""
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
        if data.rstrip().endswith(b"}"):
            break
    return data


def _wait_listening(pid: int, port: int, timeout: float) -> bool:
    wanted = f"0100007F:{port:04X} 00000000:0000 0A"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if wanted in Path(f"/proc/{pid}/net/tcp").read_text():
                return True
        except OSError:
            return False
        time.sleep(0.001)
    return False
