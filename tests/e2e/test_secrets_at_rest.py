"""What the model said about a secret is not kept or shown with it: its reasoning (OpenAI
`reasoning_content`, Anthropic thinking), the names of tools it made up, and what `sessions show`
prints, all judged by the bytes of sessions.db (with its WAL) and of the command's output (run
through cli.main in this process, captured at the file descriptors)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

KNOWN = "Vr7-kumquat-Secret-55aa19"  # no shape: only the .env knows it
SHAPED = "ghp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6"  # configured nowhere


def pieces(secret: str, size: int = 10) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def assert_nowhere(home: Path, *outputs: str) -> None:
    stored = {p.name: p.read_bytes() for p in home.glob("sessions.db*") if p.is_file()}
    assert "sessions.db" in stored
    for secret in (KNOWN, SHAPED):
        for piece in pieces(secret):
            for name, data in stored.items():
                assert piece.encode() not in data, (piece, name)
            for output in outputs:
                assert piece not in output, (piece, output[-400:])


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def chat(
    capfd: pytest.CaptureFixture[str], home: Path, llm: FakeLLM, provider: str, *replies: Reply
) -> tuple[str, str]:
    """One `chat -q` run: its output and its session's id."""
    key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    (home / ".env").write_text(f"{key}=test-key\nDB_TOKEN={KNOWN}\n", encoding="utf-8")
    url = llm.anthropic_url if provider == "anthropic" else llm.openai_url
    write_config(home, url, provider, memory={"nudge_interval": 0})
    llm.script(*replies)
    done = run_main(capfd, home, "chat", "-q", "hi", cwd=home)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr, done.stderr.strip().splitlines()[-1].split()[-1]


def show(
    capfd: pytest.CaptureFixture[str], home: Path, session: str
) -> subprocess.CompletedProcess[str]:
    shown = run_main(capfd, home, "sessions", "show", session, cwd=home)
    assert shown.returncode == 0, shown.stderr
    return shown


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_reasoning_is_stored_and_shown_redacted(
    home: Path, llm: FakeLLM, capfd: pytest.CaptureFixture[str], provider: str
) -> None:
    thought = f"the token is {KNOWN} and the other one {SHAPED}, fine"
    output, session = chat(capfd, home, llm, provider, Reply(reasoning=thought, text="fine."))
    shown = show(capfd, home, session)
    assert_nowhere(home, output, shown.stdout + shown.stderr)
    assert "[REDACTED DB_TOKEN]" in (home / "sessions.db").read_bytes().decode("utf-8", "replace")


def test_sessions_show_redacts_a_thought_before_cutting_it(
    home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    import base64

    from hermes_tui.core.messages import Message
    from hermes_tui.core.sessions import SessionStore

    (home / ".env").write_text(f"DB_TOKEN={KNOWN}\n", encoding="utf-8")
    encoded = base64.b64encode(KNOWN.encode()).decode()
    # Kept before reasoning was redacted at rest: the shown line is cut at 300 characters,
    # 29 of them into the encoded secret.
    store = SessionStore(home / "sessions.db")
    info = store.create(provider="openai", model="m", system_prompt="")
    store.append(info.id, Message("assistant", "fine.", reasoning="a" * 270 + " " + encoded))
    store.close()
    shown = show(capfd, home, info.id)
    assert "(thought: " in shown.stdout and "[REDACTED DB_TOKEN]" in shown.stdout
    for piece in pieces(encoded):
        assert piece not in shown.stdout, piece


def test_a_tool_name_carrying_a_secret_is_stored_and_shown_redacted(
    home: Path, llm: FakeLLM, capfd: pytest.CaptureFixture[str]
) -> None:
    made_up = Reply(tool_calls=[(f"cat_{KNOWN} {SHAPED}", {"x": SHAPED})])
    output, session = chat(capfd, home, llm, "openai", made_up, Reply(text="ok"))
    shown = show(capfd, home, session)
    assert_nowhere(home, output, shown.stdout + shown.stderr)
    assert "cat_[REDACTED DB_TOKEN]" in shown.stdout


def test_the_todo_list_and_the_checkpoint_log_keep_no_secret(home: Path, llm: FakeLLM) -> None:
    """ATTACK3 A3-3 and A3-8: the todo list the model writes (sessions.db's todos column) and
    the turn's text in checkpoints/<session>/log.jsonl are kept redacted, as messages are."""
    from hermes_tui.runtime import Runtime

    (home / ".env").write_text(f"OPENAI_API_KEY=test-key\nDB_TOKEN={KNOWN}\n", encoding="utf-8")
    write_config(home, llm.openai_url, "openai", memory={"nudge_interval": 0})
    todos = [{"content": f"rotate {KNOWN} and {SHAPED}", "status": "pending"}]
    llm.script(Reply(tool_calls=[("todo", {"todos": todos})]), Reply(text="noted."))
    runtime = Runtime.open(home, environ={})
    try:
        runtime.open_session(cwd=home).submit(f"use {KNOWN} for {KNOWN.upper()} please")
    finally:
        runtime.close()
    logs = [p.read_text(encoding="utf-8") for p in home.glob("checkpoints/*/log.jsonl")]
    assert logs and all("[REDACTED DB_TOKEN]" in log for log in logs)
    assert_nowhere(home, *logs)
    assert KNOWN.upper() not in "".join(logs)
