"""No Unix socket of the host from inside the sandbox: a seccomp filter that refuses to make one.

A pathname Unix socket is reached with connect(), and a read-only mount does not stop that
(EROFS is for files, folders and links): a tmux server whose socket lies under the home takes
keystrokes, a docker, lxd or libvirt socket is root, a database with peer authentication opens
without a password. No list of places to hide can be complete (sockets are made after the
command starts, anywhere), and seccomp cannot read connect()'s address, but it can read
socket()'s first argument. So every sandboxed process is refused `socket(AF_UNIX, ...)` (EPERM,
"Operation not permitted": a clear error at once, never a hang). Kept:
- `socketpair(AF_UNIX, SOCK_STREAM or SOCK_SEQPACKET)`: a pair connected to each other, which
  cannot be connected anywhere else (EISCONN): pipes between processes (Python's
  multiprocessing.Pipe, asyncio's self-pipe, libuv's child stdio). A datagram pair is refused:
  its ends can sendto() any socket's path;
- every other family: TCP and UDP (only the loopback and the proxy's bridge in the sandbox's
  own network namespace), netlink.
Refused too: `io_uring_setup` (a ring makes sockets without passing through socket()), the x32
range of x86_64 and any other architecture's calls (i386's socketcall would get around the
numbers checked here: such a process is killed, SIGSYS "Bad system call").

What needs a Unix socket of its own fails with that error: Python's multiprocessing
`forkserver` start method (the default from Python 3.14) and `Manager`, a server listening on a
socket path, ssh's ControlMaster, gpg (its agent), docker and podman clients, `systemctl --user`.
glibc's nscd and systemd lookups fall back to the files when refused.

The filter is handed to bubblewrap (`--seccomp FD`: `filter_fd`), which installs it right
before the command runs. When the bridge to the filtering proxy runs inside the command's
sandbox (no held network namespace, netns.py), it must connect to the proxy's socket for each
connection: there `launcher` starts the bridge itself, in a process of its own that the command
cannot attach to, then installs the filter and runs the command.
"""

from __future__ import annotations

import os
import platform
import struct

# The architectures the filter knows: (AUDIT_ARCH_*, socket, socketpair, io_uring_setup, x32).
_ARCHES = {
    "x86_64": (0xC000003E, 41, 53, 425, True),
    "aarch64": (0xC00000B7, 198, 199, 425, False),
}
AF_UNIX = 1
SOCK_STREAM, SOCK_SEQPACKET, SOCK_TYPE_MASK = 1, 5, 0xF
X32_SYSCALL_BIT = 0x40000000
EPERM = 1
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian:
# an argument's low 32 bits first, all socket() and socketpair() read of an int).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
_LD_W_ABS, _JEQ_K, _JGE_K, _AND_K, _RET_K = 0x20, 0x15, 0x35, 0x54, 0x06


def supported(machine: str | None = None) -> bool:
    return (machine or platform.machine()) in _ARCHES


def program(machine: str | None = None) -> bytes:
    """The filter as classic BPF (struct sock_filter[]), for this machine's architecture.
    Raises ValueError on an architecture it does not know."""
    try:
        arch, socket_nr, pair_nr, uring_nr, x32 = _ARCHES[machine or platform.machine()]
    except KeyError:
        raise ValueError(f"no socket filter for {machine or platform.machine()}") from None
    # (code, jump-if-true label, jump-if-false label, k), or a label; resolved below.
    Op = tuple[int, str | None, str | None, int]
    code: list[Op | str] = [
        (_LD_W_ABS, None, None, _ARCH),
        (_JEQ_K, None, "kill", arch),
        (_LD_W_ABS, None, None, _NR),
    ]
    if x32:
        code.append((_JGE_K, "deny", None, X32_SYSCALL_BIT))
    code += [
        (_JEQ_K, "socket", None, socket_nr),
        (_JEQ_K, "pair", None, pair_nr),
        (_JEQ_K, "deny", "allow", uring_nr),
        "socket",
        (_LD_W_ABS, None, None, _ARG0),
        (_JEQ_K, "deny", "allow", AF_UNIX),
        "pair",
        (_LD_W_ABS, None, None, _ARG0),
        (_JEQ_K, None, "allow", AF_UNIX),
        (_LD_W_ABS, None, None, _ARG1),
        (_AND_K, None, None, SOCK_TYPE_MASK),
        (_JEQ_K, "allow", None, SOCK_STREAM),
        (_JEQ_K, "allow", "deny", SOCK_SEQPACKET),
        "allow",
        (_RET_K, None, None, RET_ALLOW),
        "deny",
        (_RET_K, None, None, RET_ERRNO | EPERM),
        "kill",
        (_RET_K, None, None, RET_KILL_PROCESS),
    ]
    labels: dict[str, int] = {}
    body: list[Op] = []
    for entry in code:
        if isinstance(entry, str):
            labels[entry] = len(body)
        else:
            body.append(entry)

    def offset(label: str | None, at: int) -> int:
        return 0 if label is None else labels[label] - at - 1

    return b"".join(
        struct.pack("<HBBI", op, offset(yes, at), offset(no, at), k)
        for at, (op, yes, no, k) in enumerate(body)
    )


def filter_fd(machine: str | None = None) -> int:
    """A descriptor bubblewrap reads the filter from (`--seccomp FD`): the read end of a pipe
    holding it whole, for one command; the caller passes it down and closes its copy."""
    data = program(machine)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    return read_end


# Installs the filter given as hex in argv[1], then runs argv[4:] (Python, no site, no
# environment: the interpreter hermes-tui runs on, mounted in the sandbox). With a proxy socket
# in argv[2], it first listens on 127.0.0.1:argv[3] and forks the bridge to that socket: a
# process the filter does not hold, made non-dumpable so that the command can neither ptrace it
# nor write its memory through /proc (without CAP_SYS_PTRACE, which no command has) to make it
# open a socket of the command's choosing; socat, a program the command could attach to, is
# not used here.
_INSTALL = """\
import ctypes, os, socket, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
code, proxy, port = bytes.fromhex(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def pump(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def pair(client, upstream):
    other = threading.Thread(target=pump, args=(client, upstream), daemon=True)
    other.start()
    pump(upstream, client)
    other.join()
    client.close()
    upstream.close()

if proxy:
    # The proxy's socket held by its inode, before the command runs: its path lies in the
    # command's own /tmp, where a rename and a link would send the bridge to any socket.
    anchor = f"/proc/self/fd/{os.open(proxy, os.O_PATH)}"
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    if os.fork() == 0:
        os.setsid()
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE: 0
        while True:
            client, _ = listener.accept()
            upstream = socket.socket(socket.AF_UNIX)
            try:
                upstream.connect(anchor)
            except OSError:
                client.close()
                upstream.close()
                continue
            threading.Thread(target=pair, args=(client, upstream), daemon=True).start()
    listener.close()
buffer = ctypes.create_string_buffer(code)
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
program = Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(program), 0, 0):
    sys.exit("hermes-tui: the sandbox's socket filter did not install: "
             + os.strerror(ctypes.get_errno()) + "; the command was not run")
os.execvp(sys.argv[4], sys.argv[4:])
"""


def launcher(
    python: str, machine: str | None = None, *, proxy: str = "", port: int = 0
) -> list[str]:
    """The argv prefix that installs the filter and then runs what follows it; with `proxy`
    (the filtering proxy's socket), after starting the bridge from 127.0.0.1:`port` to it."""
    return [python, "-I", "-S", "-c", _INSTALL, program(machine).hex(), proxy, str(port)]
