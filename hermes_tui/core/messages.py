"""Plain conversation types shared by the providers, the session store and the agent.

Messages are kept in one neutral shape (close to OpenAI's); each provider converts them to its
wire format. Nothing here knows about a provider, so the session store can import it freely.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # the raw JSON text the model sent

    def parsed_arguments(self) -> dict[str, Any] | None:
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Message:
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
