"""`chat -q --stream-json` against the loopback LLM: one JSON object per line, each valid against
the shipped schema, as the turn happens, ending with the result."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, run_main, write_config
from jsonschema import Draft202012Validator

from hermes_tui.cli_stream import schema

PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nstream-json-key-material\n"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema())


def _lines(stdout: str, validator: Draft202012Validator) -> list[dict]:
    lines = []
    for raw in stdout.splitlines():
        line = json.loads(raw)  # every line is one whole JSON object
        errors = [e.message for e in validator.iter_errors(line)]
        assert not errors, f"{raw[:200]}: {errors}"
        lines.append(line)
    return lines


def _reply_text(lines: list[dict]) -> str:
    """The reply as a script rebuilds it from the deltas, honouring text_reset."""
    kept, current = [], []
    for line in lines:
        if line["type"] == "text":
            current.append(line["text"])
        elif line["type"] == "text_reset":
            current = []
        elif line["type"] == "tool_result":
            kept += current
            current = []
    return "".join(kept + current)


def test_every_line_matches_the_schema_and_tells_the_whole_turn(
    home: Path,
    tmp_path: Path,
    llm: FakeLLM,
    validator: Draft202012Validator,
    capfd: pytest.CaptureFixture[str],
) -> None:
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_rsa").write_text(PRIVATE_KEY)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("port=8443\n")
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    llm.script(
        Reply(
            reasoning="Look at the notes first.",
            text="Reading.",
            tool_calls=[
                ("read_file", {"path": "notes.txt"}),
                ("read_file", {"path": "~/.ssh/id_rsa"}),
                ("memory", {"action": "add", "target": "memory", "content": "Port is 8443."}),
                ("todo", {"todos": [{"content": "Answer", "status": "in_progress"}]}),
            ],
        ),
        Reply(text="This attempt is cut off", fault="cut"),
        Reply(text="It listens on \x1b[31m8443."),
    )
    env = {"OPENAI_API_KEY": "test-key", "HOME": str(user)}
    done = run_main(capfd, home, "chat", "-q", "which port?", "--stream-json", cwd=work, **env)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout, "escape sequences stay JSON-escaped"
    lines = _lines(done.stdout, validator)
    types = [line["type"] for line in lines]
    assert types[0] == "turn_started" and types[-1] == "result"
    assert types.count("result") == 1
    for expected in ("reasoning", "text", "tool_call", "tool_result", "approval", "usage"):
        assert expected in types, expected
    assert "memory_changed" in types and "text_reset" in types and "turn_finished" in types
    calls = [line for line in lines if line["type"] == "tool_call"]
    results = {line["call_id"]: line for line in lines if line["type"] == "tool_result"}
    assert [c["name"] for c in calls] == ["read_file", "read_file", "memory", "todo"]
    assert all(c["call_id"] in results for c in calls), "every call has its result"
    notes, key, _, _ = (results[c["call_id"]] for c in calls)
    assert notes["ok"] and "port=8443" in notes["result"]
    assert not key["ok"] and "stream-json-key-material" not in done.stdout
    refused = next(line for line in lines if line["type"] == "approval")
    assert refused["decision"] == "refused" and refused["command"].endswith(".ssh/id_rsa")
    result = lines[-1]
    assert result["exit_code"] == 0 and result["tool_calls"] == 4
    todo = next(line for line in lines if line["type"] == "todo")
    assert todo["items"] == [{"content": "Answer", "status": "in_progress"}]
    assert result["text"] == "It listens on \x1b[31m8443."  # the final answer
    # The deltas rebuild everything said, the attempt cut off and retried left out.
    assert _reply_text(lines) == "Reading." + result["text"]
    usage = [line for line in lines if line["type"] == "usage"][-1]
    assert usage["input_tokens"] == result["usage"]["input_tokens"] > 0
    assert done.stderr.strip().splitlines()[-1] == f"session: {result['session_id']}"


def test_lines_arrive_while_the_turn_runs_and_ctrl_c_still_ends_with_a_result(
    home: Path, tmp_path: Path, llm: FakeLLM, validator: Draft202012Validator
) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(text="first half, then silence", fault="hang_mid_stream", chunk=100))
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "go"]
        + ["--stream-json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
        env=cli_env(OPENAI_API_KEY="test-key"),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(process.stdout), daemon=True)
    reader.start()
    try:
        # The reply's text is out while the server still holds the stream open.
        deadline = time.monotonic() + 60
        while not any('"type": "text"' in line for line in seen):
            assert time.monotonic() < deadline, seen
            time.sleep(0.02)
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(10)
    lines = _lines("".join(seen), validator)
    assert lines[-1]["type"] == "result" and lines[-1]["interrupted"]
    assert lines[-1]["text"] == "first half, then silence"


def test_ctrl_c_before_start_prints_a_valid_result_line(
    capsys: pytest.CaptureFixture[str], validator: Draft202012Validator
) -> None:
    from hermes_tui.cli import stopped_early

    assert stopped_early(["chat", "-q", "x", "--stream-json"]) == 130
    line = json.loads(capsys.readouterr().out)
    assert line["type"] == "result" and line["exit_code"] == 130 and line["interrupted"]
    assert not list(validator.iter_errors(line))
