"""The Anthropic provider against the loopback server, through the real `anthropic` SDK."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.anthropic import AnthropicProvider
from hermes_tui.core.llm.base import ProviderError, StreamEnd, TextChunk, ToolCallReady, UsageReport
from hermes_tui.core.messages import Message, ToolCall

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": {}},
        },
    }
    for name in ("terminal", "memory")
]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _provider(llm: FakeLLM) -> AnthropicProvider:
    return AnthropicProvider(api_key="test-key", model="claude-fake", base_url=llm.anthropic_url)


def test_streams_text_and_input_json_deltas_with_cache_usage(llm: FakeLLM) -> None:
    llm.script(
        Reply(
            text="Checking", tool_calls=[("terminal", {"command": "git status"})], cached_tokens=900
        )
    )
    events = list(_provider(llm).stream("system text", [Message("user", "status?")], TOOLS))
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Checking"
    call = next(e.call for e in events if isinstance(e, ToolCallReady))
    assert call.name == "terminal" and call.parsed_arguments() == {"command": "git status"}
    usage = next(e.usage for e in events if isinstance(e, UsageReport))
    assert usage.cached_tokens == 900 and usage.output_tokens == 20
    assert events[-1] == StreamEnd("tool_use")


def test_cache_breakpoints_on_system_last_tool_and_last_messages(llm: FakeLLM) -> None:
    history = [
        Message("user", "run it"),
        Message("assistant", "ok", (ToolCall("toolu_1", "terminal", '{"command": "ls"}'),)),
        Message("tool", "a.txt", tool_call_id="toolu_1", tool_name="terminal"),
    ]
    list(_provider(llm).stream("system text", history, TOOLS))
    body = llm.requests[0].body
    assert body["system"] == [
        {"type": "text", "text": "system text", "cache_control": {"type": "ephemeral"}}
    ]
    assert "cache_control" not in body["tools"][0] and body["tools"][-1]["cache_control"] == {
        "type": "ephemeral"
    }
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "terminal",
        "input": {"command": "ls"},
        "cache_control": {"type": "ephemeral"},
    }
    assert (
        messages[2]["content"][0]["type"] == "tool_result"
        and messages[2]["content"][0]["tool_use_id"] == "toolu_1"
    )
    breakpoints = str(body).count("'cache_control'")
    assert breakpoints <= 4


@pytest.mark.parametrize(("fault", "status"), [("429", 429), ("500", 500), ("cut", None)])
def test_faults_become_retryable_provider_errors(
    llm: FakeLLM, fault: str, status: int | None
) -> None:
    llm.script(Reply(text="some words then", fault=fault))
    with pytest.raises(ProviderError) as error:
        list(_provider(llm).stream("s", [Message("user", "hi")], []))
    assert error.value.retryable and error.value.status == status
