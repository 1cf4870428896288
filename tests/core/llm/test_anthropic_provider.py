"""The Anthropic provider against the loopback server, through the real `anthropic` SDK."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.anthropic import AnthropicProvider
from hermes_tui.core.llm.base import (
    ProviderError,
    ReasoningChunk,
    StreamEnd,
    TextChunk,
    ThinkingReady,
    ToolCallReady,
    UsageReport,
)
from hermes_tui.core.messages import Message, ThinkingBlock, ToolCall

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
    usage = [e.usage for e in events if isinstance(e, UsageReport)][-1]
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


def test_usage_sent_only_in_message_delta_is_counted(llm: FakeLLM) -> None:
    # Some servers send zeros in message_start and the cumulative counts in message_delta.
    llm.script(
        Reply(text="hi", input_tokens=40, cached_tokens=5000, quirks=frozenset({"usage_in_delta"}))
    )
    events = list(_provider(llm).stream("s", [Message("user", "hi")], []))
    usage = [e.usage for e in events if isinstance(e, UsageReport)][-1]
    assert (usage.input_tokens, usage.cached_tokens, usage.output_tokens) == (5040, 5000, 20)


def test_total_input_adds_cache_reads_and_writes_so_the_cache_share_is_a_share(
    llm: FakeLLM,
) -> None:
    llm.script(Reply(text="hi", input_tokens=100, cached_tokens=5000, cache_creation_tokens=900))
    events = list(_provider(llm).stream("s", [Message("user", "hi")], []))
    usage = [e.usage for e in events if isinstance(e, UsageReport)][-1]
    assert usage.input_tokens == 100 + 5000 + 900
    assert usage.cached_tokens / usage.input_tokens < 1
    assert usage.cache_creation_tokens == 900


@pytest.mark.parametrize(
    ("error_type", "retryable"),
    [("overloaded_error", True), ("api_error", True), ("invalid_request_error", False)],
)
def test_an_error_event_after_message_start_is_classified_by_its_type(
    llm: FakeLLM, error_type: str, retryable: bool
) -> None:
    llm.script(Reply(text="partial reply text", fault="error_frame", error_type=error_type))
    with pytest.raises(ProviderError) as error:
        list(_provider(llm).stream("s", [Message("user", "hi")], []))
    assert error.value.retryable is retryable
    assert error_type in str(error.value) and error.value.status is None


def test_thinking_streams_as_reasoning_and_its_signed_block_is_kept(llm: FakeLLM) -> None:
    llm.script(Reply(reasoning="Consider the files.", text="Done.", signature="sig-123"))
    events = list(_provider(llm).stream("s", [Message("user", "hi")], []))
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Done."
    assert "".join(e.text for e in events if isinstance(e, ReasoningChunk)) == (
        "Consider the files."
    )
    blocks = [e.block for e in events if isinstance(e, ThinkingReady)]
    assert blocks == [ThinkingBlock("Consider the files.", "sig-123")]


def test_thinking_blocks_go_back_first_and_unchanged_with_their_signatures(llm: FakeLLM) -> None:
    history = [
        Message("user", "run it"),
        Message(
            "assistant",
            "",
            (ToolCall("toolu_1", "terminal", '{"command": "ls"}'),),
            reasoning="I should list.",
            thinking=(ThinkingBlock("I should list.", "sig-abc"), ThinkingBlock(data="enc")),
        ),
        Message("tool", "a.txt", tool_call_id="toolu_1", tool_name="terminal"),
    ]
    list(_provider(llm).stream("s", history, TOOLS))
    assistant = llm.requests[0].body["messages"][1]["content"]
    assert assistant[0] == {
        "type": "thinking",
        "thinking": "I should list.",
        "signature": "sig-abc",
    }
    assert assistant[1] == {"type": "redacted_thinking", "data": "enc"}
    assert assistant[2]["type"] == "tool_use"


def test_a_whole_json_message_to_a_stream_request_is_accepted(llm: FakeLLM) -> None:
    llm.script(
        Reply(
            text="From JSON",
            reasoning="hmm",
            tool_calls=[("terminal", {"command": "ls"})],
            cached_tokens=10,
            quirks=frozenset({"json_body"}),
        )
    )
    events = list(_provider(llm).stream("s", [Message("user", "hi")], TOOLS))
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "From JSON"
    assert [e.block for e in events if isinstance(e, ThinkingReady)] == [
        ThinkingBlock("hmm", "sig-fake-0001")
    ]
    call = next(e.call for e in events if isinstance(e, ToolCallReady))
    assert call.parsed_arguments() == {"command": "ls"}
    usage = [e.usage for e in events if isinstance(e, UsageReport)][-1]
    assert (usage.input_tokens, usage.cached_tokens) == (110, 10)
    assert events[-1] == StreamEnd("tool_use") and len(llm.requests) == 1
