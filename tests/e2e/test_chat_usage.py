"""Tokens a user is billed for, as `chat -q` reports and stores them: attempts that failed and
were retried, and the background reviews' calls (counted apart)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime, run_main, write_config


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_a_cut_anthropic_stream_still_counts_the_input_it_billed(home: Path, llm: FakeLLM) -> None:
    llm.script(
        Reply(text="This attempt is cut off half way through its text.", fault="cut"),
        Reply(text="The retried reply.", input_tokens=100, output_tokens=20),
    )
    runtime = open_runtime(home, llm.anthropic_url, provider="anthropic")
    session = runtime.open_session(None)
    result = session.submit("hi")
    assert result.text == "The retried reply." and len(llm.requests) == 2
    # message_start of the cut attempt: 100 in, 1 out; the retry: 100 in, 20 out.
    assert (result.usage.input_tokens, result.usage.output_tokens) == (200, 21)
    stored = runtime.sessions.usage_totals(session.id)
    assert (stored.input_tokens, stored.output_tokens) == (200, 21)


def test_review_tokens_are_counted_in_the_session_apart_from_the_turns(
    home: Path, llm: FakeLLM, capfd: pytest.CaptureFixture[str]
) -> None:
    write_config(
        home, llm.openai_url, memory={"nudge_interval": 1}, skills={"creation_nudge_interval": 0}
    )
    llm.script(
        Reply(text="Sure.", input_tokens=100, output_tokens=10),
        Reply(
            tool_calls=[("memory", {"action": "add", "target": "user", "content": "Short."})],
            input_tokens=300,
            output_tokens=30,
        ),
        Reply(text="Saved.", input_tokens=400, output_tokens=5),
    )

    def hermes(*args: str) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, *args, OPENAI_API_KEY="test-key")

    done = hermes("chat", "-q", "keep answers short", "--json")
    outcome = json.loads(done.stdout)
    assert outcome["usage"]["input_tokens"] == 100
    assert outcome["review_usage"] == {"input_tokens": 700, "output_tokens": 35, "cached_tokens": 0}
    shown = hermes("sessions", "show", outcome["session_id"]).stdout
    assert "tokens in 100 (cached 0) out 10; reviews: in 700 (cached 0) out 35" in shown
