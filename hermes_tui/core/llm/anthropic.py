"""Anthropic Messages streaming with prompt caching.

Messages are converted to Anthropic's blocks (tool calls as `tool_use`, results as
`tool_result` in a user turn). Cache breakpoints (at most 4) go on the system block, the last
tool and the last two messages, so every call of a session re-reads the same cached prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hermes_tui.core.llm.base import (
    ProviderError,
    StreamEnd,
    StreamEvent,
    TextChunk,
    ToolCallReady,
    Usage,
    UsageReport,
)
from hermes_tui.core.llm.sdk_errors import translated
from hermes_tui.core.messages import Message, ToolCall

MAX_TOKENS = 8192
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
            blocks: list[dict[str, Any]] = []
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
            add("assistant", blocks or [{"type": "text", "text": "(no reply)"}])
        else:
            add("user", [{"type": "text", "text": message.content or "(empty)"}])
    for turn in turns[-2:]:
        last = turn["content"][-1]
        turn["content"][-1] = {**last, "cache_control": EPHEMERAL}
    return turns


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self, *, api_key: str, model: str, base_url: str | None = None, timeout: float = 120.0
    ) -> None:
        import anthropic  # imported here: only the provider in use pays for its SDK

        self.model = model
        self.base_url = base_url
        self._anthropic = anthropic
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout
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
        blocks: dict[int, dict[str, Any]] = {}
        usage = Usage()
        stop_reason: str | None = None
        for event in self._client.messages.create(**kwargs):
            kind = event.type
            if kind == "message_start":
                start = event.message.usage
                usage = Usage(
                    input_tokens=int(start.input_tokens or 0),
                    cached_tokens=int(getattr(start, "cache_read_input_tokens", 0) or 0),
                    cache_creation_tokens=int(
                        getattr(start, "cache_creation_input_tokens", 0) or 0
                    ),
                )
            elif kind == "content_block_start":
                block = event.content_block
                blocks[event.index] = {
                    "type": block.type,
                    "id": getattr(block, "id", ""),
                    "name": getattr(block, "name", ""),
                    "json": "",
                }
            elif kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    yield TextChunk(delta.text)
                elif delta.type == "input_json_delta":
                    blocks[event.index]["json"] += delta.partial_json
            elif kind == "content_block_stop":
                block = blocks.get(event.index)
                if block and block["type"] == "tool_use":
                    yield ToolCallReady(ToolCall(block["id"], block["name"], block["json"] or "{}"))
            elif kind == "message_delta":
                stop_reason = event.delta.stop_reason or stop_reason
                output = getattr(event.usage, "output_tokens", None)
                if output is not None:
                    usage = Usage(
                        usage.input_tokens,
                        int(output),
                        usage.cached_tokens,
                        usage.cache_creation_tokens,
                    )
            elif kind == "error":
                raise ProviderError(
                    self.name, f"stream error: {getattr(event, 'error', event)}", retryable=True
                )
        if stop_reason is None:
            raise ProviderError(
                self.name, "the stream ended before the model finished", retryable=True
            )
        yield UsageReport(usage)
        yield StreamEnd(stop_reason)
