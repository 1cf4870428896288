"""A session is named after the user's own words, never after text added to them."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime, run_main

from hermes_tui.core.text import title_of


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_after_a_bang_command_the_title_is_what_the_user_typed(
    home: Path, tmp_path: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.script(Reply(text="It printed hi."))
    runtime = open_runtime(home, llm.openai_url)
    session = runtime.open_session(cwd=tmp_path)
    assert session.run_shell("echo hi")
    session.submit("^")
    sent = [m for m in llm.requests[-1].body["messages"] if m["role"] == "user"][-1]
    assert "Before this message I ran a shell command" in sent["content"]
    assert runtime.sessions.get(session.id).title == "^"
    listed = run_main(capsys, home, "sessions", "list")
    assert listed.returncode == 0 and "Before this message" not in listed.stdout


def test_a_face_names_the_session_after_the_typed_words_not_the_paste(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Read it."), Reply(text="Again."))
    session = open_runtime(home, llm.openai_url).open_session(cwd=tmp_path)
    pasted = "\n".join(f"log line {i}: write a report" for i in range(40))
    session.submit(f"why does this fail? {pasted}", title="why does this fail?")
    session.submit("second message", title="second")
    assert session.info.title == "why does this fail?", "the first message names it, once"


def test_a_title_is_one_line_cut_at_a_word_with_controls_visible() -> None:
    assert title_of("\n\n  fix   the\tbuild \nsecond line") == "fix the build"
    long = "please read the attached logs and then write a report about what failed and why it did"
    titled = title_of(long, limit=40)
    assert titled == "please read the attached logs and then…" and len(titled) <= 40
    assert title_of("\x1b]0;pwned\x07 hi \u202eevil") == "␛]0;pwned␇ hi ⟨U+202E⟩evil"
    assert title_of("   \n ") == ""
