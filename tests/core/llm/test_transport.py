"""Cancelling a blocked read, the first-byte limit and the silence reports, through the real SDKs
against the loopback server (core/llm/transport.py, watch.py), on both ways a server is
reached: our plain-http transport (core/llm/plain_http.py) and, through a proxy in the
environment, the SDK's own client on httpcore2."""

from __future__ import annotations

import ssl
import threading
import time
from typing import Any

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.anthropic import AnthropicProvider
from hermes_tui.core.llm.base import ProviderError, TextChunk
from hermes_tui.core.llm.openai_compat import OpenAICompatProvider
from hermes_tui.core.llm.plain_http import PlainHTTPTransport
from hermes_tui.core.llm.retry import Cancelled, RetryPolicy, stream_with_retries
from hermes_tui.core.llm.watch import WatchedBackend
from hermes_tui.core.messages import Message

POLICY = RetryPolicy(max_retries=3, base_delay=0.001, max_delay=0.01)
BOUND = 10.0  # seconds: every wait here is bounded; this is far above what any step needs


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


def no_proxies(monkeypatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def _provider(kind: str, llm: FakeLLM, **settings: Any):
    if kind == "anthropic":
        return AnthropicProvider(
            api_key="k", model="fake-model", base_url=llm.anthropic_url, **settings
        )
    return OpenAICompatProvider(
        api_key="k", model="fake-model", base_url=llm.openai_url, **settings
    )


class Call:
    """One retried provider call on a thread, as the agent loop makes it."""

    def __init__(self, provider, cancel: threading.Event | None = None) -> None:
        self.cancel = cancel or threading.Event()
        self.events: list = []
        self.retries: list = []
        self.waits: list[float] = []
        self.error: BaseException | None = None
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(provider,), daemon=True)
        self.thread.start()

    def _run(self, provider) -> None:
        try:
            for event in stream_with_retries(
                provider,
                "s",
                [Message("user", "hi")],
                [],
                POLICY,
                cancel=self.cancel,
                on_retry=lambda *args: self.retries.append(args),
                on_wait=self.waits.append,
            ):
                self.events.append(event)
        except BaseException as exc:  # noqa: BLE001 - handed to the test to assert on
            self.error = exc
        finally:
            self.ended.set()

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextChunk))


def proxied(kind: str, llm: FakeLLM, monkeypatch, **settings: Any):
    """A provider whose client is the SDK's own on httpcore2: the loopback server, which
    answers a proxy's absolute-form requests as any other, is its HTTP proxy."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{llm.port}")
    provider = _provider(kind, llm, **settings)
    monkeypatch.delenv("HTTP_PROXY")
    mounted = [t for t in provider._client._client._mounts.values() if t is not None]
    assert any(isinstance(t._pool._network_backend, WatchedBackend) for t in mounted)
    return provider


PATHS = [("openai", "plain"), ("anthropic", "plain"), ("openai", "proxied")]


def _reached(kind: str, path: str, llm: FakeLLM, monkeypatch, **settings: Any):
    no_proxies(monkeypatch)
    if path == "proxied":
        return proxied(kind, llm, monkeypatch, **settings)
    provider = _provider(kind, llm, **settings)
    assert isinstance(provider._client._client._transport, PlainHTTPTransport)
    return provider


def test_the_sdk_clients_connections_are_watched(monkeypatch) -> None:
    """The one reach under the SDKs: if httpx2 changes, this fails before users' cancels do."""
    no_proxies(monkeypatch)
    for kind in ("openai", "anthropic"):
        provider = OpenAICompatProvider(api_key="k", model="m", base_url="https://api.example/v1")
        if kind == "anthropic":
            provider = AnthropicProvider(api_key="k", model="m", base_url="https://api.example")
        http_client = provider._client._client
        assert isinstance(http_client._transport._pool._network_backend, WatchedBackend)


@pytest.mark.parametrize(("kind", "path"), PATHS)
def test_cancel_closes_a_connection_hung_before_the_headers_and_does_not_retry(
    kind: str, path: str, monkeypatch
) -> None:
    with FakeLLM() as llm:
        llm.script(Reply(fault="hang"))
        call = Call(_reached(kind, path, llm, monkeypatch))
        assert llm.hanging.wait(BOUND)
        cancelled_at = time.monotonic()
        call.cancel.set()
        assert call.ended.wait(BOUND)
        ended_at = time.monotonic()
        deadline = time.monotonic() + BOUND
        while not llm.hang_closed and time.monotonic() < deadline:
            time.sleep(0.01)
    assert isinstance(call.error, Cancelled)
    assert call.retries == [] and len(llm.requests) == 1
    assert llm.hang_closed, "the server never saw the connection close"
    # Recorded, not asserted as a time (bench/cancel.py measures it): both are well under 120 s.
    assert ended_at - cancelled_at < BOUND and llm.hang_closed[0] - cancelled_at < BOUND


@pytest.mark.parametrize(("kind", "path"), PATHS)
def test_cancel_mid_stream_keeps_what_streamed_and_closes_the_connection(
    kind: str, path: str, monkeypatch
) -> None:
    with FakeLLM() as llm:
        llm.script(
            Reply(
                text="The first half arrives and then the server hangs for good.",
                fault="hang_mid_stream",
            )
        )
        call = Call(_reached(kind, path, llm, monkeypatch))
        assert llm.hanging.wait(BOUND)
        deadline = time.monotonic() + BOUND
        while not call.text and time.monotonic() < deadline:
            time.sleep(0.01)
        call.cancel.set()
        assert call.ended.wait(BOUND)
        deadline = time.monotonic() + BOUND
        while not llm.hang_closed and time.monotonic() < deadline:
            time.sleep(0.01)
    assert isinstance(call.error, Cancelled), repr(call.error)
    assert call.text and "The first half arrives".startswith(call.text[:10]), call.text
    assert call.retries == [] and len(llm.requests) == 1
    assert llm.hang_closed


@pytest.mark.parametrize("path", ["plain", "proxied"])
def test_a_server_silent_past_the_first_byte_limit_is_retried_and_reported_while_waiting(
    path: str, monkeypatch
) -> None:
    with FakeLLM() as llm:
        llm.script(Reply(fault="hang"), Reply(text="second try"))
        call = Call(_reached("openai", path, llm, monkeypatch, first_byte_timeout=1.3))
        assert call.ended.wait(BOUND)
    assert call.error is None and call.text == "second try"
    ((error, attempt, _),) = call.retries
    assert isinstance(error, ProviderError) and error.retryable and attempt == 1
    assert "first-byte timeout" in error.user_message()
    assert call.waits == [1.0, 0.0]  # a second of silence reported, then its end


@pytest.mark.parametrize("path", ["plain", "proxied"])
def test_a_stream_silent_past_model_timeout_fails_after_the_retries(path: str, monkeypatch) -> None:
    with FakeLLM() as llm:
        llm.script(*[Reply(text="some text, then silence", fault="hang_mid_stream")] * 2)
        provider = _reached("openai", path, llm, monkeypatch, timeout=0.4)
        events: list = []
        with pytest.raises(ProviderError) as caught:
            for event in stream_with_retries(
                provider, "s", [Message("user", "hi")], [], RetryPolicy(max_retries=1, base_delay=0)
            ):
                events.append(event)
    assert caught.value.retryable and len(llm.requests) == 2
    assert "read timeout" in caught.value.user_message()


def _ca_count(context: ssl.SSLContext) -> int:
    return context.cert_store_stats()["x509_ca"]


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_plain_http_server_loads_no_trust_store_until_an_https_request(
    kind: str, monkeypatch
) -> None:
    """A local model server speaks http: its client verifies https like any other, but makes
    an SSL context, and loads the system's CA bundle (megabytes, tens of milliseconds), only
    when an https URL comes."""
    import httpcore2
    import httpx2

    no_proxies(monkeypatch)
    system = _ca_count(httpcore2.default_ssl_context())
    with FakeLLM(default=Reply(text="over http")) as llm:
        provider = _provider(kind, llm)
        http_client = provider._client._client
        assert isinstance(http_client._transport, PlainHTTPTransport)  # no TLS, no SSL context
        (deferred,) = [t for t in http_client._mounts.values() if t is not None]
        assert Call(provider).ended.wait(BOUND)
        assert deferred.inner is None, "a plain-http turn made the https transport"
        with pytest.raises(httpx2.ConnectError):  # nothing listens there; TLS never starts
            http_client.get("https://127.0.0.1:9/")
        context = deferred.inner._pool._ssl_context
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
        assert _ca_count(context) == system
        assert isinstance(deferred.inner._pool._network_backend, WatchedBackend)


def test_an_https_server_or_a_proxy_keeps_the_sdks_own_client(monkeypatch) -> None:
    """httpx2 reads the environment's proxies only when given no transport: with one set, a
    plain-http server's client is the SDK's own, as is every https server's."""
    import httpcore2

    no_proxies(monkeypatch)
    system = _ca_count(httpcore2.default_ssl_context())
    https = OpenAICompatProvider(api_key="k", model="m", base_url="https://api.example/v1")
    assert _ca_count(https._client._client._transport._pool._ssl_context) == system
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    proxied = OpenAICompatProvider(api_key="k", model="m", base_url="http://127.0.0.1:8/v1")
    http_client = proxied._client._client
    assert _ca_count(http_client._transport._pool._ssl_context) == system
    assert any(t is not None for t in http_client._mounts.values()), "the proxy is in use"
    assert not any(type(t).__name__ == "_TLSOnFirstUse" for t in http_client._mounts.values())
