"""Context compression: when a conversation nears the model's window, summarise its middle.

The first 3 and last 20 messages are kept (never splitting a tool call from its results);
the middle is summarised by the same provider into a structured summary that replaces it.
The caller then continues in a child session with a rebuilt system prompt.
"""

from __future__ import annotations

from hermes_tui.core.llm.base import Provider, TextChunk
from hermes_tui.core.messages import Message

PROTECT_HEAD = 3
PROTECT_TAIL = 20
THRESHOLD = 0.75
CHARS_PER_TOKEN = 4

SUMMARY_PROMPT = """You compress the middle of a conversation between a user and a coding agent \
so the agent can continue without it. Write a structured summary with these headings: Goal, \
Decisions and facts established, Files and commands touched, Work done, Open problems, Next \
steps. Keep names, paths, versions, error messages and numbers exactly. No preamble."""


def estimate_tokens(system: str, messages: list[Message]) -> int:
    chars = len(system) + sum(
        len(m.content) + sum(len(c.arguments) + len(c.name) for c in m.tool_calls) for m in messages
    )
    return chars // CHARS_PER_TOKEN


def needs_compression(system: str, messages: list[Message], context_length: int) -> bool:
    return estimate_tokens(system, messages) > THRESHOLD * context_length


def split(messages: list[Message]) -> tuple[int, int] | None:
    """(head_end, tail_start) of the middle to summarise, or None if there is nothing to cut."""
    head = min(PROTECT_HEAD, len(messages))
    while head < len(messages) and messages[head].role == "tool":
        head += 1
    tail = max(head, len(messages) - PROTECT_TAIL)
    while tail > head and messages[tail].role == "tool":
        tail -= 1
    return (head, tail) if tail - head >= 2 else None


def _transcript(messages: list[Message]) -> str:
    lines = []
    for message in messages:
        if message.role == "tool":
            lines.append(f"[tool result {message.tool_name or ''}]\n{message.content[:4000]}")
            continue
        text = message.content
        for call in message.tool_calls:
            text += f"\n[calls {call.name} {call.arguments[:2000]}]"
        lines.append(f"[{message.role}]\n{text}")
    return "\n\n".join(lines)


def compress(provider: Provider, messages: list[Message]) -> list[Message] | None:
    """The compressed message list, or None when nothing can be cut."""
    cut = split(messages)
    if cut is None:
        return None
    head, tail = cut
    request = [Message("user", "Conversation to summarise:\n\n" + _transcript(messages[head:tail]))]
    summary = "".join(
        e.text for e in provider.stream(SUMMARY_PROMPT, request, []) if isinstance(e, TextChunk)
    )
    note = Message(
        "user",
        f"[Summary of {tail - head} earlier messages, compressed to save context]\n{summary.strip()}",
    )
    return [*messages[:head], note, *messages[tail:]]
