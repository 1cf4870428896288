"""Our HTTP/1.1 transport for plain-http model servers (core/llm/plain_http.py), through the real
SDKs: the same replies, errors and messages as the SDK's own client on httpcore2 (reached here
through a proxy in the environment), keep-alive, every way a body is framed, read as it comes."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

import pytest
from fakes.llm_server import FakeLLM, Reply, openai_frames, openai_json
from test_transport import BOUND, _provider, _reached, no_proxies

from hermes_tui.core.llm.base import ProviderError, TextChunk
from hermes_tui.core.llm.openai_compat import OpenAICompatProvider
from hermes_tui.core.llm.retry import RetryPolicy, stream_with_retries
from hermes_tui.core.messages import Message

ONCE = RetryPolicy(max_retries=0)


def _turn(provider) -> list:
    return list(stream_with_retries(provider, "s", [Message("user", "hi")], [], ONCE))


def _text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def _failure(provider) -> str:
    with pytest.raises(ProviderError) as caught:
        _turn(provider)
    return caught.value.user_message()


class RawServer:
    """A loopback server that answers each request with `answer(index, connection)`: bytes as
    written, whatever HTTP framing (or none) they hold. Records each request's head and the
    connection (its number) it came on."""

    def __init__(self, answer: Callable[[int, socket.socket], None]) -> None:
        self.answer = answer
        self.heads: list[bytes] = []
        self.connections: list[int] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._listener.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            self._accepted += 1
            number = self._accepted
            threading.Thread(target=self._handle, args=(connection, number), daemon=True).start()

    def _handle(self, connection: socket.socket, number: int) -> None:
        connection.settimeout(BOUND)
        pending = b""
        with connection:
            while True:
                while b"\r\n\r\n" not in pending:
                    data = connection.recv(65536)
                    if not data:
                        return
                    pending += data
                head, pending = pending.split(b"\r\n\r\n", 1)
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(pending) < length:
                    pending += connection.recv(65536)
                pending = pending[length:]
                self.heads.append(head)
                self.connections.append(number)
                try:
                    self.answer(len(self.heads) - 1, connection)
                except OSError:
                    return


def sse(text: str) -> bytes:
    return "".join(openai_frames(Reply(text=text))).encode()


def chunked(body: bytes, size: int = 7) -> bytes:
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"


# Each fault, answered by the loopback server; the message the user reads must be the same
# whichever way the server was reached (and the same as before this transport existed).
FAULTS = {
    "429": Reply(fault="429", retry_after="0"),
    "500": Reply(fault="500"),
    "401": Reply(fault="401"),
    "garbage": Reply(text="hello there", fault="garbage"),
    "cut": Reply(text="a reply the server cuts half way through", fault="cut"),
    "error_frame": Reply(text="some text", fault="error_frame"),
    "json_body": Reply(text="a whole reply", quirks=frozenset({"json_body"})),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_fault_reads_the_same_on_our_transport_as_on_httpcore2(
    kind: str, fault: str, monkeypatch
) -> None:
    said: dict[str, Any] = {}
    with FakeLLM() as llm:
        for path in ("plain", "proxied"):
            llm.script(FAULTS[fault])
            provider = _reached(kind, path, llm, monkeypatch)
            if fault == "json_body":
                said[path] = _text(_turn(provider))
            else:
                said[path] = _failure(provider)
    assert said["plain"] == said["proxied"], said
    assert said["plain"]


@pytest.mark.parametrize(
    ("what", "settings", "reply"),
    [
        ("first-byte", {"first_byte_timeout": 0.3}, Reply(fault="hang", hang_seconds=5)),
        ("read", {"timeout": 0.3}, Reply(text="then silence", fault="hang_mid_stream")),
    ],
)
def test_a_timeout_reads_the_same_on_both(what: str, settings: dict, reply: Reply, monkeypatch):
    said = {}
    with FakeLLM() as llm:
        for path in ("plain", "proxied"):
            llm.script(reply)
            said[path] = _failure(_reached("openai", path, llm, monkeypatch, **settings))
    assert said["plain"] == said["proxied"]
    assert f"{what} timeout" in said["plain"], said


def test_a_refused_connection_reads_the_same_on_both(monkeypatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        dead = closed.getsockname()[1]  # nothing listens once it is closed
    url = f"http://127.0.0.1:{dead}/v1"
    no_proxies(monkeypatch)
    plain = OpenAICompatProvider(api_key="k", model="m", base_url=url)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{dead}")
    proxied = OpenAICompatProvider(api_key="k", model="m", base_url=url)
    said = _failure(plain)
    assert said == _failure(proxied)
    assert said.startswith(f"openai: connection to {url} failed"), said


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nthis is no header\r\n\r\n",
        b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nx-long: " + b"a" * 200_000 + b"\r\n\r\n",
        b"",  # closed without a word
        SSE_HEAD + b"transfer-encoding: chunked\r\n\r\nzzzz\r\n",
        SSE_HEAD + b"transfer-encoding: chunked\r\n\r\n" + b"f" * 40 + b"\r\ndata: {}\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
    ],
    ids=[
        "bad header",
        "not http",
        "huge head",
        "silent close",
        "bad chunk size",
        "huge chunk size",
        "short body",
    ],
)
def test_a_server_that_does_not_speak_http_reads_the_same_on_both(answer: bytes, monkeypatch):
    def reply(_: int, connection: socket.socket) -> None:
        connection.sendall(answer)
        connection.shutdown(socket.SHUT_RDWR)

    said = {}
    no_proxies(monkeypatch)
    with RawServer(reply) as server:
        said["plain"] = _failure(OpenAICompatProvider(api_key="k", model="m", base_url=server.url))
        monkeypatch.setenv("HTTP_PROXY", server.url.removesuffix("/v1"))
        proxied = OpenAICompatProvider(api_key="k", model="m", base_url=server.url)
        said["proxied"] = _failure(proxied)
    assert said["plain"] == said["proxied"]
    assert "connection to" in said["plain"] or "stream was cut" in said["plain"], said


def _connections(peers: list) -> list[int]:
    """Each request's connection, numbered in order of first use."""
    numbers: dict = {}
    return [numbers.setdefault(peer, len(numbers)) for peer in peers]


def test_connections_are_kept_alive_and_dropped_as_httpcore2_does(monkeypatch) -> None:
    """A response read to its end leaves its connection for the next request (errors' JSON
    bodies, a whole JSON reply); a stream the SDK stops reading at `[DONE]`, or one cut,
    does not."""
    replies = [
        Reply(fault="429"),
        Reply(fault="500"),
        Reply(text="a whole reply", quirks=frozenset({"json_body"})),
        Reply(text="streamed"),
        Reply(text="cut half way through it", fault="cut"),
        Reply(fault="429"),
        Reply(text="last"),
    ]
    patterns = {}
    with FakeLLM() as llm:
        for path in ("plain", "proxied"):
            provider = _reached("openai", path, llm, monkeypatch)
            llm.requests.clear()
            llm.script(*replies)
            for _ in replies:
                with contextlib.suppress(ProviderError):
                    _turn(provider)
            patterns[path] = _connections([request.peer for request in llm.requests])
    assert patterns["plain"] == patterns["proxied"] == [0, 0, 0, 0, 1, 2, 2], patterns


def test_a_connection_the_server_closed_while_idle_is_not_reused(monkeypatch) -> None:
    body = json.dumps(openai_json(Reply(text="fresh"))).encode()
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
    answered: list[threading.Event] = [threading.Event() for _ in range(3)]

    def reply(index: int, connection: socket.socket) -> None:
        connection.sendall(head + b"content-length: %d\r\n\r\n" % len(body) + body)
        connection.shutdown(socket.SHUT_RDWR)  # said nothing about closing, then closed
        answered[index].set()

    no_proxies(monkeypatch)
    with RawServer(reply) as server:
        provider = OpenAICompatProvider(api_key="k", model="m", base_url=server.url)
        texts = []
        for index in range(3):
            texts.append(_text(_turn(provider)))
            assert answered[index].wait(BOUND)
    assert texts == ["fresh"] * 3
    assert server.connections == [1, 2, 3]


@pytest.mark.parametrize(
    "framing",
    [
        lambda body: b"content-length: %d\r\n\r\n" % len(body) + body,
        lambda body: b"transfer-encoding: chunked\r\n\r\n" + chunked(body),
        lambda body: b"connection: close\r\n\r\n" + body,  # the body ends when the socket does
    ],
    ids=["content-length", "chunked", "until close"],
)
def test_every_body_framing_is_read(framing: Callable[[bytes], bytes], monkeypatch) -> None:
    body = sse("framed every way")

    def reply(_: int, connection: socket.socket) -> None:
        connection.sendall(SSE_HEAD + framing(body))
        connection.shutdown(socket.SHUT_RDWR)

    no_proxies(monkeypatch)
    with RawServer(reply) as server:
        provider = OpenAICompatProvider(api_key="k", model="m", base_url=server.url)
        assert _text(_turn(provider)) == "framed every way"
        assert _text(_turn(provider)) == "framed every way"
    assert server.heads[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")


def test_tokens_are_handed_on_as_they_arrive(monkeypatch) -> None:
    """The first token reaches the caller while the server still holds back the rest."""
    frames = openai_frames(Reply(text="early late"))
    first, rest = frames[:2], frames[2:]
    release = threading.Event()

    def reply(_: int, connection: socket.socket) -> None:
        connection.sendall(SSE_HEAD + b"transfer-encoding: chunked\r\n\r\n")
        connection.sendall(chunked("".join(first).encode())[: -len(b"0\r\n\r\n")])
        release.wait(BOUND)
        connection.sendall(chunked("".join(rest).encode()))

    no_proxies(monkeypatch)
    with RawServer(reply) as server:
        provider = OpenAICompatProvider(api_key="k", model="m", base_url=server.url)
        events = stream_with_retries(provider, "s", [Message("user", "hi")], [], ONCE)
        seen = next(e for e in events if isinstance(e, TextChunk))
        assert not release.is_set()
        release.set()
        assert seen.text + _text(list(events)) == "early late"


def test_a_header_with_a_line_break_is_never_sent(monkeypatch) -> None:
    """A key pasted with a line break and a header after it: the request fails here, and no
    server reads a header the user did not mean to send."""
    no_proxies(monkeypatch)
    with FakeLLM() as llm:
        provider = OpenAICompatProvider(
            api_key="sk-abc\r\nX-Injected: yes", model="m", base_url=llm.openai_url
        )
        said = _failure(provider)
        assert llm.requests == [], [r.headers for r in llm.requests]
    assert "connection to" in said and "X-Injected" not in said


def test_a_request_body_is_sent_whole(monkeypatch) -> None:
    """A long conversation (a megabyte of JSON) arrives as it was sent."""
    no_proxies(monkeypatch)
    long = "x" * 1_000_000
    with FakeLLM() as llm:
        provider = _provider("openai", llm)
        events = list(stream_with_retries(provider, "s", [Message("user", long)], [], ONCE))
        assert _text(events) == "ok"
    assert json.loads(llm.requests[0].raw)["messages"][1]["content"] == long


def test_a_stale_idle_connection_is_passed_over_for_a_live_one() -> None:
    """Two connections left idle; the server closed the one used last: the next request goes
    on the other, neither on the closed one nor on a third."""
    import httpx2

    from hermes_tui.core.llm.plain_http import PlainHTTPTransport

    closed = threading.Event()

    def reply(index: int, connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        if index == 0:
            connection.shutdown(socket.SHUT_RDWR)
            closed.set()

    transport = PlainHTTPTransport(httpx2.Limits(), first_byte_timeout=None)
    with RawServer(reply) as server, httpx2.Client(transport=transport) as client:
        first = client.send(client.build_request("GET", server.url), stream=True)
        second = client.send(client.build_request("GET", server.url), stream=True)
        # a response read to its end frees its connection: the first one's is the last left
        assert second.read() == b"ok"
        assert first.read() == b"ok"
        assert closed.wait(BOUND)
        assert client.get(server.url).text == "ok"
    assert server.connections == [1, 2, 2]


def test_calls_on_several_threads_share_one_client(monkeypatch) -> None:
    """A background review and the turn call the model at once on one client: each gets its
    own reply, and the connections they leave (whole JSON replies, read to their end) are
    shared out again."""
    no_proxies(monkeypatch)
    results: dict[int, str] = {}
    with FakeLLM() as llm:
        llm.responder = lambda request: Reply(
            text=f"reply to {request.last_user_text}", quirks=frozenset({"json_body"})
        )
        provider = _provider("openai", llm)

        def call(index: int) -> None:
            for _ in range(5):
                turn = stream_with_retries(provider, "s", [Message("user", str(index))], [], ONCE)
                results[index] = _text(list(turn))

        threads = [threading.Thread(target=call, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(BOUND)
        assert len(llm.requests) == 20
    assert results == {index: f"reply to {index}" for index in range(4)}
    # a connection is made only while every other one is busy: four at most
    assert len({request.peer for request in llm.requests}) <= 4


def test_a_server_at_an_ipv6_address_is_reached() -> None:
    import httpx2

    from hermes_tui.core.llm.plain_http import PlainHTTPTransport

    try:
        listener = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    heads: list[bytes] = []

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            heads.append(connection.recv(65536))
            connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")

    threading.Thread(target=serve, daemon=True).start()
    port = listener.getsockname()[1]
    transport = PlainHTTPTransport(httpx2.Limits(), first_byte_timeout=None)
    with listener, httpx2.Client(transport=transport) as client:
        assert client.get(f"http://[::1]:{port}/v1/models", timeout=BOUND).text == "ok"
    assert f"host: [::1]:{port}".encode() in heads[0].lower()
