"""A connection's reads made in short slices, so that a cancel stops a blocked read at once.

A blocked read cannot be interrupted from outside, so `WatchedStream` reads in slices of
`SLICE` seconds; between slices it checks the turn's cancel event (closing the connection and
raising `CancelledRead` when it is set), the first-byte and read deadlines, and tells `on_wait`
how long the server has said nothing. What a read checks comes from the calling thread's
`call_scope` (core/llm/scope.py).

It wraps either of the two ways a model server is reached: a socket of our own plain-http
transport (core/llm/plain_http.py), or httpcore2's network stream under the SDK's client
(`WatchedBackend`, swapped into its connection pool by `transport.install`). Either way it
raises httpx2's own exceptions, which httpx2 passes through its mapping of httpcore2's
unchanged, so the SDKs see the same errors on both paths.

Invariants: without a scope, and with no request awaiting its first byte, a read is the inner
stream's own; a cancelled read closes its socket before raising, so the server sees the
connection go at once; the first-byte clock runs from the last write of a request to the first
byte read back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx2

from hermes_tui.core.llm.scope import CallScope, current_scope

SLICE = 0.05  # seconds a read blocks before it looks at the cancel event again
WAIT_REPORT_AFTER = 1.0  # silence shorter than this is not worth showing


class CancelledRead(httpx2.ReadError):
    """The user cancelled while a read was waiting; the connection is already closed."""


class WatchedStream:
    """A network stream (httpcore2's interface: read, write, close) whose reads are watched.

    `slice_timeout` is the exception the inner stream raises when a read's timeout passes."""

    def __init__(
        self,
        inner: Any,
        first_byte_timeout: float | None,
        slice_timeout: type[BaseException] = httpx2.ReadTimeout,
    ) -> None:
        self._inner = inner
        self._first_byte_timeout = first_byte_timeout
        self._slice_timeout = slice_timeout
        self._sent_at: float | None = None  # a request was written and nothing read back yet

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)
        self._sent_at = time.monotonic()

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        scope = current_scope()
        if scope is None and self._sent_at is None:
            return self._inner.read(max_bytes, timeout)
        on_wait = scope.on_wait if scope is not None else None
        reported = [0]  # the last whole second of silence told to on_wait
        try:
            data = self._read(max_bytes, timeout, scope, on_wait, reported)
        finally:
            if reported[0] and on_wait is not None:
                on_wait(0.0)  # the wait is over, whichever way it ended
        self._sent_at = None
        return data

    def _read(
        self,
        max_bytes: int,
        timeout: float | None,
        scope: CallScope | None,
        on_wait: Callable[[float], None] | None,
        reported: list[int],
    ) -> bytes:
        started = time.monotonic()
        deadline = started + timeout if timeout is not None else None
        limit = f"{timeout:g}s (read timeout)" if timeout is not None else ""
        if self._sent_at is not None and self._first_byte_timeout is not None:
            first_byte = self._sent_at + self._first_byte_timeout
            if deadline is None or first_byte < deadline:
                deadline = first_byte
                limit = f"{self._first_byte_timeout:g}s (first-byte timeout)"
        silent_since = self._sent_at if self._sent_at is not None else started
        while True:
            if scope is not None and scope.cancel is not None and scope.cancel.is_set():
                self.close()
                raise CancelledRead("cancelled by the user")
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                raise httpx2.ReadTimeout(f"nothing from the server within {limit}")
            step = SLICE if deadline is None else min(SLICE, deadline - now)
            try:
                return self._inner.read(max_bytes, step)
            except self._slice_timeout:
                whole = int(time.monotonic() - silent_since)
                if on_wait is not None and whole >= WAIT_REPORT_AFTER and whole > reported[0]:
                    on_wait(float(whole))
                    reported[0] = whole

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> WatchedStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, timeout)
        return WatchedStream(inner, self._first_byte_timeout, self._slice_timeout)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class WatchedBackend:
    """httpcore2's network backend (its interface), every connection it makes watched."""

    def __init__(self, inner: Any, first_byte_timeout: float | None) -> None:
        import httpcore2  # only the SDK's own client, whose pool is httpcore2's, gets here

        self._inner = inner
        self._slice_timeout = httpcore2.ReadTimeout
        self.first_byte_timeout = first_byte_timeout

    def connect_tcp(self, host: str, *args: Any, **kwargs: Any) -> WatchedStream:
        stream = self._inner.connect_tcp(_resolvable(host), *args, **kwargs)
        return WatchedStream(stream, self.first_byte_timeout, self._slice_timeout)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> WatchedStream:
        stream = self._inner.connect_unix_socket(*args, **kwargs)
        return WatchedStream(stream, self.first_byte_timeout, self._slice_timeout)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _resolvable(host: Any) -> Any:
    """An ASCII host name as the bytes the socket resolves. Given a str, `getaddrinfo` encodes
    it with the idna codec, which imports `encodings.idna` and `stringprep` (~0.1 MiB of a
    one-shot turn's peak and ~10 ms) to leave an ASCII name as it is; a name with other
    letters still goes through it."""
    if isinstance(host, str) and host.isascii():
        return host.encode("ascii")
    return host
