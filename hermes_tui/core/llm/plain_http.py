"""The SDKs' http:// transport for a model server at a plain-http URL: HTTP/1.1 on h11 alone.

A local model server (Ollama, llama.cpp, vLLM) speaks plain http. For it, the SDK's client is
given this transport instead of httpcore2's connection pool (core/llm/transport.py), so a turn
never imports httpcore2 (51 modules: its async half, anyio's backends, truststore). Measured
after `import openai`: h11 alone 0.3 MiB and 10 ms of CPU, httpcore2 1.4 MiB and ~20 ms more;
bench/oneshot.py's turn peaks 1.2 MiB lower.

It does what httpcore2's pool does for such a server, as httpcore2 does it: one request at a
time on a connection; keep-alive (a connection whose exchange ended cleanly is kept, up to the
limits' `max_keepalive_connections` for `keepalive_expiry` seconds, and is not reused once the
server has closed it or sent anything unasked); chunked, content-length and close-delimited
bodies, read as they arrive (a streamed reply's tokens are handed on as each piece comes); an
error while writing the request is passed over so that the server's early answer is read; the
same httpx2 errors with the same words for a refused or timed-out connect, a reset, a server
gone before answering or mid-body, and bytes that are not HTTP. Every read is a `WatchedStream`'s
(core/llm/watch.py): a cancel closes the socket at once, and the first-byte limit holds.
What it does not do: pool limits on concurrent connections (the SDKs allow 1000), proxies (a
proxy in the environment keeps the SDK's own client), TLS (https:// goes to another transport).
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import h11
import httpx2

from hermes_tui.core.llm.watch import WatchedStream

READ_BYTES = 64 * 1024  # one read's most, as httpcore2 reads
MAX_HEADER_BYTES = 100 * 1024  # the longest response head h11 waits for (httpcore2's limit)


class _Socket:
    """A connected socket with httpcore2's network-stream interface and httpx2's errors."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            self._sock.settimeout(timeout)
            return self._sock.recv(max_bytes)
        except TimeoutError as exc:
            raise httpx2.ReadTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpx2.ReadError(str(exc)) from exc

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        try:
            while view:
                self._sock.settimeout(timeout)
                view = view[self._sock.send(view) :]
        except TimeoutError as exc:
            raise httpx2.WriteTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpx2.WriteError(str(exc)) from exc

    def close(self) -> None:
        self._sock.close()

    def readable(self) -> bool:
        """Whether a read would return at once: on an idle connection, the server closed it
        (or sent something unasked); either way it is not to be reused."""
        fd = self._sock.fileno()
        if fd < 0:
            return True
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        return bool(poll.poll(0))


class _Connection:
    """One HTTP/1.1 connection to an origin, carrying one exchange at a time."""

    def __init__(self, origin: tuple[bytes, int], sock: socket.socket, first_byte: float | None):
        self.origin = origin
        self._socket = _Socket(sock)
        self._stream = WatchedStream(self._socket, first_byte)
        self._h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEADER_BYTES)
        self.expires_at: float | None = None  # while idle

    def send(self, request: httpx2.Request) -> h11.Response | h11.InformationalResponse:
        """Write the request and read the response's head; on any failure the connection is
        closed before the error is raised."""
        timeouts = request.extensions.get("timeout", {})
        try:
            try:
                write = timeouts.get("write")
                self._send(self._head(request), write)
                for chunk in request.stream:  # type: ignore[union-attr]
                    self._send(h11.Data(data=chunk), write)
                self._send(h11.EndOfMessage(), write)
            except httpx2.WriteError:
                pass  # the server may have answered early and closed: read what it said
            while True:
                event = self.next_event(timeouts.get("read"))
                if isinstance(event, h11.Response):
                    return event
                if isinstance(event, h11.InformationalResponse) and event.status_code == 101:
                    return event
        except BaseException:
            self.close()
            raise

    def _head(self, request: httpx2.Request) -> h11.Request:
        try:
            return h11.Request(
                method=request.method, target=request.url.raw_path, headers=request.headers.raw
            )
        except h11.LocalProtocolError as exc:  # a header h11 will not write (CR, LF, NUL...)
            raise httpx2.LocalProtocolError(str(exc)) from exc

    def _send(self, event: Any, timeout: float | None) -> None:
        data = self._h11.send(event)
        if data:
            self._stream.write(data, timeout)

    def next_event(self, timeout: float | None) -> Any:
        while True:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx2.RemoteProtocolError(str(exc)) from exc
            if event is not h11.NEED_DATA:
                return event
            data = self._stream.read(READ_BYTES, timeout)
            if data == b"" and self._h11.their_state == h11.SEND_RESPONSE:
                raise httpx2.RemoteProtocolError("Server disconnected without sending a response.")
            self._h11.receive_data(data)

    def finish(self) -> bool:
        """After a response was closed: True (and ready for the next request) when both sides
        ended their message cleanly and the connection may be kept."""
        if self._h11.our_state is h11.DONE and self._h11.their_state is h11.DONE:
            self._h11.start_next_cycle()
            return True
        return False

    def reusable(self, now: float) -> bool:
        expired = self.expires_at is not None and now > self.expires_at
        return not expired and not self._socket.readable()

    def close(self) -> None:
        self._socket.close()


class _Body(httpx2.SyncByteStream):
    """A response's body, read from the connection as the server sends it."""

    def __init__(self, transport: PlainHTTPTransport, connection: _Connection, read: Any) -> None:
        self._transport = transport
        self._connection = connection
        self._read_timeout = read
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            while True:
                event = self._connection.next_event(self._read_timeout)
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, (h11.EndOfMessage, h11.PAUSED)):
                    break
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._transport._release(self._connection)


class PlainHTTPTransport(httpx2.BaseTransport):
    """An httpx2 transport for http:// URLs, every read watched (core/llm/watch.py)."""

    watches_its_own = True  # transport.install leaves it as it is

    def __init__(self, limits: httpx2.Limits, first_byte_timeout: float | None) -> None:
        self._first_byte_timeout = first_byte_timeout
        self._keepalive = limits.max_keepalive_connections
        self._expiry = limits.keepalive_expiry
        self._lock = threading.Lock()
        self._idle: list[_Connection] = []  # the most recently used last
        self._active: set[_Connection] = set()
        self._closed = False

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        if url.raw_scheme != b"http":
            raise httpx2.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{url.scheme}://'."
            )
        origin = (url.raw_host, url.port or 80)
        timeouts = request.extensions.get("timeout", {})
        connection = self._reuse(origin) or self._connect(origin, timeouts.get("connect"))
        with self._lock:
            self._active.add(connection)
        try:
            head = connection.send(request)
        except BaseException:
            with self._lock:
                self._active.discard(connection)
            raise
        return httpx2.Response(
            status_code=head.status_code,
            headers=head.headers.raw_items(),
            stream=_Body(self, connection, timeouts.get("read")),
            extensions={"http_version": b"HTTP/" + head.http_version, "reason_phrase": head.reason},
        )

    def _reuse(self, origin: tuple[bytes, int]) -> _Connection | None:
        now = time.monotonic()
        with self._lock:
            for connection in [c for c in reversed(self._idle) if c.origin == origin]:
                self._idle.remove(connection)
                if connection.reusable(now):
                    return connection
                connection.close()
        return None

    def _connect(self, origin: tuple[bytes, int], timeout: float | None) -> _Connection:
        try:
            # The host as bytes: getaddrinfo would pass a str through the idna codec, which
            # imports encodings.idna and stringprep to leave an ASCII name as it is.
            sock = socket.create_connection(origin, timeout)  # type: ignore[arg-type]
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except TimeoutError as exc:
            raise httpx2.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpx2.ConnectError(str(exc)) from exc
        return _Connection(origin, sock, self._first_byte_timeout)

    def _release(self, connection: _Connection) -> None:
        with self._lock:
            self._active.discard(connection)
            room = self._keepalive is None or len(self._idle) < self._keepalive
            if room and not self._closed and connection.finish():
                if self._expiry is not None:
                    connection.expires_at = time.monotonic() + self._expiry
                self._idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections = [*self._idle, *self._active]
            self._idle.clear()
            self._active.clear()
        for connection in connections:
            connection.close()
