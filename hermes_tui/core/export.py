"""A session as Markdown: what a person would paste into an issue or keep as notes.

User and assistant messages become sections; tool calls are listed under the reply that made
them, with their arguments and (cut) result in fenced blocks whose fence is longer than any
backtick run inside, so a result holding ``` cannot close the block early.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from hermes_tui.core.messages import Message

RESULT_CHARS = 4000


def _fence(text: str, info: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def _result_text(content: str) -> str:
    try:
        outcome: Any = json.loads(content)
    except (ValueError, RecursionError):  # not JSON, or deeper than Python reads
        return content
    if isinstance(outcome, dict):
        for key in ("output", "content", "error", "message"):
            if isinstance(outcome.get(key), str):
                return outcome[key]
    return json.dumps(outcome, indent=2, ensure_ascii=False)


def session_markdown(info: Any, messages: list[Message]) -> str:
    """`info` is a SessionInfo (id, title, provider, model, created_at)."""
    when = datetime.fromtimestamp(info.created_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        f"# {info.title or 'Session ' + info.id}",
        f"Session `{info.id}` · {info.provider}/{info.model} · started {when}",
    ]
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    for message in messages:
        if message.role == "user":
            parts.append(f"## You\n\n{message.content.strip()}")
        elif message.role == "assistant":
            body = [message.content.strip()] if message.content.strip() else []
            for call in message.tool_calls:
                result = _result_text(results.get(call.id, ""))
                if len(result) > RESULT_CHARS:
                    result = (
                        result[:RESULT_CHARS]
                        + f"\n… ({len(result) - RESULT_CHARS:,} more characters)"
                    )
                body.append(
                    f"**Tool `{call.name}`**\n\n{_fence(call.arguments, 'json')}\n\n{_fence(result)}"
                )
            if body:
                parts.append("## Assistant\n\n" + "\n\n".join(body))
    return "\n\n".join(parts) + "\n"
