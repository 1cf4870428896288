"""The sockets under the SDKs' HTTP client: reads that a cancel can stop at once, a limit on the
wait for the first byte, and a report of how long the server has been silent.

A blocked read cannot be interrupted from outside, so reads are made in short slices; between
slices the read checks the turn's cancel event (closing the connection and raising when it is
set), the first-byte and read deadlines, and tells `on_wait` how long the server has said
nothing. What a read checks comes from the calling thread's `call_scope`, so a background
review's calls and the main turn's, on one client, each answer to their own cancel.

This is the one place that reaches under the `openai` / `anthropic` SDKs: it swaps the network
backend of their `httpx2` client's connection pools (`install`), which httpx2 does not expose.
`tests/core/llm/test_transport.py` fails loudly if that stops working.

Invariants: without a scope a read behaves exactly as httpcore2's; a cancelled read closes its
socket before raising, so the server sees the connection go at once; the first-byte clock runs
from the last write of a request to the first byte read back.

`sdk_http_client` builds the SDK's client. For a server that speaks plain http (a local model
server) it defers TLS: the client's https:// transport, and the system trust store it loads
(measured: 1.6 MiB of peak memory and about 30 ms of a cold `chat -q`), are made on the first
https request (a redirect), never otherwise.
"""

from __future__ import annotations

import contextlib
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import httpcore2

from hermes_tui.core.records import datarecord

SLICE = 0.05  # seconds a read blocks before it looks at the cancel event again
WAIT_REPORT_AFTER = 1.0  # silence shorter than this is not worth showing


class CancelledRead(httpcore2.ReadError):
    """The user cancelled while a read was waiting; the connection is already closed."""


@datarecord
class CallScope:
    """What a provider call's reads answer to: the turn's cancel and a silence report."""

    cancel: threading.Event | None = None
    # Told each whole second (from WAIT_REPORT_AFTER on) that the server has been silent so
    # long, and 0.0 when it speaks again after that.
    on_wait: Callable[[float], None] | None = None


_local = threading.local()


@contextlib.contextmanager
def call_scope(scope: CallScope) -> Iterator[None]:
    """Reads made by this thread inside the block answer to `scope`."""
    previous = getattr(_local, "scope", None)
    _local.scope = scope
    try:
        yield
    finally:
        _local.scope = previous


def _current() -> CallScope | None:
    return getattr(_local, "scope", None)


class WatchedStream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream, first_byte_timeout: float | None) -> None:
        self._inner = inner
        self._first_byte_timeout = first_byte_timeout
        self._sent_at: float | None = None  # a request was written and nothing read back yet

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)
        self._sent_at = time.monotonic()

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        scope = _current()
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
                raise httpcore2.ReadTimeout(f"nothing from the server within {limit}")
            step = SLICE if deadline is None else min(SLICE, deadline - now)
            try:
                return self._inner.read(max_bytes, step)
            except httpcore2.ReadTimeout:
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
    ) -> httpcore2.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, timeout)
        return WatchedStream(inner, self._first_byte_timeout)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class WatchedBackend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend, first_byte_timeout: float | None) -> None:
        self._inner = inner
        self.first_byte_timeout = first_byte_timeout

    def connect_tcp(self, host: str, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        stream = self._inner.connect_tcp(_resolvable(host), *args, **kwargs)
        return WatchedStream(stream, self.first_byte_timeout)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        stream = self._inner.connect_unix_socket(*args, **kwargs)
        return WatchedStream(stream, self.first_byte_timeout)

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


def install(http_client: Any, *, first_byte_timeout: float | None) -> Any:
    """Watch every connection `http_client` (an httpx2.Client) makes, proxies' included."""
    transports = [http_client._transport, *filter(None, http_client._mounts.values())]
    for transport in transports:
        if not isinstance(transport, _TLSOnFirstUse):  # it watches its own when made
            _watch(transport, first_byte_timeout)
    return http_client


def _watch(transport: Any, first_byte_timeout: float | None) -> None:
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(
            f"httpx2 changed: {type(transport).__name__} has no connection pool with a "
            "network backend; cancelling a blocked read needs core/llm/transport.py updated"
        )
    pool._network_backend = WatchedBackend(pool._network_backend, first_byte_timeout)


def sdk_http_client(sdk: Any, base_url: str | None, *, first_byte_timeout: float | None) -> Any:
    """The `openai` / `anthropic` SDK's default httpx2 client (`sdk.DefaultHttpxClient`), every
    connection watched (`install`).

    With a plain-http base URL and no proxy in the environment, its own transport makes no SSL
    context at all (~0.5 MiB of a one-shot turn's peak): it never speaks TLS, every https://
    URL goes to the mounted `_TLSOnFirstUse`, which builds the SDK's usual verifying transport
    when first asked. httpx2 hands `verify` to the connection pool as its context when it is
    neither a bool nor a path, None included, and a pool without one would make httpcore2's
    default verifying context if it ever started TLS (tests/core/llm/test_transport.py).
    A proxy in the environment keeps the SDK's client as it is: httpx2 reads the environment's
    proxies only when no transport is given.
    """
    proxies = urllib.request.getproxies()
    plain = (base_url or "").lower().startswith("http://")
    if not plain or any(proxies.get(scheme) for scheme in ("http", "https", "all")):
        return install(sdk.DefaultHttpxClient(), first_byte_timeout=first_byte_timeout)
    import httpx2

    limits = sdk.DEFAULT_CONNECTION_LIMITS
    client = sdk.DefaultHttpxClient(
        transport=httpx2.HTTPTransport(verify=None, limits=limits),  # type: ignore[arg-type]
        mounts={"https://": _TLSOnFirstUse(limits, first_byte_timeout)},
    )
    return install(client, first_byte_timeout=first_byte_timeout)


class _TLSOnFirstUse:
    """The https:// transport of a plain-http client: the SDK's default one (system trust
    store, SSL_CERT_FILE honoured), built and watched on its first request."""

    def __init__(self, limits: Any, first_byte_timeout: float | None) -> None:
        self._limits = limits
        self._first_byte_timeout = first_byte_timeout
        self._lock = threading.Lock()
        self.inner: Any = None

    def _transport(self) -> Any:
        with self._lock:
            if self.inner is None:
                import httpx2

                inner = httpx2.HTTPTransport(limits=self._limits)
                _watch(inner, self._first_byte_timeout)
                self.inner = inner
            return self.inner

    def handle_request(self, request: Any) -> Any:
        return self._transport().handle_request(request)

    def close(self) -> None:
        with self._lock:
            inner = self.inner
        if inner is not None:
            inner.close()

    def __enter__(self) -> _TLSOnFirstUse:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
