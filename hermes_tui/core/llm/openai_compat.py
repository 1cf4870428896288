"""OpenAI Chat Completions streaming, for OpenAI and every server that speaks its dialect.

Tool-call deltas are assembled by index, tolerating the quirks of compatible servers: a whole
call in one chunk, a missing `index` or `id`, several calls sharing one index (a new id starts
a new call), arguments sent as a JSON object instead of a
string, `finish_reason: stop` on a reply that holds tool calls, a 400 for
`stream_options` (answered by asking again without it, and remembered), and a complete JSON
completion sent in answer to a stream request (some proxies answer mocks that way).
Reasoning (`reasoning_content` from vLLM, llama.cpp and DeepSeek, `reasoning` from OpenRouter
and Ollama) is streamed apart from the answer text.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from hermes_tui.core.llm.base import (
    DEFAULT_FIRST_BYTE_TIMEOUT,
    DEFAULT_TIMEOUT,
    ProviderError,
    ReasoningChunk,
    StreamEnd,
    StreamEvent,
    TextChunk,
    ToolCallReady,
    Usage,
    UsageReport,
)
from hermes_tui.core.llm.sdk_errors import answered_with_json, sdk_timeout, translated
from hermes_tui.core.llm.transport import sdk_http_client
from hermes_tui.core.messages import Message, ToolCall

KEY_HINT = {
    "openai": "Check OPENAI_API_KEY and OPENAI_BASE_URL (or --base-url).",
    "openrouter": "Check OPENROUTER_API_KEY.",
}


class OpenAICompatProvider:
    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        name: str = "openai",
        timeout: float = DEFAULT_TIMEOUT,
        first_byte_timeout: float | None = DEFAULT_FIRST_BYTE_TIMEOUT,
    ) -> None:
        import openai  # imported here: only the provider in use pays for its SDK

        self.name = name
        self.model = model
        self.base_url = base_url
        self._openai = openai
        http_client = sdk_http_client(openai, base_url, first_byte_timeout=first_byte_timeout)
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=sdk_timeout(timeout),
            http_client=http_client,
        )
        self._stream_options_ok = True
        self.reasoning_effort = ""  # sent as `reasoning_effort` when set (/reasoning)

    def _request(self, system: str, messages: list[Message], tools: list[dict[str, Any]]):
        wire = [{"role": "system", "content": system}, *(m.to_openai() for m in messages)]
        kwargs: dict[str, Any] = {"model": self.model, "messages": wire, "stream": True}
        if tools:
            kwargs["tools"] = tools
        if self.reasoning_effort:
            kwargs["reasoning_effort"] = self.reasoning_effort
        if self._stream_options_ok:
            kwargs["stream_options"] = {"include_usage": True}
        try:
            return self._post(kwargs)
        except self._openai.BadRequestError as exc:
            if self._stream_options_ok and "stream_options" in str(exc):
                self._stream_options_ok = False
                kwargs.pop("stream_options")
                return self._post(kwargs)
            raise

    def _post(self, body: dict[str, Any]) -> Any:
        """The streamed request, as `chat.completions.create` makes it, less two steps: the
        body is sent as it is (that call first walks it through the SDK's typed-dict transform
        for key aliases, dates and files, none of which a chat request of ours holds, and
        re-reads every message of the conversation at every model call: a quarter of a long
        turn's CPU), and each chunk comes back as the JSON object the server sent, not as a
        `ChatCompletionChunk` (building that model's validators on the first chunk and
        checking every chunk's optional fields against them costs memory and time for a few
        fields `_events` reads itself). The SDK still authenticates, times, retries, reads
        the stream's events and raises the errors the server sends in it."""
        return self._client.post(
            "/chat/completions",
            body=body,
            cast_to=object,
            stream=True,
            stream_cls=self._openai.Stream[object],
            options={"security": {"bearer_auth": True}},
        )

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        yield from translated(
            self._stream(system, messages, tools),
            sdk=self._openai,
            provider=self.name,
            model=self.model,
            base_url=self.base_url,
            key_hint=KEY_HINT.get(self.name, "Check the API key."),
            network_hint="Check the network and the base URL.",
        )

    def _stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        response = self._request(system, messages, tools)
        try:
            yield from self._events(response)
        finally:
            response.close()  # a cancelled or abandoned stream frees its connection now

    def _events(self, response: Any) -> Iterator[StreamEvent]:
        if answered_with_json(response.response):
            yield from self._complete(response.response)
            return
        slots: list[dict[str, Any]] = []
        wire: dict[int, int] = {}  # the server's index -> the call it currently continues
        finish: str | None = None
        model = ""
        for chunk in response:
            if not isinstance(chunk, dict):
                continue  # not a chunk: nothing in it to read
            model = _text(chunk.get("model")) or model
            usage = chunk.get("usage")
            if isinstance(usage, dict):
                yield UsageReport(_usage_from_dict(usage))
            for choice in _list(chunk.get("choices")):
                if not isinstance(choice, dict):
                    continue
                delta = choice.get("delta")
                if isinstance(delta, dict):
                    reasoning = _reasoning(delta)
                    if reasoning:
                        yield ReasoningChunk(reasoning)
                    if delta.get("content"):
                        yield TextChunk(delta["content"])
                    for piece in _list(delta.get("tool_calls")):
                        if isinstance(piece, dict):
                            _merge_tool_delta(slots, wire, piece)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        if finish is None:
            raise ProviderError(
                self.name, "the stream ended before the model finished", retryable=True
            )
        for slot in slots:
            if not slot["name"]:
                continue
            yield ToolCallReady(
                ToolCall(
                    slot["id"] or f"call_{uuid.uuid4().hex[:12]}", slot["name"], slot["arguments"]
                )
            )
        yield StreamEnd("tool_calls" if slots else finish, model=model)

    def _complete(self, http_response: Any) -> Iterator[StreamEvent]:
        """A whole chat.completion object where a stream was asked for."""
        body = json.loads(http_response.read())
        if isinstance(body, dict) and body.get("error"):
            error = body["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise self._openai.APIError(str(message or "error"), http_response.request, body=error)
        choices = body.get("choices") if isinstance(body, dict) else None
        if not choices:
            raise ProviderError(
                self.name, "the server answered with JSON that holds no reply", retryable=True
            )
        choice = choices[0]
        message = choice.get("message") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            yield ReasoningChunk(reasoning)
        if message.get("content"):
            yield TextChunk(str(message["content"]))
        calls = []
        for raw in message.get("tool_calls") or []:
            function = raw.get("function") or {}
            arguments = function.get("arguments") or ""
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            if function.get("name"):
                call_id = raw.get("id") or f"call_{uuid.uuid4().hex[:12]}"
                calls.append(ToolCall(call_id, function["name"], arguments))
        if isinstance(body.get("usage"), dict):
            yield UsageReport(_usage_from_dict(body["usage"]))
        yield from (ToolCallReady(call) for call in calls)
        stop = "tool_calls" if calls else choice.get("finish_reason") or "stop"
        yield StreamEnd(stop, model=str(body.get("model") or ""), streamed=False)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _reasoning(delta: dict[str, Any]) -> str:
    """vLLM, llama.cpp and DeepSeek say `reasoning_content`; OpenRouter and Ollama `reasoning`."""
    for name in ("reasoning_content", "reasoning"):
        value = delta.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _merge_tool_delta(
    slots: list[dict[str, Any]], wire: dict[int, int], piece: dict[str, Any]
) -> None:
    """Add one tool-call delta to the call it belongs to, or start a new call.

    A delta carrying an id the call at its index does not have starts a new call whatever the
    index says: LitServe sends several calls in one chunk, all with `"index": 0`. Without an
    index, a known id continues its call, a new id starts one, and no id continues the last.
    """
    index = _index(piece.get("index"))
    call_id = piece.get("id")
    position: int | None = None
    if index is not None and index in wire:
        current = slots[wire[index]]
        if not call_id or current["id"] in (None, call_id):
            position = wire[index]
    elif index is None:
        if call_id:
            position = next((i for i, s in enumerate(slots) if s["id"] == call_id), None)
        elif slots:
            position = len(slots) - 1
    if position is None:
        position = len(slots)
        slots.append({"id": None, "name": "", "arguments": ""})
        if index is not None:
            wire[index] = position
    slot = slots[position]
    if call_id:
        slot["id"] = call_id
    function = piece.get("function")
    if isinstance(function, dict):
        if function.get("name"):
            slot["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, (dict, list)):
            slot["arguments"] = json.dumps(arguments)
        elif arguments:
            slot["arguments"] += arguments


def _index(value: Any) -> int | None:
    """A tool call's index as a number, as the SDK's model read it ("0" and 0.0 are 0)."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _usage_from_dict(usage: dict[str, Any]) -> Usage:
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    return Usage(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
    )
