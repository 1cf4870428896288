"""Plain conversation types shared by the providers, the session store and the agent.

Messages are kept in one neutral shape (close to OpenAI's); each provider converts them to its
wire format. Nothing here knows about a provider, so the session store can import it freely.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from hermes_tui.core.records import datarecord

Role = Literal["user", "assistant", "tool"]

# Deeper than any tool's schema goes. Python's JSON parser recurses once a level, so a model's
# `[[[[…` fifty thousand deep would raise RecursionError instead of an error the model can read.
MAX_ARGUMENT_DEPTH = 100
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


class ArgumentsError(ValueError):
    """A tool call's arguments that cannot be read; the message says why, for the model."""


def load_arguments(text: str) -> Any:
    """The JSON value of a tool call's arguments (`{}` when there are none).

    ArgumentsError when they are not JSON, nest deeper than MAX_ARGUMENT_DEPTH (checked before
    parsing) or hold what Python cannot convert (a number of thousands of digits).
    """
    if not text.strip():
        return {}
    depth = _nesting(text)
    if depth > MAX_ARGUMENT_DEPTH:
        raise ArgumentsError(f"nested more than {MAX_ARGUMENT_DEPTH} levels deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArgumentsError(f"{exc.msg} at char {exc.pos}") from None
    except (ValueError, RecursionError) as exc:
        raise ArgumentsError(str(exc)[:200]) from None


def _nesting(text: str) -> int:
    """How deep the brackets outside string literals go (stops counting past the limit)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_ARGUMENT_DEPTH:
                break
    return deepest


@datarecord
class ToolCall:
    """A tool call the model made: its id, the tool and the arguments as sent."""

    id: str
    name: str
    arguments: str  # the raw JSON text the model sent

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as an object; None when they cannot be read or are not an object."""
        try:
            value = load_arguments(self.arguments)
        except ArgumentsError:
            return None
        return value if isinstance(value, dict) else None

    def arguments_problem(self) -> str:
        """Why `parsed_arguments()` is None, for the model ("" when it is not)."""
        try:
            value = load_arguments(self.arguments)
        except ArgumentsError as exc:
            return f"not valid JSON ({exc})"
        return "" if isinstance(value, dict) else "not a JSON object"


@datarecord
class ThinkingBlock:
    """An Anthropic thinking block, kept verbatim: the API checks its signature when it comes back.

    A `redacted_thinking` block carries only encrypted `data`.
    """

    thinking: str = ""
    signature: str = ""
    data: str = ""

    def to_anthropic(self) -> dict[str, Any]:
        if self.data:
            return {"type": "redacted_thinking", "data": self.data}
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


@datarecord
class Message:
    """One message of a conversation, in the provider-neutral shape."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    # What the model thought before answering: shown apart from the answer, never part of it.
    reasoning: str = ""
    thinking: tuple[ThinkingBlock, ...] = ()  # Anthropic's signed blocks, sent back as they came

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat message shape (also what `sessions export` writes)."""
        if self.role == "tool":
            return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content}
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            message["content"] = self.content or None
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        return message
