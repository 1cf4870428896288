"""`hermes-tui eval` end to end over the real OpenAI SDK against the loopback server: the
server's replies come from the scripted eval model, so the learning is real and checkable. A
2-family run completes, survives a SIGKILL mid-run by resuming, and its JSON matches its
Markdown report. The run that is killed is a process; the one that resumes runs through cli.main
in this process (its exit status and output captured at the file descriptors)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from eval_markdown import mismatches
from fakes.llm_server import FakeLLM, Reply, Request
from helpers import cli_env, run_main, write_config

from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.evaluation.runner import scripted_provider
from hermes_tui.evaluation.suite import load_suite
from hermes_tui.resources import bundled_evals_dir

FAMILIES = ["env-var", "flaky-test"]


def _messages(body: dict[str, Any]) -> tuple[str, list[Message]]:
    system, messages = "", []
    for item in body["messages"]:
        content = item.get("content") or ""
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        if item["role"] == "system":
            system = content
        elif item["role"] == "assistant":
            calls = tuple(
                ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in item.get("tool_calls") or []
            )
            messages.append(Message("assistant", content, calls))
        elif item["role"] == "tool":
            messages.append(Message("tool", content, tool_call_id=item.get("tool_call_id")))
        else:
            messages.append(Message(item["role"], content))
    return system, messages


def _scripted_server(llm: FakeLLM, delay: float) -> None:
    model = scripted_provider(load_suite(bundled_evals_dir() / "default").select(FAMILIES))

    def respond(request: Request) -> Reply:
        time.sleep(delay)  # slow enough that a kill lands mid-run
        system, messages = _messages(request.body)
        text, calls = model.decide(system, messages)
        return Reply(
            text=text or "ok", tool_calls=list(calls), input_tokens=1000, cached_tokens=400
        )

    llm.responder = respond


def _arguments(out: Path) -> list[str]:
    return ["eval", "--families", *FAMILIES, "--repeat", "2", "--out", str(out), "--json"]


def _eval(home: Path, out: Path, url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), *_arguments(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(OPENAI_API_KEY="sk-test-eval"),
    )


def _records(out: Path) -> list[dict[str, Any]]:
    try:
        return json.loads((out / "state.json").read_text())["records"]
    except (OSError, ValueError):
        return []


def test_two_family_eval_over_the_openai_sdk_resumes_after_a_kill(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    home.mkdir()
    with FakeLLM() as llm:
        write_config(home, llm.openai_url)
        _scripted_server(llm, delay=0.05)
        first = _eval(home, out, llm.openai_url)
        deadline = time.monotonic() + 90
        while len(_records(out)) < 3 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        first.kill()
        first.communicate(timeout=30)
        cut = _records(out)
        assert first.returncode == -9 and 3 <= len(cut) < 8, first.returncode
        assert not (out / "report.json").exists()

        second = run_main(capfd, home, *_arguments(out), OPENAI_API_KEY="sk-test-eval")
        stdout = second.stdout
        assert second.returncode == 0, second.stderr
        assert llm.requests and all(r.path.endswith("/chat/completions") for r in llm.requests)

    report = json.loads(stdout)
    assert report == json.loads((out / "report.json").read_text())
    assert [r["key"] for r in report["runs"][: len(cut)]] == [r["key"] for r in cut]
    assert len(report["runs"]) == 8 and report["meta"]["provider"] == "openai"
    assert report["meta"]["model"] == "fake-model"
    # The learn arm learned over the wire too: fewer tool calls at its 2nd repetition.
    for family in FAMILIES:
        curve = report["families"][family]["tool_calls"]
        assert curve["learn"][1] < curve["learn"][0] and curve["control"] == [3.0, 3.0]
    assert report["runs"][0]["tokens_in"] > 0 and report["runs"][0]["cached_share"] > 0
    assert report["runs"][0]["cost"] is None  # fake-model has no price: unknown, not $0
    markdown = (out / "report.md").read_text()
    assert mismatches(markdown, report) == []
    assert (out / "report.svg").read_text().startswith("<svg")
