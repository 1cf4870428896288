"""A session exported as Markdown reads as a transcript, with tool calls fenced safely."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core.export import session_markdown
from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.core.sessions import SessionStore


def test_a_session_reads_as_a_transcript_with_fenced_tool_calls(home: Path) -> None:
    store = SessionStore(home / "sessions.db")
    info = store.create(provider="openai", model="m", system_prompt="S")
    store.append(info.id, Message("user", "show the readme"))
    call = ToolCall("c1", "read_file", '{"path": "README.md"}')
    store.append(info.id, Message("assistant", "Reading.", (call,)))
    store.append(
        info.id,
        Message("tool", '{"content": "# Title\\n```sh\\nmake\\n```"}', (), "c1", "read_file"),
    )
    store.append(info.id, Message("assistant", "It says to run `make`."))
    info = store.get(info.id)
    text = session_markdown(info, [s.message for s in store.messages(info.id)])
    assert text.startswith("# show the readme\n") or text.startswith(f"# Session {info.id}")
    assert "## You\n\nshow the readme" in text
    assert "**Tool `read_file`**" in text and '```json\n{"path": "README.md"}\n```' in text
    # The result holds ``` itself: its fence is longer, so it cannot end the block early.
    assert "````\n# Title\n```sh\nmake\n```\n````" in text
    assert text.rstrip().endswith("It says to run `make`.")
