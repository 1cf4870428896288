"""One tiny real request to a provider: does it answer, how fast, which model, do streaming and
tool calls work. Used by `doctor --ping` and by the app's model picker.

The request offers one harmless tool and asks the model to call it, so a single call shows
both whether the reply streams (server-sent events, not one JSON body) and whether tool calls
come back. It is never retried: a ping reports what happened on the first try.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hermes_tui.core.llm.base import (
    Provider,
    ProviderError,
    StreamEnd,
    TextChunk,
    ToolCallReady,
    UsageReport,
)
from hermes_tui.core.messages import Message

PING_TOOL = "report_status"
PING_SYSTEM = "You are a connectivity check. Follow the instruction exactly and be brief."
PING_PROMPT = f'Call the {PING_TOOL} tool with status "pong". Do not write anything else.'
PING_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": PING_TOOL,
            "description": "Report a status word back to the caller.",
            "parameters": {
                "type": "object",
                "properties": {"status": {"type": "string"}},
                "required": ["status"],
            },
        },
    }
]


@dataclass(frozen=True)
class PingResult:
    provider: str
    model: str  # the model asked for
    ok: bool
    latency: float  # seconds from sending to the end of the reply (or the failure)
    first_event: float | None = None  # seconds to the first thing the server sent back
    served_model: str = ""  # the model the server says answered (a proxy may map names)
    streaming: bool | None = None  # None: no reply to judge by
    tool_calls: bool | None = None
    reply: str = ""  # the text the model wrote, if any (cut to 200 characters)
    other_tools: tuple[str, ...] = ()  # tools the model called that were not offered
    error: str = ""
    retryable: bool = False

    def summary(self) -> str:
        """One line for a person: what answered, how fast, what works."""
        if not self.ok:
            return f"{self.provider} · {self.model}: {self.error} (after {self.latency:.2f}s)"
        model = self.served_model or self.model
        if self.served_model and self.served_model != self.model:
            model = f"{self.model} (served as {self.served_model})"
        first = f", first reply after {self.first_event:.2f}s" if self.first_event else ""
        return (
            f"{self.provider} · {model} answered in {self.latency:.2f}s{first}; "
            f"streaming {'yes' if self.streaming else 'no (one JSON body)'}; "
            f"tool calls {'yes' if self.tool_calls else 'no (' + self.tool_call_problem() + ')'}"
        )

    def tool_call_problem(self) -> str:
        """Why the offered tool was not called: other tools were, or the model wrote text."""
        if self.other_tools:
            names = ", ".join(dict.fromkeys(self.other_tools))
            return f"the model called {names} instead of the offered {PING_TOOL}"
        if self.reply:
            return "the model answered in text instead of calling the offered tool"
        return "the model sent neither text nor a tool call"


def ping(provider: Provider, *, clock: Callable[[], float] = time.monotonic) -> PingResult:
    started = clock()
    first: float | None = None
    text, called, end = "", False, None
    others: list[str] = []
    try:
        for event in provider.stream(PING_SYSTEM, [Message("user", PING_PROMPT)], PING_TOOLS):
            if first is None and not isinstance(event, UsageReport):
                first = clock() - started
            if isinstance(event, TextChunk):
                text += event.text
            elif isinstance(event, ToolCallReady):
                if event.call.name == PING_TOOL:
                    called = True
                else:
                    others.append(event.call.name)
            elif isinstance(event, StreamEnd):
                end = event
    except ProviderError as error:
        return PingResult(
            provider.name,
            provider.model,
            False,
            clock() - started,
            first,
            error=error.user_message(),
            retryable=error.retryable,
        )
    latency = clock() - started
    return PingResult(
        provider.name,
        provider.model,
        True,
        latency,
        first,
        served_model=end.model if end is not None else "",
        streaming=end.streamed if end is not None else None,
        tool_calls=called,
        reply=text.strip()[:200],
        other_tools=tuple(others),
    )
