"""The sandbox's network proxy stops when closed without waiting for its serving thread's
next poll."""

from __future__ import annotations

import contextlib
import threading

from hermes_tui.core.tools.netproxy import FilteringProxy


def test_close_stops_the_serving_thread_at_once_however_rarely_it_polls() -> None:
    proxy = FilteringProxy(["example.com"])
    proxy.poll_interval = 3600.0  # it would look at its stop flag once an hour
    before = set(threading.enumerate())
    proxy.start()
    serving = [t for t in threading.enumerate() if t not in before and t.name == "hermes-proxy"]
    assert serving
    closing = threading.Thread(target=proxy.close, daemon=True)
    closing.start()
    closing.join(30)  # bounded: a close that waited for the poll would take an hour
    assert not closing.is_alive(), "close() waited for the serving thread's next poll"
    for thread in serving:
        thread.join(5)
    assert not any(t.is_alive() for t in serving)
    assert not proxy.socket_path.exists() and not proxy.socket_path.parent.exists()


def _ask(proxy: FilteringProxy, request: str) -> bytes:
    """The proxy's first answer to `request`, sent as a sandboxed command's client would."""
    import socket

    client = socket.socket(socket.AF_UNIX)
    client.settimeout(20)
    client.connect(str(proxy.socket_path))
    client.sendall(request.encode())
    answer = client.recv(4096)
    client.close()
    return answer


def _through(proxy: FilteringProxy, target: str) -> bytes:
    return _ask(proxy, f"GET http://{target}/ HTTP/1.1\r\nHost: {target}\r\n\r\n")


def test_the_hosts_own_loopback_is_reached_only_when_listed() -> None:
    """A5-9: the user's dev server on 127.0.0.1 is not a host a command is approved for; an
    IP literal or localhost is refused without a question (and logged as refused), a listed
    one goes through."""
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    reached: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            reached.append(connection.recv(100))
            connection.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    asked: list[str] = []
    proxy = FilteringProxy(["example.com"], ask=lambda host, _cmd: asked.append(host) or "once")
    listed = FilteringProxy(["127.0.0.1"])
    proxy.start()
    listed.start()
    try:
        for target in (f"127.0.0.1:{port}", f"0.0.0.0:{port}", f"localhost:{port}"):
            assert _through(proxy, target).startswith(b"HTTP/1.1 403"), target
        assert asked == [] and not reached
        assert _through(listed, f"127.0.0.1:{port}").startswith(b"HTTP/1.1 204")
        assert len(reached) == 1
        log = proxy.state.take_log()
        assert [(c.allowed, c.how) for c in log] == [(False, "local address")] * 3
    finally:
        proxy.close()
        listed.close()
        server.close()


def _connect(proxy: FilteringProxy, host: str) -> bytes:
    return _ask(proxy, f"CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n\r\n")


def test_publishing_hosts_and_gos_relays_ask_though_their_registries_are_listed() -> None:
    """A4-19: `twine upload` / `cargo publish` with a token from an injected text would put the
    workspace on a public registry, and Go's proxy fetches any origin a module path names (a
    relay for data in the path). With the default list and `pypi.org` listed by the user, each
    is put to the question (denied here: refused), while the registries' downloads go through."""
    from hermes_tui.core.tools.netproxy import host_allowed
    from hermes_tui.core.tools.sandbox_probe import DEFAULT_NETWORK_ALLOW

    asked: list[str] = []
    allow = [*DEFAULT_NETWORK_ALLOW, "pypi.org", "*.crates.io"]
    proxy = FilteringProxy(allow, ask=lambda host, _cmd: asked.append(host) or "deny")
    proxy.start()
    try:
        hosts = ["upload.pypi.org", "TEST.PYPI.ORG.", "crates.io", "proxy.golang.org"]
        hosts.append("sum.golang.org")
        for host in hosts:
            assert _connect(proxy, host).startswith(b"HTTP/1.1 403"), host
        assert asked == hosts
        assert all(not c.allowed for c in proxy.state.take_log())
    finally:
        proxy.close()
    downloads = ["pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "index.crates.io"]
    assert all(host_allowed(host, allow) for host in [*downloads, "static.crates.io"])
    # A user who means to publish from the sandbox lists the host itself.
    assert host_allowed("upload.pypi.org", [*allow, "upload.pypi.org"])


def _client_hello(name: str) -> bytes:
    """The first bytes Python's TLS client sends asking for `name` (no socket needed)."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=name)
    with contextlib.suppress(ssl.SSLWantReadError):  # no server: the hello is all it sends
        tls.do_handshake()
    return outgoing.read()


def test_a_tunnel_carries_tls_only_for_the_host_it_was_allowed_for() -> None:
    """A6-7: `CONNECT <listed>:443` then a TLS hello asking for upload.pypi.org (or anyone's
    site on the same CDN, whose addresses serve every customer by that name): the name in the
    hello is judged like the CONNECT name, asked (denied here) and the tunnel closed; a hello
    for the listed host itself goes through whole."""
    import socket

    upstream = socket.socket()
    upstream.bind(("127.0.0.1", 0))
    upstream.listen(4)
    received: list[bytes] = []

    def serve() -> None:
        for _ in range(2):
            peer, _ = upstream.accept()
            peer.settimeout(10)
            data = b""
            with contextlib.suppress(OSError):
                while chunk := peer.recv(65536):
                    data += chunk
            received.append(data)
            peer.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    asked: list[str] = []
    proxy = FilteringProxy(["localhost"], ask=lambda host, _cmd: asked.append(host) or "deny")
    proxy.start()
    try:
        for name in ("upload.pypi.org", "localhost"):
            client = socket.socket(socket.AF_UNIX)
            client.settimeout(20)
            client.connect(str(proxy.socket_path))
            port = upstream.getsockname()[1]
            client.sendall(f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n".encode())
            assert client.recv(4096).startswith(b"HTTP/1.1 200")
            client.sendall(_client_hello(name))
            client.shutdown(socket.SHUT_WR)
            with contextlib.suppress(OSError):
                while client.recv(4096):
                    pass
            client.close()
        server.join(20)
    finally:
        proxy.close()
        upstream.close()
    assert asked == ["upload.pypi.org"]
    assert received[0] == b""  # the tunnel closed before a byte of that session went up
    assert received[1].startswith(b"\x16\x03") and b"localhost" in received[1]  # the hello
    assert b"upload.pypi.org" not in b"".join(received)


def test_plain_http_carries_the_host_it_was_judged_for_not_the_clients_host_header() -> None:
    """A6-7's plain-HTTP half: `GET http://<allowed host>/` with `Host: other.example` would
    have a CDN in front of the allowed host serve (or relay to) another site. The request that
    leaves the proxy names the URL's host, once; a `Host :` spelling is dropped too, and a
    header folded onto the next line is refused."""
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received: list[list[str]] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                head += chunk
            received.append(head.decode("latin-1").split("\r\n"))
            connection.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    proxy = FilteringProxy(["127.0.0.1"])
    proxy.start()
    url = f"http://127.0.0.1:{port}/simple/"
    try:
        for trick in ("Host: evil.example", "host:evil.example"):
            request = (
                f"GET {url} HTTP/1.1\r\n{trick}\r\nAccept: */*\r\nProxy-Authorization: x\r\n\r\n"
            )
            assert _ask(proxy, request).startswith(b"HTTP/1.1 204"), trick
        for refused in (
            f"GET {url} HTTP/1.1\r\nAccept: */*\r\n Host: evil.example\r\n\r\n",  # folded
            f"GET {url} HTTP/1.1\r\nHost : evil.example\r\n\r\n",  # space before the colon
            f"GET {url} HTTP/1.1\nHost: evil.example\r\n\r\n",  # a bare LF (A7-2)
            f"GET {url} HTTP/1.1\r\nAccept: */*\rHost: evil.example\r\n\r\n",  # a bare CR
            f"GET {url} HTTP/1.1 x\r\n\r\n",
            f"GET http://127.0.0.1@evil.example:{port}/ HTTP/1.1\r\n\r\n",
        ):
            assert _ask(proxy, refused).startswith(b"HTTP/1.1 400"), refused
    finally:
        proxy.close()
        server.close()
    assert len(received) == 2
    for lines in received:
        assert lines[0] == "GET /simple/ HTTP/1.1"
        hosts = [line for line in lines if line.partition(":")[0].strip().lower() == "host"]
        assert hosts == [f"Host: 127.0.0.1:{port}"]
        assert "Accept: */*" in lines and "Connection: close" in lines
        assert not any(
            "evil.example" in line or line.lower().startswith("proxy-") for line in lines
        )
