"""A Hermes user's history in the command line: list, show, search and resume (issue 28)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

FIXTURE = Path(__file__).parent.parent / "data" / "hermes-0.19.0-home" / "state.db"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_list_show_search_and_resume_a_hermes_session(
    home: Path, llm: FakeLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")

    def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return run_main(capsys, home, *args)  # in this process: see run_main

    shutil.copy(FIXTURE, home / "state.db")
    before = hashlib.sha256((home / "state.db").read_bytes()).hexdigest()
    listed = run(home, "sessions", "list")
    assert "hermes:20260921_101500_ab12cd" in listed.stdout and "[Hermes cli]" in listed.stdout
    as_json = json.loads(run(home, "sessions", "list", "--json").stdout)
    assert {row["origin"] for row in as_json} == {"hermes"}
    shown = run(home, "sessions", "show", "hermes:20260921")
    assert (
        "Fix the flaky payments test" in shown.stdout and "pytest -q -p no:randomly" in shown.stdout
    )
    found = run(home, "sessions", "search", "ledger")
    assert found.stdout.startswith("hermes:20260921_101500_ab12cd")

    write_config(home, llm.openai_url)
    llm.script(Reply(text="Then isolate the ledger fixture per test."))
    resumed = run(home, "chat", "-q", "So what now?", "--session", "hermes:20260921_101500_ab12cd")
    assert resumed.returncode == 0, resumed.stderr
    sent = [m.get("content") for m in llm.requests[-1].body["messages"]]
    assert "The payments test fails one run in three." in sent and sent[-1] == "So what now?"
    ours = [r for r in json.loads(run(home, "sessions", "list", "--json").stdout)]
    forked = [r for r in ours if r["origin"] == "hermes-tui"]
    assert len(forked) == 1 and "(from hermes:20260921_101500_ab12cd)" in forked[0]["title"]
    assert hashlib.sha256((home / "state.db").read_bytes()).hexdigest() == before
