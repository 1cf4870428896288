"""A session with an MCP server (mcp-server-time, a real server from the package index)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime

from hermes_tui.core import events as ev

TIME_SERVER = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}


def _tool(request, name: str) -> dict:
    (tool,) = [t for t in request.body["tools"] if t["function"]["name"] == name]
    return tool["function"]


def _tool_results(request) -> list[str]:
    return [m["content"] for m in request.body["messages"] if m["role"] == "tool"]


def test_the_model_calls_an_mcp_tool_with_the_servers_schema_and_the_review_may_not(
    home: Path, tmp_path: Path
) -> None:
    events: list = []
    with FakeLLM() as llm:
        runtime = open_runtime(
            home,
            llm.openai_url,
            sink=events.append,
            mcp_servers=TIME_SERVER,
            memory={"nudge_interval": 1},
            skills={"creation_nudge_interval": 0},
        )
        llm.script(
            Reply(tool_calls=[("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})]),
            Reply(text="It is evening in Tokyo."),
            # the background review tries the MCP tool, then stops
            Reply(tool_calls=[("mcp__time__get_current_time", {"timezone": "UTC"})]),
            Reply(text="Nothing to save."),
        )
        try:
            session = runtime.open_session(cwd=tmp_path, reviewer=runtime.reviewer())
            result = session.submit("What time is it in Tokyo?")
            assert runtime.wait_for_reviews(60)
        finally:
            runtime.stop_mcp()
    assert result.text == "It is evening in Tokyo." and result.tool_errors == 0
    first, answer, review_call, review_end = llm.requests
    (listed,) = [t for t in runtime.mcp.states["time"].tools if t.name == "get_current_time"]
    sent = _tool(first, "mcp__time__get_current_time")
    assert sent["parameters"] == listed.input_schema
    assert sent["description"].startswith("[MCP server time] ")
    (tool_result,) = _tool_results(answer)
    assert json.loads(tool_result)["structured"]["timezone"] == "Asia/Tokyo"
    # The review sends the parent's exact tools (cache parity) but may not run MCP tools.
    assert json.dumps(review_call.body["tools"]) == json.dumps(first.body["tools"])
    refusal = json.loads(_tool_results(review_end)[-1])
    assert refusal["success"] is False and "is not available here" in refusal["error"]
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [(e.name, e.ok) for e in finished] == [
        ("mcp__time__get_current_time", True),
        ("mcp__time__get_current_time", False),
    ]


def test_a_memory_write_after_an_mcp_result_is_held_with_that_result_as_its_source(
    home: Path, tmp_path: Path
) -> None:
    with FakeLLM() as llm:
        runtime = open_runtime(
            home,
            llm.openai_url,
            mcp_servers=TIME_SERVER,
            memory={"nudge_interval": 0},
            skills={"creation_nudge_interval": 0},
        )
        llm.script(
            Reply(tool_calls=[("mcp__time__get_current_time", {"timezone": "UTC"})]),
            Reply(
                tool_calls=[
                    ("memory", {"action": "add", "target": "memory", "content": "Servers run UTC."})
                ]
            ),
            Reply(text="Noted."),
        )
        try:
            session = runtime.open_session(cwd=tmp_path)
            session.submit("what time is it on the servers? remember the zone")
        finally:
            runtime.stop_mcp()
    assert runtime.memory.entries("memory") == []  # MCP output is untrusted: the write waits
    (record,) = runtime.pending.list()
    (source,) = record.sources
    assert source["tool"] == "mcp__time__get_current_time"
