"""A loopback LLM server speaking the real wire formats, for the real `openai` and `anthropic` SDKs.

OpenAI Chat Completions (SSE with tool-call deltas split across chunks, a usage chunk with
`"choices": []`, `data: [DONE]`) and Anthropic Messages streaming (`event:` + `data:` frames).
Replies are scripted; faults are injected per reply: HTTP 429 with retry-after, 500, a stream
cut mid-way, a hang (before the headers, or mid-stream after some text) that ends when the
client closes the connection, garbage frames, a 400 for `stream_options`, an error frame inside a 200 stream
(OpenAI: `data: {"error": ...}` and no [DONE]; Anthropic: `event: error` after
`message_start`), and OpenAI-compatible quirks. Shapes real servers send: reasoning deltas
(`reasoning_content` or `reasoning`), Anthropic thinking blocks with signatures, usage only in
`message_delta`, fixed (reused) tool-call ids, and a whole JSON reply to a stream request.
Every request body is recorded so tests can check what the agent sent.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    input_tokens: int = 100  # as the wire format counts it: OpenAI's includes cached tokens
    output_tokens: int = 20
    cached_tokens: int = 0
    cache_creation_tokens: int = 0
    # "429", "500", "408" (an HTTP status), "401" (the key sent, quoted back), "cut", "garbage", "reject_stream_options",
    # "error_frame", "hang" (headers never sent), "hang_mid_stream" (some text, then nothing)
    fault: str | None = None
    retry_after: str | None = "0"
    # The header carrying retry_after: LiteLLM passes the upstream's as llm_provider-retry-after.
    retry_after_header: str = "retry-after"
    error_type: str | None = "overloaded_error"  # the `type` of an error_frame's error
    error_code: str | None = None  # its `code`: LiteLLM puts the upstream's HTTP status there
    error_message: str | None = None  # an HTTP error's message; `{key}` is the key that was sent
    # one_chunk, no_index, object_args, stop_with_tools, reasoning_field (OpenAI: `reasoning`
    # instead of `reasoning_content`), usage_in_delta (Anthropic: zeros in message_start, the
    # counts in message_delta), json_body (a whole JSON reply to a stream request),
    # shared_index (OpenAI: all calls in one chunk with `"index": 0`, as LitServe sends them)
    quirks: frozenset[str] = frozenset()
    reasoning: str = ""  # streamed before the text; Anthropic: a signed thinking block
    chunk: int = 4  # characters of text per streamed delta
    # characters of a tool call's arguments per streamed delta; a test about a huge argument
    # (not about how it is split) sends it in few deltas: the SDK takes ~0.5 ms per delta
    args_chunk: int = 7
    chars_per_second: float = 0  # pace of the text deltas; 0 sends them as fast as possible
    signature: str = "sig-fake-0001"
    tool_call_ids: tuple[str, ...] = ()  # ids to send instead of fresh ones (servers reuse them)
    hang_seconds: float = 30.0  # how long a hang lasts if the client never gives up

    def call_id(self, index: int, prefix: str) -> str:
        if index < len(self.tool_call_ids):
            return self.tool_call_ids[index]
        return f"{prefix}{uuid.uuid4().hex[:10]}"


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    raw: bytes
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names
    peer: tuple[Any, ...] = ()  # the client's address: which connection the request came on

    @property
    def system(self) -> str:
        if "system" in self.body:  # Anthropic
            return "".join(block["text"] for block in self.body["system"])
        return self.body["messages"][0]["content"]

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name") or t["function"]["name"] for t in self.body.get("tools", [])]

    @property
    def last_user_text(self) -> str:
        for message in reversed(self.body["messages"]):
            if message["role"] == "user":
                content = message["content"]
                if isinstance(content, str):
                    return content
                texts = [b.get("text", "") for b in content if b.get("type") == "text"]
                if texts:
                    return texts[-1]
        return ""


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients drop idle keep-alive connections when they are garbage collected; that is
        # not a test failure. Anything else is still reported.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeLLM:
    """Start with `with FakeLLM() as llm:`; queue replies with `llm.script(...)`."""

    def __init__(self, default: Reply | None = None) -> None:
        self.replies: list[Reply] = []
        self.responder: Callable[[Request], Reply | None] | None = None
        self.default = default or Reply(text="ok")
        self.requests: list[Request] = []
        self.models: list[str] = ["fake-model", "fake-large"]  # what GET /v1/models lists
        # A "hang" fault: set when the server starts hanging; the monotonic time at which the
        # client closed each hung connection (a hang that timed out records nothing).
        self.hanging = threading.Event()
        self.hang_closed: list[float] = []
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        # shutdown() waits for the serving loop's next poll, every 0.5 s by default: that was
        # up to half a second of every test that used a fake model.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.responder is not None:
                reply = self.responder(request)
                if reply is not None:
                    return reply
            return self.replies.pop(0) if self.replies else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                """The model listing: OpenAI's shape, or Anthropic's when its SDK asks."""
                if self.path.split("?")[0] != "/v1/models":
                    self._json_error(404, None, f"no route {self.path}")
                    return
                fake.requests.append(Request(self.path, {}, b""))
                if self.headers.get("anthropic-version"):
                    data = [
                        {
                            "type": "model",
                            "id": m,
                            "display_name": m,
                            "created_at": "2025-01-01T00:00:00Z",
                        }
                        for m in fake.models
                    ]
                    body = {"data": data, "has_more": False, "first_id": None, "last_id": None}
                else:
                    data = [
                        {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                        for m in fake.models
                    ]
                    body = {"object": "list", "data": data}
                raw = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.loads(raw)
                headers = {name.lower(): value for name, value in self.headers.items()}
                request = Request(self.path, body, raw, headers, peer=self.client_address)
                reply = fake._next(request)
                # An error body may quote the key that was sent (`{key}`), as providers do.
                sent = self.headers.get("x-api-key") or self.headers.get("authorization") or ""
                words = (reply.error_message or "scripted failure").replace("{key}", sent)
                if reply.fault in ("429", "500", "408"):
                    self._json_error(int(reply.fault), reply.retry_after, words, reply=reply)
                    return
                if reply.fault == "401":
                    message = reply.error_message and words
                    self._json_error(401, None, message or f"Incorrect API key provided: {sent}")
                    return
                if reply.fault == "reject_stream_options" and "stream_options" in body:
                    fake.replies.insert(0, Reply(**{**reply.__dict__, "fault": None}))
                    self._json_error(
                        400, None, "Unrecognized request argument supplied: stream_options"
                    )
                    return
                anthropic = self.path.endswith("/messages")
                if reply.fault == "hang":  # the request was read; no headers ever come
                    self._hang(reply)
                    return
                if "json_body" in reply.quirks:
                    payload = anthropic_json(reply) if anthropic else openai_json(reply)
                    data = json.dumps(payload).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                frames = anthropic_frames(reply) if anthropic else openai_frames(reply)
                if reply.fault == "error_frame":
                    frames = with_error_frame(frames, reply, anthropic)
                try:
                    self._stream(frames, reply.fault, reply)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up on a faulty stream

            def _json_error(
                self,
                status: int,
                retry_after: str | None,
                message: str = "scripted failure",
                reply: Reply | None = None,
            ) -> None:
                payload = json.dumps({"error": {"message": message, "type": "error"}}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                if retry_after is not None:
                    header = reply.retry_after_header if reply is not None else "retry-after"
                    self.send_header(header, retry_after)
                self.end_headers()
                self.wfile.write(payload)

            def _hang(self, reply: Reply) -> None:
                """Send nothing more until the client closes the connection (or the bound)."""
                self.close_connection = True
                self.wfile.flush()
                fake.hanging.set()
                self.connection.settimeout(reply.hang_seconds)
                try:
                    closed = self.connection.recv(1) == b""
                except TimeoutError:
                    closed = False
                except OSError:  # a reset: the client closed with our bytes still unread
                    closed = True
                if closed:
                    fake.hang_closed.append(time.monotonic())

            def _stream(self, frames: list[str], fault: str | None, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                if fault == "garbage":
                    junk = "data: {this is not json\n\n"
                    if self.path.endswith("/messages"):
                        junk = "event: content_block_delta\n" + junk
                    frames = frames[:2] + [junk] + frames[2:]
                started = time.monotonic()
                for index, frame in enumerate(frames):
                    if reply.chars_per_second:
                        # Each frame carries at most `chunk` characters: pace them on a schedule,
                        # so that slow writes do not add up to a slower stream.
                        delay = started + index * reply.chunk / reply.chars_per_second
                        time.sleep(max(0.0, delay - time.monotonic()))
                        self.wfile.flush()
                    if fault == "hang_mid_stream" and index == len(frames) // 2:
                        self._hang(reply)
                        return
                    if fault == "cut" and index == len(frames) // 2:
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    data = frame.encode()
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return Handler


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def with_error_frame(frames: list[str], reply: Reply, anthropic: bool) -> list[str]:
    """Keep the start and some text, then an error frame; the stream ends there (no [DONE])."""
    kept = frames[: max(2, len(frames) // 2)]
    error = {"type": reply.error_type, "message": f"upstream said {reply.error_type}"}
    if anthropic:
        return [*kept, f"event: error\ndata: {json.dumps({'type': 'error', 'error': error})}\n\n"]
    return [*kept, f"data: {json.dumps({'error': {**error, 'code': reply.error_code}})}\n\n"]


def openai_json(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": reply.call_id(index, "call_"),
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
            for index, (name, arguments) in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        },
    }


def anthropic_json(reply: Reply) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.reasoning:
        content.append(
            {"type": "thinking", "thinking": reply.reasoning, "signature": reply.signature}
        )
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for index, (name, arguments) in enumerate(reply.tool_calls):
        content.append(
            {
                "type": "tool_use",
                "id": reply.call_id(index, "toolu_"),
                "name": name,
                "input": json.loads(arguments) if isinstance(arguments, str) else arguments,
            }
        )
    return {
        "id": f"msg_{uuid.uuid4().hex[:8]}",
        "type": "message",
        "role": "assistant",
        "model": "fake",
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(reply),
    }


def _anthropic_usage(reply: Reply) -> dict[str, int]:
    """As Anthropic counts: `input_tokens` leaves out the cache reads and writes."""
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cache_read_input_tokens": reply.cached_tokens,
        "cache_creation_input_tokens": reply.cache_creation_tokens,
    }


def openai_frames(reply: Reply) -> list[str]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:8]}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(payload)}\n\n"

    frames = [chunk({"role": "assistant", "content": ""})]
    field_name = "reasoning" if "reasoning_field" in reply.quirks else "reasoning_content"
    frames += [chunk({field_name: piece}) for piece in _pieces(reply.reasoning)]
    frames += [chunk({"content": piece}) for piece in _pieces(reply.text, reply.chunk)]
    if "shared_index" in reply.quirks:
        # LitServe's OpenAI spec: every call whole, in one chunk, all with `"index": 0`.
        calls = [
            {
                "index": 0,
                "id": reply.call_id(index, "call_"),
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
            for index, (name, arguments) in enumerate(reply.tool_calls)
        ]
        frames.append(chunk({"tool_calls": calls}))
    for index, (name, arguments) in enumerate(reply.tool_calls):
        if "shared_index" in reply.quirks:
            break
        text_args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call_id = reply.call_id(index, "call_")
        head: dict[str, Any] = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        if "no_index" not in reply.quirks:
            head["index"] = index
        if "one_chunk" in reply.quirks or "object_args" in reply.quirks:
            head["function"]["arguments"] = (
                arguments if "object_args" in reply.quirks else text_args
            )
            frames.append(chunk({"tool_calls": [head]}))
            continue
        frames.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(text_args, reply.args_chunk):
            tail: dict[str, Any] = {"function": {"arguments": piece}}
            if "no_index" not in reply.quirks:
                tail["index"] = index
            frames.append(chunk({"tool_calls": [tail]}))
    finish = "tool_calls" if reply.tool_calls and "stop_with_tools" not in reply.quirks else "stop"
    frames.append(chunk({}, finish))
    usage = {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
    }
    frames.append(
        "data: "
        + json.dumps(
            {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "fake",
                "choices": [],
                "usage": usage,
            }
        )
        + "\n\n"
    )
    frames.append("data: [DONE]\n\n")
    return frames


def anthropic_frames(reply: Reply) -> list[str]:
    def frame(kind: str, payload: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n"

    usage = _anthropic_usage(reply)
    in_delta = "usage_in_delta" in reply.quirks
    start_usage = {name: 0 for name in usage} if in_delta else {**usage, "output_tokens": 1}
    frames = [
        frame(
            "message_start",
            {
                "message": {
                    "id": f"msg_{uuid.uuid4().hex[:8]}",
                    "type": "message",
                    "role": "assistant",
                    "model": "fake",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                }
            },
        )
    ]
    index = 0
    if reply.reasoning:
        frames.append(
            frame(
                "content_block_start",
                {
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
            )
        )
        frames += [
            frame(
                "content_block_delta",
                {"index": index, "delta": {"type": "thinking_delta", "thinking": p}},
            )
            for p in _pieces(reply.reasoning)
        ]
        frames.append(
            frame(
                "content_block_delta",
                {
                    "index": index,
                    "delta": {"type": "signature_delta", "signature": reply.signature},
                },
            )
        )
        frames.append(frame("content_block_stop", {"index": index}))
        index += 1
    if reply.text:
        frames.append(
            frame(
                "content_block_start",
                {"index": index, "content_block": {"type": "text", "text": ""}},
            )
        )
        frames += [
            frame(
                "content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": p}}
            )
            for p in _pieces(reply.text, reply.chunk)
        ]
        frames.append(frame("content_block_stop", {"index": index}))
        index += 1
    for tool_index, (name, arguments) in enumerate(reply.tool_calls):
        text_args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        frames.append(
            frame(
                "content_block_start",
                {
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": reply.call_id(tool_index, "toolu_"),
                        "name": name,
                        "input": {},
                    },
                },
            )
        )
        frames += [
            frame(
                "content_block_delta",
                {"index": index, "delta": {"type": "input_json_delta", "partial_json": p}},
            )
            for p in _pieces(text_args, reply.args_chunk)
        ]
        frames.append(frame("content_block_stop", {"index": index}))
        index += 1
    stop = "tool_use" if reply.tool_calls else "end_turn"
    frames.append(
        frame(
            "message_delta",
            {
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": usage if in_delta else {"output_tokens": reply.output_tokens},
            },
        )
    )
    frames.append(frame("message_stop", {}))
    return frames
