"""`chat -q` against a hostile loopback model: a reply built to crash the client leaves the
turn answered, the session resumable and `--json` printing one object.

Replies nested to crash the parser, and a damaged stored session, run the command through
cli.main in this process (helpers.run_main, its output captured at the file descriptors): what
the command does with them is the subject. Lone surrogates run a process, since how its
streams and its argv encode them is."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, run_main, write_config

DEEP = "[" * 50_000 + "]" * 50_000  # Python's JSON parser recurses once a level
DEEP_CHUNK = 4096  # streamed in 25 deltas, not 14,000: the depth is the point, not the split


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def chat(capfd: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME chat -q ARGS…` in HOME with a key, in this process."""

    def run(home: Path, *args: str, provider: str = "openai") -> subprocess.CompletedProcess[str]:
        key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
        return run_main(capfd, home, "chat", "-q", *args, cwd=home, **{key: "test-key"})

    return run


def _chat(home: Path, *args: str, provider: str = "openai") -> subprocess.CompletedProcess[str]:
    """The same as its own process."""
    key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env=cli_env(**{key: "test-key"}),
    )


def _one_object(result: subprocess.CompletedProcess[str]) -> dict:
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, (result.stdout, result.stderr)
    return json.loads(lines[0])


def test_arguments_nested_fifty_thousand_deep_get_an_error_and_the_session_resumes(
    home: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    llm.script(
        Reply(tool_calls=[("terminal", DEEP)], args_chunk=DEEP_CHUNK),
        Reply(text="fine now"),
        Reply(text="fine again"),
        Reply(text="still fine"),
    )
    first = chat(home, "hi", "--json")
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    outcome = _one_object(first)
    assert outcome["text"] == "fine now" and outcome["tool_errors"] == 1
    # The model is told why, in a result it can read, and nothing ran.
    told = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    error = json.loads(told[0]["content"])
    assert error["success"] is False and "nested more than" in error["error"]
    # Every later turn starts from the stored conversation, which holds the call verbatim.
    for expected in ("fine again", "still fine"):
        later = chat(home, "again", "--continue", "--json")
        assert later.returncode == 0, later.stderr
        assert "Traceback" not in later.stderr
        resumed = _one_object(later)
        assert resumed["text"] == expected and resumed["session_id"] == outcome["session_id"]
    assert llm.requests[-1].body["messages"][2]["tool_calls"][0]["function"]["arguments"] == DEEP


def test_deep_arguments_over_anthropic_are_refused_not_a_crash(
    home: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.anthropic_url, provider="anthropic", memory={"nudge_interval": 0})
    llm.script(
        Reply(tool_calls=[("terminal", DEEP)], args_chunk=DEEP_CHUNK),
        Reply(text="ok"),
        Reply(text="ok again"),
    )
    first = chat(home, "hi", "--json", provider="anthropic")
    assert first.returncode == 0, first.stderr
    assert _one_object(first)["text"] == "ok"
    later = chat(home, "again", "--continue", "--json", provider="anthropic")
    assert later.returncode == 0, later.stderr
    assert _one_object(later)["text"] == "ok again"


def test_an_unexpected_error_while_starting_still_prints_one_json_object(
    home: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    llm.script(Reply(tool_calls=[("todo", {})]), Reply(text="one"))
    assert chat(home, "hi").returncode == 0
    with sqlite3.connect(home / "sessions.db") as db:  # a damaged row: not a JSON list
        db.execute("UPDATE messages SET tool_calls = '[{' WHERE role = 'assistant'")
    result = chat(home, "again", "--continue", "--json")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    outcome = _one_object(result)
    assert outcome["exit_code"] == 1 and outcome["error"].startswith("unexpected error:")
    assert "errors.log" in outcome["error"] and (home / "logs" / "errors.log").exists()


def test_a_lone_surrogate_in_the_reply_keeps_the_text_and_the_session(
    home: Path, llm: FakeLLM
) -> None:
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    llm.script(
        Reply(text="before a\ud800b after.", chunk=5),
        Reply(text="plain \udfff printed.", chunk=3),
        Reply(text="next turn."),
    )
    first = _chat(home, "hi", "--json")
    assert first.returncode == 0, first.stderr
    assert _one_object(first)["text"] == "before a\ufffdb after."
    printed = _chat(home, "again", "--continue")  # streamed to the console as it comes
    assert printed.returncode == 0, printed.stderr
    assert "plain \ufffd printed." in printed.stdout
    later = _chat(home, "more", "--continue", "--json")
    assert later.returncode == 0, later.stderr
    assert _one_object(later)["text"] == "next turn."
    sent = [m.get("content") for m in llm.requests[-1].body["messages"]]
    assert "before a\ufffdb after." in sent and "plain \ufffd printed." in sent


def test_a_lone_surrogate_in_anthropic_reasoning_and_in_argv_is_kept_readable(
    home: Path, llm: FakeLLM
) -> None:
    write_config(home, llm.anthropic_url, provider="anthropic", memory={"nudge_interval": 0})
    llm.script(Reply(reasoning="r\udfff thought", text="ok"), Reply(text="ok again"))
    first = _chat(home, "hi", "--json", provider="anthropic")
    assert first.returncode == 0, first.stderr
    outcome = _one_object(first)
    assert outcome["text"] == "ok" and outcome["reasoning"] == "r\ufffd thought"
    # Undecodable bytes on the command line reach Python as lone surrogates too.
    later = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q"]
        + [b"bytes \xff here", "--continue", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env=cli_env(ANTHROPIC_API_KEY="test-key"),
    )
    assert later.returncode == 0, later.stderr
    assert _one_object(later)["text"] == "ok again"
    with sqlite3.connect(home / "sessions.db") as db:
        stored = [row[0] for row in db.execute("SELECT content FROM messages ORDER BY id")]
    assert "bytes \ufffd here" in stored
