"""`chat -q` with MCP servers: a failing server is a notice, `approval: always` refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, write_config

FAKE = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")


def test_chat_q_refuses_an_ask_first_mcp_tool_and_survives_a_broken_server(
    home: Path, tmp_path: Path
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
        done = subprocess.run(
            [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "go", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=cli_env(OPENAI_API_KEY="test-key"),
        )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["text"] == "I could not use it." and outcome["tool_errors"] == 1
    assert "MCP server 'broken' could not start: command not found" in done.stderr
    assert "refused (needs approval: calls echo on the MCP server tools" in done.stderr
    tool_message = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"][0]
    assert "did not allow" in json.loads(tool_message["content"])["error"]
    assert "Traceback" not in done.stderr
