"""What the session store holds, as plain records: sessions, stored messages, search hits,
and how a database row becomes one (core/sessions.py reads and writes them)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import asdict

from hermes_tui.core.messages import Message, ThinkingBlock, ToolCall
from hermes_tui.core.records import datarecord


@datarecord
class SessionInfo:
    """A stored session's row: its title, model, prompt, counters and totals."""

    id: str
    title: str
    created_at: float
    updated_at: float
    provider: str
    model: str
    system_prompt: str
    parent_id: str | None
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    nudge_memory: int
    nudge_skills: int
    message_count: int = 0
    cache_write_tokens: int = 0
    todos: str = ""  # the agent's todo list as JSON (core/todo.py), '' for none


@datarecord
class StoredMessage:
    """A message as sessions.db keeps it."""

    id: int
    session_id: str
    created_at: float
    message: Message


@datarecord
class SearchHit:
    """A message that matched a full-text search, with its snippet."""

    message_id: int
    session_id: str
    session_title: str
    role: str
    snippet: str
    created_at: float
    score: float


@datarecord
class SessionMatch:
    """A session found by a search: its best hit and how many of its messages matched."""

    session_id: str
    title: str
    best: SearchHit
    hits: int


def readable_snippet(row: sqlite3.Row) -> str:
    """The matching text, not the JSON it is stored in: escaped newlines and quotes undone.

    Matches in the message text come first; a match only in a tool call's JSON or a tool's
    name says so. Match markers become `[` `]` only after the text is chosen and cleaned.
    """
    keys = row.keys()
    found = row["in_content"] or ""
    prefix = ""
    for column, label in (("in_calls", "tool call: "), ("in_tool", "tool: ")):
        if "\x02" not in found and column in keys and "\x02" in (row[column] or ""):
            found, prefix = row[column], label
    # Tool calls are JSON inside JSON: undo one level of backslashes, then the escapes.
    text = found.replace("\\\\", "\\")
    text = text.replace("\\n", " ").replace("\\t", " ").replace('\\"', '"')
    if prefix == "tool call: ":
        text = re.sub(r'[{}\[\]]|"(?:id|name|arguments)":\s*|"call_[^"]*",?', " ", text)
        text = text.replace('\\"', '"').replace('"', "")
    text = " ".join(text.split()).replace("\x02", "[").replace("\x03", "]")
    return prefix + text


def info_from_row(row: sqlite3.Row) -> SessionInfo:
    keys = row.keys()
    return SessionInfo(
        id=row["id"],
        title=row["title"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        provider=row["provider"],
        model=row["model"],
        system_prompt=row["system_prompt"],
        parent_id=row["parent_id"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        cached_tokens=row["cached_tokens"],
        nudge_memory=row["nudge_memory"] if "nudge_memory" in keys else 0,
        nudge_skills=row["nudge_skills"] if "nudge_skills" in keys else 0,
        message_count=row["message_count"] if "message_count" in keys else 0,
        cache_write_tokens=row["cache_write_tokens"] if "cache_write_tokens" in keys else 0,
        todos=row["todos"] if "todos" in keys else "",
    )


def stored_from_row(row: sqlite3.Row) -> StoredMessage:
    calls = (
        tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in json.loads(row["tool_calls"]))
        if row["tool_calls"]
        else ()
    )
    reasoning = json.loads(row["reasoning"]) if row["reasoning"] else {}
    message = Message(
        row["role"],
        row["content"],
        calls,
        row["tool_call_id"],
        row["tool_name"] or None,
        reasoning=reasoning.get("text", ""),
        thinking=tuple(ThinkingBlock(**block) for block in reasoning.get("blocks", [])),
    )
    return StoredMessage(row["id"], row["session_id"], row["created_at"], message)


def reasoning_column(
    message: Message, redact: Callable[[str], str] = str, text: str | None = None
) -> str:
    """The message's reasoning as stored: redacted like its text (`text`: already redacted).
    A thinking block whose text held a secret loses its signature with it (the API would refuse
    the redacted text under the original one); an unsigned block is not sent back
    (core/llm/anthropic.py)."""
    if not message.reasoning and not message.thinking:
        return ""
    blocks = []
    for block in message.thinking:
        thinking = redact(block.thinking)
        signature = block.signature if thinking == block.thinking else ""
        blocks.append(asdict(ThinkingBlock(thinking, signature, block.data)))
    text = redact(message.reasoning) if text is None else text
    return json.dumps({"text": text, "blocks": blocks}, ensure_ascii=False)


def sql_statements(script: str) -> list[str]:
    """Split a script into statements, keeping trigger bodies (which hold ';') whole."""
    statements, current = [], ""
    for line in script.strip().splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements
