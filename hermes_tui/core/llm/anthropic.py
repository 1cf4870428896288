"""Anthropic Messages streaming with prompt caching.

Messages are converted to Anthropic's blocks (tool calls as `tool_use`, results as
`tool_result` in a user turn). Cache breakpoints (at most 4) go on the system block, the last
tool and the last two messages, so every call of a session re-reads the same cached prefix.

Usage is normalised here: Anthropic's `input_tokens` leaves out cache reads and writes, so the
input we report is their sum. Counts come from `message_start` (reported at once, so a stream
cut later still counts its input) and are replaced by the cumulative ones in
`message_delta.usage` when a server sends them there. Thinking blocks stream
as reasoning and are kept with their signatures, to be sent back ahead of the reply's text and
tool calls as the API requires. A complete JSON message in answer to a stream request is
accepted as it is.
"""

from __future__ import annotations

import json
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
    ThinkingReady,
    ToolCallReady,
    Usage,
    UsageReport,
)
from hermes_tui.core.llm.sdk_errors import answered_with_json, sdk_timeout, translated
from hermes_tui.core.llm.transport import sdk_http_client
from hermes_tui.core.messages import Message, ThinkingBlock, ToolCall

MAX_TOKENS = 8192
# Extended thinking's token budget for each reasoning effort (/reasoning); it must stay below
# max_tokens, which grows by the budget.
THINKING_BUDGET = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
EPHEMERAL = {"type": "ephemeral"}


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    converted = [
        {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "input_schema": t["function"].get("parameters") or {"type": "object", "properties": {}},
        }
        for t in tools
    ]
    if converted:
        converted[-1] = {**converted[-1], "cache_control": EPHEMERAL}
    return converted


def to_anthropic_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Neutral messages to Anthropic turns; consecutive same-role turns are merged."""
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": list(blocks)})

    for message in messages:
        if message.role == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.tool_call_id,
                        "content": message.content,
                    }
                ],
            )
        elif message.role == "assistant":
            # Thinking blocks go first, unmodified: the API verifies their signatures. One stored
            # redacted has none (core/session_records.py) and would be refused: it stays home.
            thinking = [block for block in message.thinking if block.signature or block.data]
            blocks: list[dict[str, Any]] = [block.to_anthropic() for block in thinking]
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            for call in message.tool_calls:
                arguments = call.parsed_arguments()
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": arguments if arguments is not None else {"_raw": call.arguments},
                    }
                )
            if len(blocks) == len(thinking):
                blocks.append({"type": "text", "text": "(no reply)"})
            add("assistant", blocks)
        else:
            add("user", [{"type": "text", "text": message.content or "(empty)"}])
    for turn in turns[-2:]:
        last = turn["content"][-1]
        turn["content"][-1] = {**last, "cache_control": EPHEMERAL}
    return turns


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        first_byte_timeout: float | None = DEFAULT_FIRST_BYTE_TIMEOUT,
    ) -> None:
        import anthropic  # imported here: only the provider in use pays for its SDK

        self.model = model
        self.base_url = base_url
        self.reasoning_effort = ""  # extended thinking with THINKING_BUDGET's tokens when set
        self._anthropic = anthropic
        http_client = sdk_http_client(anthropic, base_url, first_byte_timeout=first_byte_timeout)
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=sdk_timeout(timeout),
            http_client=http_client,
        )

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        yield from translated(
            self._stream(system, messages, tools),
            sdk=self._anthropic,
            provider=self.name,
            model=self.model,
            base_url=self.base_url,
            key_hint="Check ANTHROPIC_API_KEY.",
            network_hint="Check the network and ANTHROPIC_BASE_URL.",
        )

    def _stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": [{"type": "text", "text": system, "cache_control": EPHEMERAL}],
            "messages": to_anthropic_messages(messages),
            "stream": True,
        }
        if tools:
            kwargs["tools"] = to_anthropic_tools(tools)
        budget = THINKING_BUDGET.get(self.reasoning_effort)
        if budget:
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}
            kwargs["max_tokens"] = MAX_TOKENS + budget
        response = self._client.messages.create(**kwargs)
        try:
            yield from self._events(response)
        finally:
            response.close()  # a cancelled or abandoned stream frees its connection now

    def _events(self, response: Any) -> Iterator[StreamEvent]:
        if answered_with_json(response.response):
            yield from self._complete(response.response)
            return
        blocks: dict[int, dict[str, Any]] = {}
        counts: dict[str, int] = {}
        stop_reason: str | None = None
        model = ""
        for event in response:
            kind = event.type
            if kind == "message_start":
                _take_counts(counts, event.message.usage)
                model = str(getattr(event.message, "model", "") or "")
                # The input is billed from here on: a stream cut later still counts it.
                yield UsageReport(_normalised(counts))
            elif kind == "content_block_start":
                block = event.content_block
                blocks[event.index] = {
                    "type": block.type,
                    "id": getattr(block, "id", ""),
                    "name": getattr(block, "name", ""),
                    "json": "",
                    "thinking": getattr(block, "thinking", "") or "",
                    "signature": getattr(block, "signature", "") or "",
                    "data": getattr(block, "data", "") or "",
                }
                if blocks[event.index]["thinking"]:
                    yield ReasoningChunk(blocks[event.index]["thinking"])
            elif kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    yield TextChunk(delta.text)
                elif delta.type == "input_json_delta":
                    blocks[event.index]["json"] += delta.partial_json
                elif delta.type == "thinking_delta":
                    blocks[event.index]["thinking"] += delta.thinking
                    yield ReasoningChunk(delta.thinking)
                elif delta.type == "signature_delta":
                    blocks[event.index]["signature"] += delta.signature
            elif kind == "content_block_stop":
                block = blocks.get(event.index)
                if block and block["type"] == "tool_use":
                    yield ToolCallReady(ToolCall(block["id"], block["name"], block["json"] or "{}"))
                elif block and block["type"] in ("thinking", "redacted_thinking"):
                    yield ThinkingReady(
                        ThinkingBlock(block["thinking"], block["signature"], block["data"])
                    )
            elif kind == "message_delta":
                stop_reason = event.delta.stop_reason or stop_reason
                if event.usage is not None:
                    _take_counts(counts, event.usage)
        if stop_reason is None:
            raise ProviderError(
                self.name, "the stream ended before the model finished", retryable=True
            )
        yield UsageReport(_normalised(counts))
        yield StreamEnd(stop_reason, model=model)

    def _complete(self, http_response: Any) -> Iterator[StreamEvent]:
        """A whole Message object where a stream was asked for."""
        body = json.loads(http_response.read())
        if not isinstance(body, dict) or body.get("type") == "error" or "content" not in body:
            raise self._anthropic.APIStatusError(
                f"unexpected reply: {str(body)[:300]}", response=http_response, body=body
            )
        calls = []
        for block in body["content"]:
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                yield TextChunk(block["text"])
            elif kind in ("thinking", "redacted_thinking"):
                if block.get("thinking"):
                    yield ReasoningChunk(block["thinking"])
                yield ThinkingReady(
                    ThinkingBlock(
                        block.get("thinking", ""), block.get("signature", ""), block.get("data", "")
                    )
                )
            elif kind == "tool_use":
                arguments = json.dumps(block.get("input") or {})
                calls.append(ToolCall(block.get("id", ""), block.get("name", ""), arguments))
        counts: dict[str, int] = {}
        _take_counts(counts, body.get("usage") or {})
        yield UsageReport(_normalised(counts))
        yield from (ToolCallReady(call) for call in calls)
        stop = body.get("stop_reason") or ("tool_use" if calls else "end_turn")
        yield StreamEnd(stop, model=str(body.get("model") or ""), streamed=False)


USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _take_counts(counts: dict[str, int], usage: Any) -> None:
    """Keep the latest value of each count: `message_delta` carries cumulative totals."""
    for name in USAGE_FIELDS:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        if value is not None:
            counts[name] = int(value)


def _normalised(counts: dict[str, int]) -> Usage:
    cached = counts.get("cache_read_input_tokens", 0)
    created = counts.get("cache_creation_input_tokens", 0)
    return Usage(
        input_tokens=counts.get("input_tokens", 0) + cached + created,
        output_tokens=counts.get("output_tokens", 0),
        cached_tokens=cached,
        cache_creation_tokens=created,
    )
