"""How the SDKs' HTTP client reaches a model server, every read of it watched: made in short
slices that a cancel stops at once, under the first-byte limit (core/llm/watch.py).

`sdk_http_client` builds the SDK's client. For a server that speaks plain http (a local model
server: Ollama, llama.cpp, vLLM, the loopback test server) with no proxy in the environment,
its http:// transport is our own HTTP/1.1 one on h11 (core/llm/plain_http.py) instead of
httpcore2's connection pool, whose import (51 modules, ~1.4 MiB and ~20 ms above h11's own)
a one-shot turn then never pays; its https:// transport, the SDK's usual verifying one, and the system
trust store it loads (1.6 MiB of peak memory, about 30 ms), are made on the first https
request (a redirect), never otherwise. Every other client (an https server, a proxy) is the
SDK's own, its connection pools' network backends swapped for watched ones (`install`): the
one place that reaches under httpx2 (tests/core/llm/test_transport.py fails loudly if that
stops working).
"""

from __future__ import annotations

import threading
import urllib.request
from typing import Any


def install(http_client: Any, *, first_byte_timeout: float | None) -> Any:
    """Watch every connection `http_client` (an httpx2.Client) makes, proxies' included."""
    transports = [http_client._transport, *filter(None, http_client._mounts.values())]
    for transport in transports:
        if not getattr(transport, "watches_its_own", False):
            _watch(transport, first_byte_timeout)
    return http_client


def _watch(transport: Any, first_byte_timeout: float | None) -> None:
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(
            f"httpx2 changed: {type(transport).__name__} has no connection pool with a "
            "network backend; cancelling a blocked read needs core/llm/transport.py updated"
        )
    from hermes_tui.core.llm.watch import WatchedBackend

    pool._network_backend = WatchedBackend(pool._network_backend, first_byte_timeout)


def sdk_http_client(sdk: Any, base_url: str | None, *, first_byte_timeout: float | None) -> Any:
    """The `openai` / `anthropic` SDK's default httpx2 client (`sdk.DefaultHttpxClient`), every
    connection watched.

    With a plain-http base URL and no proxy in the environment, its http:// transport is
    `PlainHTTPTransport` (no TLS, no SSL context, no httpcore2) and every https:// URL goes to
    the mounted `_TLSOnFirstUse`, which builds the SDK's usual verifying transport when first
    asked. A proxy in the environment keeps the SDK's client as it is: httpx2 reads the
    environment's proxies only when no transport is given.
    """
    proxies = urllib.request.getproxies()
    plain = (base_url or "").lower().startswith("http://")
    if not plain or any(proxies.get(scheme) for scheme in ("http", "https", "all")):
        return install(sdk.DefaultHttpxClient(), first_byte_timeout=first_byte_timeout)
    from hermes_tui.core.llm.plain_http import PlainHTTPTransport

    limits = sdk.DEFAULT_CONNECTION_LIMITS
    return sdk.DefaultHttpxClient(
        transport=PlainHTTPTransport(limits, first_byte_timeout),
        mounts={"https://": _TLSOnFirstUse(limits, first_byte_timeout)},
    )


class _TLSOnFirstUse:
    """The https:// transport of a plain-http client: the SDK's default one (system trust
    store, SSL_CERT_FILE honoured), built and watched on its first request."""

    watches_its_own = True

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
