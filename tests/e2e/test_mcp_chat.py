"""`chat -q` with MCP servers: a failing server is a notice, `approval: always` refuses. The
command runs through cli.main in this process, its MCP server as a process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

FAKE = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")


def test_chat_q_refuses_an_ask_first_mcp_tool_and_survives_a_broken_server(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with FakeLLM() as llm:
        write_config(
            home,
            llm.openai_url,
            memory={"nudge_interval": 0},
            skills={"creation_nudge_interval": 0},
            mcp_servers={
                "tools": {"command": sys.executable, "args": [FAKE], "approval": "always"},
                "broken": {"command": str(tmp_path / "missing-server")},
            },
        )
        llm.script(
            Reply(tool_calls=[("mcp__tools__echo", {"text": "secret"})]),
            Reply(text="I could not use it."),
        )
        args = ("chat", "-q", "go", "--json")
        done = run_main(capfd, home, *args, cwd=tmp_path, OPENAI_API_KEY="test-key")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["text"] == "I could not use it." and outcome["tool_errors"] == 1
    assert "MCP server 'broken' could not start: command not found" in done.stderr
    assert "refused (needs approval: calls echo on the MCP server tools" in done.stderr
    tool_message = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"][0]
    assert "did not allow" in json.loads(tool_message["content"])["error"]
    assert "Traceback" not in done.stderr
