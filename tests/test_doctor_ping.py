"""`hermes-tui doctor --ping` as a user runs it, against the loopback LLM (through cli.main in
this process: the checks it prints and its exit status are the subject)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

from hermes_tui.core.llm.ping import PING_TOOL


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def doctor_ping(capfd: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME EXTRA… doctor --ping` with a key, through cli.main in this
    process (its output captured at the file descriptors)."""

    def run(home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, *extra, "doctor", "--ping", OPENAI_API_KEY="test-key")

    return run


def _line(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.split("] ")[-1].startswith(name))


def test_ping_reports_latency_model_streaming_and_tool_calls(
    home: Path, llm: FakeLLM, doctor_ping
) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(tool_calls=[(PING_TOOL, {"status": "pong"})]))
    result = doctor_ping(home)
    assert result.returncode == 0, result.stdout
    ping = _line(result.stdout, "ping")
    assert ping.startswith("[ok  ] ping: openai · fake-model (served as fake) answered in ")
    assert "[ok  ] streaming: the reply streamed" in result.stdout
    assert "[ok  ] tool calls: the model called the offered tool" in result.stdout
    assert len(llm.requests) == 1


def test_ping_failures_say_what_went_wrong(home: Path, llm: FakeLLM, doctor_ping) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(fault="500", retry_after=None))
    failed = doctor_ping(home)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert _line(failed.stdout, "ping").startswith(
        "[FAIL] ping: openai · fake-model: openai (HTTP 500): server error: scripted failure."
    )
    llm.script(Reply(text="pong, in words", quirks=frozenset({"json_body"})))
    degraded = doctor_ping(home)
    assert degraded.returncode == 1
    assert "[FAIL] streaming: the server sent one JSON body" in degraded.stdout
    assert "[FAIL] tool calls: the model answered in text" in degraded.stdout
    assert "'pong, in words'" in degraded.stdout


def test_a_base_url_without_a_scheme_fails_the_provider_check(home: Path, doctor_ping) -> None:
    result = doctor_ping(home, "--base-url", "127.0.0.1:4000/v1")
    assert result.returncode == 1
    assert "[FAIL] provider: base URL needs http:// or https://" in result.stdout
    assert "[FAIL] ping: no provider to ping" in result.stdout


def test_ping_names_the_other_tools_the_model_called(home: Path, llm: FakeLLM, doctor_ping) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(tool_calls=[("terminal", {"command": "echo pong"})]))
    result = doctor_ping(home)
    assert result.returncode == 1
    assert (
        "[FAIL] tool calls: the model called terminal instead of the offered report_status; "
        "the agent needs a model and server with tool calling"
    ) in result.stdout
    assert "('')" not in result.stdout


def test_the_demo_passes_its_own_doctor_ping(home: Path, capsys) -> None:
    result = run_main(capsys, home, "--provider", "demo", "doctor", "--ping")
    assert "[ok  ] tool calls: the model called the offered tool" in result.stdout, result.stdout
    assert "[FAIL]" not in result.stdout and result.returncode == 0
