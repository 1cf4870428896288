"""No Unix socket of the host is reached from the sandbox, wherever it lies (attack4's A4-15): a
tmux server whose socket is under the home (TMUX_TMPDIR=~/.tmux), the user's runtime folder
/run/user/<uid> when hermes-tui's own environment has no XDG_RUNTIME_DIR. A read-only mount
does not stop connect(); the seccomp filter (unix_wall.py) refuses to make the socket at all,
with the proxy's bridge still working, held or per command. What everyday programs do with
sockets (socketpair, multiprocessing's fork pool, asyncio) keeps working.

The commands run as the unprivileged user (`sandbox_world.runner`) when the suite runs as root:
root in the sandbox's user namespace is not what a user's command gets."""

from __future__ import annotations

import contextlib
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

from hermes_tui.core.tools import unix_wall

pytestmark = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])

# One terminal call, made by the user the commands run as, with no XDG_RUNTIME_DIR; prints
# what the model would see. `bridged`: no held network namespace (as without nsenter), so the
# proxy's bridge runs inside the command's own sandbox.
CALL = """
import sys
from pathlib import Path
from hermes_tui.core.tools import netns
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
workdir, command, network = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
if network == "bridged":
    def unavailable(_self):
        raise netns.HolderUnavailable("as without nsenter")
    netns.NetworkHolder.prefix = unavailable
settings = TerminalSettings(sandbox="on", network="off" if network == "off" else "allowlist")
registry = ToolRegistry(make_terminal_tools(settings))
context = ToolContext(cwd=workdir, workdir=workdir, approvals=Approvals(lambda _request: "once"))
result = registry.call("terminal", {"command": command, "timeout": 60}, context)
print(result.get("output", "") + result.get("error", ""))
"""
KNOCK = (
    "import socket, sys\n"
    "try:\n"
    "    socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print('CONNECTED')\n"
    "except OSError as exc:\n"
    "    print('refused', exc)\n"
)
# Through the proxy to the host's loopback, which it refuses without a lookup: any answer of
# the proxy's (an HTTP status) shows the bridge to its socket on the host works; "no proxy"
# that it does not.
THROUGH_PROXY = (
    "import urllib.error, urllib.request\n"
    "try:\n"
    "    urllib.request.urlopen('http://127.0.0.1:9/', timeout=20)\n"
    "except urllib.error.HTTPError as exc:\n"
    "    print('proxy answered', exc.code)\n"
    "except OSError as exc:\n"
    "    print('no proxy', exc)\n"
)


def _user() -> tuple[list[str], Path, int]:
    prefix, user, _why = runner()
    if user:
        entry = pwd.getpwnam(user)
        return prefix, Path(entry.pw_dir), entry.pw_uid
    return prefix, Path(os.environ.get("HOME", "/")), os.getuid()


def _run(workdir: Path, command: str, network: str = "off", tmpdir: str = "") -> str:
    prefix, home, _uid = _user()
    env = {"PYTHONPATH": str(REPO), "PATH": SYSTEM_PATH, "HOME": str(home)}  # no XDG_RUNTIME_DIR
    env |= {"TMPDIR": tmpdir} if tmpdir else {}
    found = subprocess.run(
        [*prefix, sys.executable, "-c", CALL, str(workdir), command, network],
        capture_output=True,
        text=True,
        env=env,
        timeout=90,
    )
    assert found.returncode == 0, found.stderr[-2000:]
    return found.stdout


def _own(path: Path) -> None:
    _prefix, _home, uid = _user()
    if os.getuid() == 0:
        shutil.chown(path, uid, uid)


@contextlib.contextmanager
def _bell_in(folder: Path) -> Iterator[tuple[Bell, Path, Path]]:
    """The user's tmux server stand-in in `folder`: (bell, its socket, the marker a connection
    leaves)."""
    marker = folder / "PWNED"
    bell = Bell(folder / "tmux", marker)
    _own(folder / "tmux")
    _own(folder / "tmux" / "default")
    try:
        yield bell, folder / "tmux" / "default", marker
    finally:
        bell.close()


def _reaches_outside(bell: Bell, socket_path: Path, workdir: Path) -> None:
    """The detector: the user reaches the bell outside the sandbox."""
    prefix, _home, _uid = _user()
    outside = subprocess.run(
        [*prefix, sys.executable, str(workdir / "knock.py"), str(socket_path)],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    assert "CONNECTED" in outside, outside
    assert bell.wait_rung(), "the bell never answered the user's own connection"
    bell.marker.unlink()


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A working directory the user owns, outside /tmp (the sandbox's /tmp is private)."""
    prefix, user, _why = runner()
    parent = _user()[1] if user else Path.home() / ".cache"
    parent.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="hermes-sockets-", dir=parent))
    try:
        (base / "knock.py").write_text(KNOCK)
        (base / "proxy.py").write_text(THROUGH_PROXY)
        for path in (base, base / "knock.py", base / "proxy.py"):
            _own(path)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def in_home() -> Iterator[Path]:
    """A dot folder of the user's own in their home (as TMUX_TMPDIR=~/.tmux makes one)."""
    _prefix, home, _uid = _user()
    folder = Path(tempfile.mkdtemp(prefix=".hermes-test-tmux-", dir=home))
    _own(folder)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("network", ["off", "held", "bridged"])
def test_a_tmux_socket_under_the_home_is_not_reached(
    in_home: Path, workdir: Path, network: str
) -> None:
    with _bell_in(in_home) as (bell, socket_path, marker):
        _reaches_outside(bell, socket_path, workdir)
        output = _run(workdir, f"python3 knock.py {socket_path}; python3 proxy.py", network=network)
    assert not marker.exists(), output
    assert "CONNECTED" not in output and "Operation not permitted" in output, output
    if network != "off":  # the proxy's bridge is a Unix socket too, made before the filter
        assert "proxy answered" in output, output


ATTACH = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        continue
    if b"socat" in argv or b"PR_SET_DUMPABLE" in argv:  # the bridge to the proxy
        print("bridge found")
        try:
            open(f"/proc/{pid}/mem", "r+b")
            print("MEMORY WRITABLE")
        except OSError as exc:
            print("memory refused", exc.errno)
        print("ATTACHED" if libc.ptrace(16, pid, 0, 0) == 0 else "ptrace refused")
"""


def test_the_bridge_inside_the_sandbox_cannot_be_made_to_open_a_socket(workdir: Path) -> None:
    """Per command (no held namespace), the bridge lives in the command's sandbox without the
    filter: attached to (ptrace, /proc/<pid>/mem), it would open any socket it is told to."""
    (workdir / "attach.py").write_text(ATTACH)
    _own(workdir / "attach.py")
    output = _run(workdir, "python3 attach.py; python3 proxy.py", network="bridged")
    assert "bridge found" in output and "proxy answered" in output, output
    assert "MEMORY WRITABLE" not in output and "ATTACHED" not in output, output
    assert "memory refused" in output and "ptrace refused" in output, output


def test_the_bridge_cannot_be_re_pointed_at_another_socket(in_home: Path, workdir: Path) -> None:
    """Per command, the proxy's socket is bound into the command's own /tmp: renaming its
    folder and linking the path to the user's tmux must leave the bridge on the proxy (A5-6)."""
    with _bell_in(in_home) as (bell, socket_path, marker):
        _reaches_outside(bell, socket_path, workdir)
        output = _run(
            workdir,
            "mv /tmp/.hermes-proxy /tmp/.moved && mkdir /tmp/.hermes-proxy && "
            f"ln -s {socket_path} /tmp/.hermes-proxy/proxy.sock && python3 proxy.py",
            network="bridged",
        )
    assert not marker.exists(), output
    assert "proxy answered" in output, output


@pytest.mark.parametrize("network", ["held", "bridged"])
def test_a_tmpdir_in_the_workspace_holds_neither_the_proxy_nor_the_output(
    workdir: Path, network: str
) -> None:
    """$TMPDIR inside the working directory (a project's .envrc sets it): the proxy's socket
    folder and the output files are made in the host's /tmp, out of the command's reach (A5-8,
    A5-10)."""
    tmpdir = workdir / ".tmp"
    tmpdir.mkdir()
    _own(tmpdir)
    output = _run(
        workdir, "ls -A .tmp; echo LISTED; python3 proxy.py", network=network, tmpdir=str(tmpdir)
    )
    listed = output.split("LISTED\n")[0]
    assert "hermes-proxy" not in listed and "hermes-term" not in listed, output
    assert "proxy answered" in output, output


def test_the_proxy_reaches_no_service_on_the_hosts_loopback(workdir: Path) -> None:
    """Every host approved (the approver says yes, as --yolo does): 127.0.0.1 and 0.0.0.0 are
    still the host's own services, refused unless listed (A5-9)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    port = server.getsockname()[1]
    reached: list[bytes] = []
    stop = threading.Event()

    def answer() -> bool:
        try:
            connection, _ = server.accept()
        except OSError:
            return False
        with connection, contextlib.suppress(OSError):
            connection.settimeout(5)
            reached.append(connection.recv(100))
        return True

    def serve() -> None:
        while not stop.is_set():
            answer()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    probe = (
        "import urllib.error, urllib.request\n"
        f"for host in ('127.0.0.1', '0.0.0.0', 'localhost'):\n"
        f"    try:\n"
        f"        urllib.request.urlopen(f'http://{{host}}:{port}/', timeout=20)\n"
        f"    except urllib.error.HTTPError as exc:\n"
        f"        print(host, exc.code)\n"
        f"    except OSError as exc:\n"
        f"        print(host, 'error', exc)\n"
    )
    (workdir / "loop.py").write_text(probe)
    _own(workdir / "loop.py")
    try:
        output = _run(workdir, "python3 loop.py", network="held")
    finally:
        # connect() returns once the kernel queues a connection, before it is accepted: what
        # is still queued when the command ends reached the service too (the bell's race).
        stop.set()
        thread.join(5)
        server.setblocking(False)
        while answer():
            pass
        server.close()
    assert not reached, (reached, output)
    assert output.count(" 403") == 3, output


def test_the_runtime_folder_is_hidden_without_xdg_runtime_dir(workdir: Path) -> None:
    """/run/user/<uid> (the systemd user manager's bus, podman, gnupg) whatever the app's own
    environment says: its sockets unreachable, its files not there."""
    _prefix, _home, uid = _user()
    runtime = Path("/run/user") / str(uid)
    made = False
    if not runtime.is_dir():
        if os.getuid() != 0:
            pytest.skip(f"{runtime} does not exist and only root can make it")
        runtime.mkdir(mode=0o700, parents=True)
        _own(runtime)
        made = True
    folder = Path(tempfile.mkdtemp(prefix="hermes-test-", dir=runtime))
    try:
        _own(folder)
        (folder / "note.txt").write_text("the user's runtime file\n")
        with _bell_in(folder) as (bell, socket_path, marker):
            _reaches_outside(bell, socket_path, workdir)
            output = _run(
                workdir,
                f"python3 knock.py {socket_path}; cat {folder}/note.txt; "
                f"echo LISTED; ls -A {runtime}; echo END",
            )
        assert not marker.exists(), output
        assert "CONNECTED" not in output and "refused" in output, output
        assert "runtime file" not in output, output
        assert output.split("LISTED\n")[1].startswith("END"), output  # an empty folder
    finally:
        shutil.rmtree(runtime if made else folder, ignore_errors=True)


EVERYDAY = """
import asyncio, multiprocessing, socket, subprocess
if __name__ == "__main__":
    a, b = socket.socketpair(); a.sendall(b"pair"); print(b.recv(4).decode())
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print("pool", pool.map(abs, [-1, -2]))
    print("asyncio", asyncio.run(asyncio.sleep(0, "ran")))
    print(subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[0])
    try:
        multiprocessing.get_context("forkserver").Pool(1).map(abs, [1])
    except OSError as exc:
        print("forkserver refused:", exc.strerror)
"""


def test_everyday_programs_keep_their_pipes_and_fail_clearly_without_a_socket(
    workdir: Path,
) -> None:
    (workdir / "everyday.py").write_text(EVERYDAY)
    _own(workdir / "everyday.py")
    output = _run(workdir, "python3 everyday.py")
    assert "pair\npool [1, 2]\nasyncio ran\ngit\n" in output, output
    # What needs a Unix socket of its own says so at once (no hang: the call is bounded).
    assert "forkserver refused: Operation not permitted" in output, output


@pytest.mark.skipif(not unix_wall.supported(), reason="no socket filter for this architecture")
def test_the_filter_refuses_what_would_get_around_it() -> None:
    """A datagram pair (its ends can sendto() any socket's path), io_uring (makes sockets past
    seccomp), the x32 numbers of socket(), an AF_UNIX with high bits set: all refused; pairs
    of streams, TCP and UDP kept."""
    probe = (
        "import ctypes, os, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def call(name, nr, *args):\n"
        "    print(name, libc.syscall(nr, *args) >= 0)\n"
        "def make(name, make):\n"
        "    try: make(); print(name, True)\n"
        "    except OSError: print(name, False)\n"
        "make('unix', lambda: socket.socket(socket.AF_UNIX))\n"
        "make('dgram pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))\n"
        "make('stream pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM"
        " | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC))\n"
        "make('seqpacket pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))\n"
        "make('tcp', lambda: socket.socket(socket.AF_INET))\n"
        "make('udp', lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))\n"
        "call('io_uring', 425, 8, ctypes.create_string_buffer(120))\n"
        "if os.uname().machine == 'x86_64':\n"
        "    call('x32 socket', 41 | 0x40000000, 1, 1, 0)\n"
        "    call('high bits', 41, 1 | (1 << 32), 1, 0)\n"
    )
    found = subprocess.run(
        [*unix_wall.launcher(sys.executable), sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=30,
    )
    seen = dict(line.rsplit(" ", 1) for line in found.stdout.splitlines())
    assert seen.pop("stream pair") == seen.pop("seqpacket pair") == "True", found
    assert seen.pop("tcp") == seen.pop("udp") == "True", found
    assert set(seen.values()) == {"False"}, found
