"""The provider contract: messages in, a stream of text, tool calls and usage out.

Messages (core/messages.py) are kept in one neutral shape and each provider converts them to
its wire format. The system prompt travels separately so a provider can place it where its API
wants it and mark it for prompt caching.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from typing import Any, Protocol

from hermes_tui.core.messages import Message, ThinkingBlock, ToolCall
from hermes_tui.core.records import datarecord
from hermes_tui.core.redaction import redact_shapes

# Seconds (model.timeout, model.first_byte_timeout): the longest silence in a reply, and the
# longest wait from sending a request to the first byte back, before the attempt fails and is
# retried. The second is shorter: a server that is working answers its headers at once.
DEFAULT_TIMEOUT = 120.0
DEFAULT_FIRST_BYTE_TIMEOUT = 60.0
CONNECT_TIMEOUT = 10.0


@datarecord
class TextChunk:
    """A piece of the reply as the provider streamed it."""

    text: str


@datarecord
class ReasoningChunk:
    """Reasoning text (OpenAI-compatible `reasoning_content`/`reasoning`, Anthropic thinking)."""

    text: str


@datarecord
class ThinkingReady:
    """A complete Anthropic thinking block with its signature, to be sent back later."""

    block: ThinkingBlock


@datarecord
class ToolCallReady:
    """A tool call whose arguments have all arrived."""

    call: ToolCall


@datarecord
class Usage:
    """Token counts of one call, normalised by the provider.

    `input_tokens` is everything the model read, cached or not (Anthropic reports cache reads
    and writes apart from `input_tokens`; its provider adds them in), so `cached_tokens /
    input_tokens` is the cache share and `input_tokens` the context in use.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_creation_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_creation_tokens + other.cache_creation_tokens,
        )


@datarecord
class UsageReport:
    """The call's usage so far: a later report replaces an earlier one of the same call."""

    usage: Usage


@datarecord
class StreamEnd:
    """The end of a provider's stream: why it stopped and which model answered."""

    stop_reason: str
    # What the server said about the call (for `doctor --ping`), not part of the reply itself.
    model: str = field(default="", compare=False)  # the model that answered, if the server says
    streamed: bool = field(default=True, compare=False)  # False: a whole JSON body came back


@datarecord
class StreamRestart:
    """A retry after a stream was cut: drop what this call streamed so far."""

    attempt: int
    reason: str


StreamEvent = (
    TextChunk
    | ReasoningChunk
    | ThinkingReady
    | ToolCallReady
    | UsageReport
    | StreamEnd
    | StreamRestart
)


class ProviderError(Exception):
    """A provider call failed; `retryable` says whether trying again can help."""

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        hint: str = "",
    ) -> None:
        # Error bodies quote what was sent ("Incorrect API key provided: Bearer sk-…"): the key
        # shapes go before the message reaches any face, store or log.
        super().__init__(redact_shapes(message))
        self.provider = provider
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.hint = redact_shapes(hint)

    def user_message(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        hint = f" {self.hint}" if self.hint else ""
        # SDK messages often end in a full stop already ("Connection error.").
        return f"{self.provider}{status}: {str(self).rstrip(' .')}.{hint}"


# Hermes' reasoning effort levels (/reasoning, agent.reasoning_effort); "" leaves the model's own.
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")


class ProviderNotConfigured(Exception):
    """No provider could be chosen; the message names what to set."""


class ProviderSettingsError(ProviderNotConfigured):
    """A provider setting is malformed (a base URL without a scheme); the message names it."""


@datarecord
class NoProvider:
    """The provider of a conversation opened without one, for the user's own `!commands`,
    which need no model: any model call says what is missing (ProviderNotConfigured)."""

    reason: str
    name: str = "none"
    model: str = ""
    base_url: str | None = None

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        raise ProviderNotConfigured(self.reason)


class Provider(Protocol):
    name: str
    model: str
    base_url: str | None

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        """One model call. Raises ProviderError; never retries by itself."""


@datarecord(frozen=False)
class Reply:
    """Everything one model call produced, assembled from its stream."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = ""
    reasoning: str = ""
    thinking: list[ThinkingBlock] = field(default_factory=list)
