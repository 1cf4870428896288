"""The filtering proxy: the only way out of the sandbox's network namespace.

It listens on a Unix socket that the sandbox binds in (sandbox.py bridges it to
127.0.0.1:3128 with socat, and sets HTTP(S)_PROXY). It speaks HTTP CONNECT (for HTTPS and
anything tunnelled) and plain HTTP with an absolute URL. A host on the allowlist (exact, or a
subdomain of an entry, unless it is one of the registries' publishing hosts) goes through; in a
tunnel, so does the name its TLS hello asks for, or its one HTTP request's Host, when it is
another (tls_hello.py, http_relay.py): a tunnel carries TLS or HTTP judged that way, nothing
else; a plain-HTTP request or a tunnelled one is carried alone (http_relay.py); any
other host is put to `ask(host, command)`, which answers "once" (this connection), "session"
(a host the conversation's approvals already allowed for the session: they keep that grant,
approvals.py) or "deny".
Every connection is recorded, so the terminal tool can say what a command reached and the taint
tracker can mark the turn. One proxy per terminal toolset, started on the first command that
needs it, in a daemon thread; connections are bounded in time.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import socket
import socketserver
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from hermes_tui.core.tools import http_relay, tls_hello

Decision = Literal["once", "session", "deny"]
Ask = Callable[[str, str], Decision]
IDLE_TIMEOUT = 120.0
MAX_HEADER = 64 * 1024  # a request head, or a tunnel's first flight (a TLS hello is ~2 KB)
# A plain-HTTP request as forwarded: its head rebuilt, its body's framing.
Forwarded = tuple[bytes, http_relay.Body]


# Where the proxy's socket folder is made (FilteringProxy.start).
SOCKET_PARENT = "/tmp"


@dataclass(frozen=True)
class Connection:
    """A connection the proxy allowed or refused, and why."""

    host: str
    port: int
    allowed: bool
    how: str  # "allowlist", "session", "once", "refused"


# Hosts that publish packages: a command with a token from an injected text could put the
# workspace's files on a public registry (`twine upload`, `cargo publish`). They share a domain
# with the registries' downloads, so they go through only when listed themselves, never as a
# subdomain of a listed entry (`pypi.org` does not let `upload.pypi.org` through). npm
# publishes to registry.npmjs.org, the host it downloads from: through CONNECT the proxy
# cannot tell the two apart (README, "What the walls do not catch").
PUBLISH_HOSTS = frozenset(
    {"upload.pypi.org", "test.pypi.org", "test-files.pythonhosted.org", "crates.io"}
)


def host_allowed(host: str, allow: Iterable[str]) -> bool:
    host = host.lower().rstrip(".")
    for written in allow:
        written = written.lower().strip().rstrip(".")
        if host in PUBLISH_HOSTS:  # listed as itself, not through a wildcard or a parent
            if written == host:
                return True
            continue
        entry = written.lstrip("*.")
        if entry and (host == entry or host.endswith("." + entry)):
            return True
    return False


@dataclass
class ProxyState:
    """The filtering proxy's allowlist, its question to the user and its log."""

    allow: tuple[str, ...]
    ask: Ask | None = None
    command: str = ""  # the command running now, named in the question
    log: list[Connection] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def decide(self, host: str, port: int, *, record: bool = True) -> Connection:
        """Allowlist, then this conversation's session hosts, then `ask`. `record=False` for a
        connection the app makes itself (web_fetch): it is not one a command made."""
        with self.lock:
            if host_allowed(host, self.allow):
                verdict = Connection(host, port, True, "allowlist")
            else:
                answer: Decision = "deny"
                if self.ask is not None:
                    try:
                        answer = self.ask(host, self.command)
                    except Exception:  # a face that failed to ask has not said yes
                        answer = "deny"
                verdict = Connection(
                    host,
                    port,
                    answer in ("once", "session"),
                    answer if answer != "deny" else "refused",
                )
            if record:
                self.log.append(verdict)
            return verdict

    def take_log(self) -> list[Connection]:
        with self.lock:
            taken, self.log = self.log, []
            return taken


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        self.connection.settimeout(IDLE_TIMEOUT)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.connection.recv(4096)
            if not chunk:
                return
            head += chunk
            if len(head) > MAX_HEADER:
                return self._reply(431, "request header too large")
        header, _, rest = head.partition(b"\r\n\r\n")
        try:
            request = http_relay.parse_head(header)
            if request.method.upper() == "CONNECT":
                host, port = _authority(request.target)
                return self._tunnel(host, port, rest, None)
            if not request.target.lower().startswith("http://"):
                raise http_relay.BadRequest(400, "only absolute http:// URLs or CONNECT")
            authority, slash, path = request.target[len("http://") :].partition("/")
            host, port = _authority(authority, 80)
            # The Host header is the URL's authority, the host judged (RFC 9112 3.2.2: a
            # proxy replaces it): a client's own `Host: other.example` would have a CDN in
            # front of an allowed host serve, or relay to, another site (attack6's A6-7).
            origin = replace(request, target="/" + path if slash else "/")
            forwarded = (origin.render(authority), http_relay.body_of(request))
        except http_relay.BadRequest as refused:
            return self._reply(refused.status, refused.reason)
        return self._tunnel(host, port, rest, forwarded)

    def _reply(self, status: int, text: str) -> None:
        body = f"hermes-tui sandbox proxy: {text}\n".encode()
        with contextlib.suppress(OSError):
            self.connection.sendall(
                f"HTTP/1.1 {status} {text}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n".encode()
                + body
            )

    def _tunnel(self, host: str, port: int, rest: bytes, forwarded: Forwarded | None) -> None:
        """Connect to `host` if allowed; then carry one plain-HTTP request (`forwarded`: its
        head as rebuilt and its body's framing), or a CONNECT tunnel's first flight judged."""
        state = self.server.state
        if _local_name(host) and not host_allowed(host, state.allow):
            # Refused before any question (nothing to approve), and logged as refused.
            with state.lock:
                state.log.append(Connection(host, port, False, "local address"))
            return self._reply(403, f"{host} is {LOCAL}")
        verdict = self.server.state.decide(host, port)
        if not verdict.allowed:
            return self._reply(403, f"{host} is not on terminal.network_allow and was not approved")
        # The host's own loopback, private and link-local services (a dev server, a database,
        # a docker API on 2375) only when the host or address is listed, as for web_fetch:
        # an approval of "127.0.0.1" in yolo is no approval at all (A5-9). Resolved once, and
        # that address connected to (no second lookup to rebind).
        try:
            addresses = addresses_of(host, port)
            if unlisted_local(host, addresses, state.allow) is not None:
                return self._reply(403, f"{host} resolves to {LOCAL}")
            upstream = socket.create_connection((addresses[0], port), timeout=30)
        except OSError as exc:
            return self._reply(502, f"cannot reach {host}:{port}: {exc}")
        with upstream, contextlib.suppress(OSError):
            upstream.settimeout(IDLE_TIMEOUT)
            if forwarded is None:
                self.connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                forwarded, rest = self._first_flight(host, port, upstream, rest)
            if forwarded == "tls":
                upstream.sendall(rest)
                _pipe(self.connection, upstream)
            elif forwarded is not None:
                head, body = forwarded
                http_relay.relay(self.connection, upstream, head, body, rest, IDLE_TIMEOUT)

    def _first_flight(
        self, host: str, port: int, upstream: socket.socket, data: bytes
    ) -> tuple[Forwarded | Literal["tls"] | None, bytes]:
        """What a tunnel may carry, judged from the client's first bytes before any is sent
        on: a TLS hello for `host` or another allowed name ("tls"; A6-7: a CDN's address serves
        every site by the name in the hello), or one HTTP request whose Host is such a name
        (its head rebuilt, its body framed: A7-2). Anything else is not carried (None): a
        client that stays silent (A7-1: judged only within 5 s, a pause carried any hello
        unjudged), a server that speaks first, another protocol, a malformed hello."""
        deadline = time.monotonic() + FIRST_FLIGHT_SECONDS
        wanted = host.lower().rstrip(".")
        while len(data) <= MAX_HEADER:
            kind, name = tls_hello.hello_name(data)
            if data and kind == "hello":
                if name is None:
                    return ("tls" if _is_address(wanted) else None), data
                if not _HOST_NAME.fullmatch(name):  # `pypi.org\0.localhost`, `x/.localhost`
                    return None, data
                allowed = name == wanted or self.server.state.decide(name, port).allowed
                return ("tls" if allowed else None), data
            if kind == "other":
                if not http_relay.may_be_request(data):
                    return None, data
                if b"\r\n\r\n" in data:
                    return self._tunnelled_request(wanted, port, data)
            left = deadline - time.monotonic()
            ready = select.select([self.connection, upstream], [], [], max(left, 0))[0]
            if self.connection not in ready or upstream in ready:
                return None, data  # silent for too long, or the server spoke first
            chunk = self.connection.recv(4096)
            if not chunk:
                return None, data
            data += chunk
        return None, data

    def _tunnelled_request(
        self, wanted: str, port: int, data: bytes
    ) -> tuple[Forwarded | None, bytes]:
        header, _, rest = data.partition(b"\r\n\r\n")
        try:
            request = http_relay.parse_head(header)
            hosts = request.values("host")
            if len(hosts) > 1 or not request.target.startswith("/"):
                raise http_relay.BadRequest(400, "one Host and an origin-form target")
            given = hosts[0] if hosts else wanted
            name, _port = _authority(given, port)
            name = name.lower().rstrip(".")
            if name != wanted and not self.server.state.decide(name, port).allowed:
                raise http_relay.BadRequest(403, f"{name} is not the host this tunnel is for")
            return (request.render(given), http_relay.body_of(request)), rest
        except http_relay.BadRequest as refused:
            self._reply(refused.status, refused.reason)
            return None, rest


FIRST_FLIGHT_SECONDS = IDLE_TIMEOUT  # however long it takes: the bytes are judged, never timed


def _authority(authority: str, default_port: int | None = None) -> tuple[str, int]:
    """(host, port) of `host:port`, `[v6]:port` or, with a default port, a bare host."""
    if "@" in authority:
        raise http_relay.BadRequest(400, "no user information in the authority")
    host, colon, port = authority.rpartition(":")
    if not colon or host.startswith("[") != host.endswith("]") or "]" in port:
        host, port = authority, "" if default_port is None else str(default_port)
    bracketed = host.startswith("[") and host.endswith("]")
    host = host[1:-1] if bracketed else host
    # A name or an address only: `attacker.example?.localhost` or a list would pass the
    # allowlist's suffix test while a server behind the address reads another host (A8-6).
    if not (_HOST_ADDRESS if bracketed else _HOST_NAME).fullmatch(host):
        raise http_relay.BadRequest(400, "a host name or address is needed")
    if not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise http_relay.BadRequest(400, "a host:port is needed")
    return host, int(port)


_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252}[A-Za-z0-9_.])?")
_HOST_ADDRESS = re.compile(r"[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?")


def _is_address(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


LOCAL = "a private or local address; commands reach those only when terminal.network_allow lists it"


def public_address(address: str) -> bool:
    """True for an address on the open internet (not loopback, private, link-local, ...)."""
    import ipaddress

    ip = ipaddress.ip_address(address.split("%", 1)[0])
    ip = getattr(ip, "ipv4_mapped", None) or ip
    return ip.is_global and not ip.is_multicast


def _local_name(host: str) -> bool:
    """A host that names a non-public address without any lookup: an IP literal outside the
    open internet, or localhost."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return not public_address(name)
    except ValueError:  # a name, not an address
        return False


def addresses_of(host: str, port: int) -> list[str]:
    """What `host` resolves to, in the resolver's order (socket.gaierror when nothing)."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def unlisted_local(host: str, addresses: list[str], allow: Iterable[str]) -> str | None:
    """The first of `addresses` (what `host` resolves to) off the open internet that neither
    the host nor the address is listed for, or None: the rule of the sandbox's proxy and of
    web_fetch alike (a dev server, a database, a docker API on the host's loopback or LAN)."""
    allow = tuple(allow)
    if host_allowed(host, allow):
        return None
    return next(
        (a for a in addresses if not public_address(a) and not host_allowed(a, allow)), None
    )


def _pipe(a: socket.socket, b: socket.socket) -> None:
    sockets = [a, b]
    while True:
        ready, _, _ = select.select(sockets, [], [], IDLE_TIMEOUT)
        if not ready:
            return
        for source in ready:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            (b if source is a else a).sendall(data)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    state: ProxyState


class FilteringProxy:
    """One proxy on a private Unix socket; `start()` once, `close()` at the end."""

    def __init__(self, allow: Iterable[str], ask: Ask | None = None) -> None:
        self.state = ProxyState(tuple(allow), ask)
        # In the host's own /tmp, never $TMPDIR: that may lie in a writable place (the
        # workspace), where a command would re-point the socket the bridge connects to. The
        # real /tmp is never one (sandbox.unwalled_place), and commands see a private one.
        self._folder = Path(tempfile.mkdtemp(prefix="hermes-proxy-", dir=SOCKET_PARENT))
        os.chmod(self._folder, 0o700)
        self.socket_path = self._folder / "proxy.sock"
        self._server: _Server | None = None
        # The folder goes with the proxy even when nobody closes it (a tool set dropped, an
        # exit without close): otherwise each conversation leaves one in /tmp for good.
        weakref.finalize(self, shutil.rmtree, self._folder, True)

    def start(self) -> None:
        if self._server is not None:
            return
        server = _Server(str(self.socket_path), _Handler)
        server.state = self.state
        # The sandbox may run as another user namespace's root: the socket must be connectable.
        os.chmod(self.socket_path, 0o666)
        self._server = server
        # The thread holds the server, not this proxy (whose finalizer removes its folder).
        threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": self.poll_interval},
            name="hermes-proxy",
            daemon=True,
        ).start()

    # How often the serving thread looks whether it should stop while no connection comes.
    poll_interval = 0.5

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            # shutdown() waits until the serving thread looks at its flag, between polls: up
            # to half a second at the end of every chat that ran a sandboxed command. A
            # connection wakes it at once (its handler reads the end and returns).
            stopping = threading.Thread(target=server.shutdown, daemon=True)
            stopping.start()
            while stopping.is_alive():
                with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
                    wake.connect(str(self.socket_path))
                stopping.join(0.02)
            server.server_close()
        with contextlib.suppress(OSError):
            self.socket_path.unlink()
            self._folder.rmdir()
