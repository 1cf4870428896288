"""The conversation's held network namespace (netns.py): made once, joined by each command,
started again when it is gone, and never needed: without nsenter each command makes its own."""

from __future__ import annotations

import dataclasses
import gc
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import open_runtime

from hermes_tui.core.tools import netproxy, terminal
from hermes_tui.core.tools.netns import NetworkHolder
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import PROXY_PORT, probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

STATUS = probe("auto")
pytestmark = pytest.mark.skipif(
    not STATUS.active or STATUS.socat is None or STATUS.nsenter is None,
    reason=f"needs bubblewrap, socat and nsenter: {STATUS.detail}",
)


@pytest.fixture
def web_server() -> Iterator[int]:
    class Hello(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            body = b"hello through the proxy"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def _unix_listener(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(4)
    return listener


def test_the_holder_is_made_once_and_again_when_it_is_gone(tmp_path: Path) -> None:
    listener = _unix_listener(tmp_path / "proxy.sock")
    holder = NetworkHolder(STATUS.bwrap, STATUS.nsenter, PROXY_PORT, STATUS.socat,
                           tmp_path / "proxy.sock")  # fmt: skip
    try:
        first = holder.prefix()
        assert holder.prefix() == first
        joined = [*first, STATUS.bwrap, "--ro-bind", "/", "/", "--unshare-user", "--"]
        reach = "exec 3<>/dev/tcp/127.0.0.1/3128 && echo connected"
        assert (
            "connected"
            in subprocess.run(
                [*joined, "bash", "-c", reach], capture_output=True, text=True, timeout=15
            ).stdout
        )
        listener.settimeout(5)
        listener.accept()[0].close()  # the bridge forwarded the connection to the host socket
        holder._process.kill()  # noqa: SLF001 - as if the thread that started it ended
        holder._process.wait()  # noqa: SLF001
        again = holder.prefix()
        assert again != first
        assert (
            "connected"
            in subprocess.run(
                [*again, *joined[len(first) :], "bash", "-c", reach],
                capture_output=True,
                text=True,
                timeout=15,
            ).stdout
        )
    finally:
        holder.close()
        listener.close()
    assert holder._process is None  # noqa: SLF001


@pytest.mark.parametrize("nsenter", [True, False])
def test_allowlist_reaches_a_listed_host_with_or_without_a_held_namespace(
    tmp_path: Path, web_server: int, monkeypatch: pytest.MonkeyPatch, nsenter: bool
) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    if not nsenter:
        monkeypatch.setattr(
            terminal, "probe", lambda mode: dataclasses.replace(STATUS, nsenter=None)
        )
    work = tmp_path / "work"
    work.mkdir()
    settings = TerminalSettings(network="allowlist", network_allow=("127.0.0.1",))
    registry = ToolRegistry(make_terminal_tools(settings))
    context = ToolContext(cwd=work, workdir=work)  # no human: an unlisted host is refused
    for _ in range(2):
        result = registry.call(
            "terminal", {"command": f"curl -sS -m 10 http://127.0.0.1:{web_server}/"}, context
        )
        assert "hello through the proxy" in result["output"], result
    direct = registry.call(
        "terminal",
        {"command": f"curl --noproxy '*' -sS -m 5 http://127.0.0.1:{web_server}/"},
        context,
    )
    assert "hello" not in direct["output"]  # no way around the proxy


def _holders() -> dict[int, list[int]]:
    """This process's network holders (bubblewrap running socat), each with its children."""
    found: dict[int, list[int]] = {}
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile
        if fields[0] == "Z":
            continue  # dead, waiting to be reaped by its parent
        pid, parent = int(entry.name), int(fields[1])
        children.setdefault(parent, []).append(pid)
        if parent == os.getpid() and argv[0].endswith(b"bwrap") and b"--unshare-net" in argv:
            found[pid] = []
    return {pid: children.get(pid, []) for pid in found}


def _alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def _still_alive(pids: list[int], within: float = 5.0) -> list[int]:
    """Which of `pids` are alive `within` seconds from now (sooner once none is): a SIGKILLed
    process dies when it is next scheduled, which on a loaded machine is not at once."""
    deadline = time.monotonic() + within
    while (alive := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


def test_closing_the_runtime_ends_its_conversations_network_holders(
    tmp_path: Path, home: Path
) -> None:
    """The holder lives as long as the thread that started it (here: the test's own); a
    runtime that is closed stops its conversations' holders and their bridges with it."""
    runtime = open_runtime(
        home, "http://127.0.0.1:9/v1", terminal={"sandbox": "auto", "network": "allowlist"}
    )
    work = tmp_path / "work"
    work.mkdir()
    before = set(_holders())
    registries = [runtime.tool_registry(), runtime.tool_registry()]  # two conversations
    for registry in registries:
        result = registry.call(
            "terminal", {"command": "echo ran"}, ToolContext(cwd=work, workdir=work)
        )
        assert "ran" in result["output"], result
    started = {pid: kids for pid, kids in _holders().items() if pid not in before}
    assert len(started) == 2 and all(started.values()), started  # each: bwrap and its socat
    runtime.close()
    left = _still_alive([pid for holder, kids in started.items() for pid in (holder, *kids)])
    assert not left, f"still running after close: {left}"


def test_closing_a_session_ends_its_holder_and_leaves_the_others_running(
    tmp_path: Path, home: Path
) -> None:
    """A face that leaves a conversation (a new one, another resumed) closes it: its network
    holder and bridge end at once, while the runtime and its other conversations go on."""
    runtime = open_runtime(
        home, "http://127.0.0.1:9/v1", terminal={"sandbox": "auto", "network": "allowlist"}
    )
    work = tmp_path / "work"
    work.mkdir()
    before = set(_holders())
    left_behind, kept = runtime.open_session(cwd=work), runtime.open_session(cwd=work)
    holders = {}
    for session in (left_behind, kept):
        known = set(_holders())
        result = session.agent.registry.call(
            "terminal", {"command": "echo ran"}, session.agent.context
        )
        assert "ran" in result["output"], result
        holders[session.id] = {p: k for p, k in _holders().items() if p not in known}
    assert all(len(found) == 1 for found in holders.values()), holders
    left_behind.close()
    gone = holders[left_behind.id]
    assert not _still_alive([pid for holder, kids in gone.items() for pid in (holder, *kids)])
    assert all(_alive(pid) for pid in holders[kept.id])
    again = kept.agent.registry.call("terminal", {"command": "echo still"}, kept.agent.context)
    assert "still" in again["output"], again
    runtime.close()
    assert not [pid for pid in _holders() if pid not in before]


def test_a_conversation_dropped_without_close_ends_its_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tools nobody keeps any more (a conversation forgotten, not closed): the holder, its
    bridge and its proxy's folder go when they are collected, not when the process exits."""
    work = tmp_path / "work"
    work.mkdir()
    before = set(_holders())
    # The proxy's folder in a temporary folder of this test's own (other tests make theirs in
    # /tmp at the same time); short, as a Unix socket's path must be.
    own_tmp = Path(tempfile.mkdtemp(prefix="np-", dir="/tmp"))
    monkeypatch.setattr(netproxy, "SOCKET_PARENT", str(own_tmp))
    proxies = set(own_tmp.glob("hermes-proxy-*"))
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(network="allowlist")))
    result = registry.call("terminal", {"command": "echo ran"}, ToolContext(cwd=work, workdir=work))
    assert "ran" in result["output"], result
    started = {pid: kids for pid, kids in _holders().items() if pid not in before}
    assert len(started) == 1 and all(started.values()), started
    made = set(own_tmp.glob("hermes-proxy-*")) - proxies
    assert len(made) == 1 and (made.pop() / "proxy.sock").exists()
    del registry
    gc.collect()
    # Its proxy's socket folder too (thousands were left in /tmp, one per conversation).
    assert not set(own_tmp.glob("hermes-proxy-*")) - proxies
    shutil.rmtree(own_tmp, ignore_errors=True)
    # SIGKILL is delivered, and the killed reaped, in their own time on a loaded machine.
    deadline = time.monotonic() + 10
    while True:
        left = [pid for holder, kids in started.items() for pid in (holder, *kids) if _alive(pid)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"still running once dropped: {left}"
