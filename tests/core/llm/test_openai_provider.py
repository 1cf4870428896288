"""The OpenAI-compatible provider against the loopback server, through the real `openai` SDK."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.base import (
    ProviderError,
    ReasoningChunk,
    StreamEnd,
    TextChunk,
    ToolCallReady,
    UsageReport,
)
from hermes_tui.core.llm.openai_compat import OpenAICompatProvider
from hermes_tui.core.messages import Message

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "description": "run",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _provider(llm: FakeLLM) -> OpenAICompatProvider:
    return OpenAICompatProvider(api_key="test-key", model="fake-model", base_url=llm.openai_url)


def _run(llm: FakeLLM, reply: Reply) -> list:
    llm.script(reply)
    return list(_provider(llm).stream("be brief", [Message("user", "hi")], TOOLS))


def test_streams_text_tool_calls_and_usage_with_cached_tokens(llm: FakeLLM) -> None:
    events = _run(
        llm,
        Reply(
            text="Listing files", tool_calls=[("terminal", {"command": "ls -la"})], cached_tokens=64
        ),
    )
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Listing files"
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.name, c.parsed_arguments()) for c in calls] == [("terminal", {"command": "ls -la"})]
    usage = next(e.usage for e in events if isinstance(e, UsageReport))
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (100, 20, 64)
    assert events[-1] == StreamEnd("tool_calls")
    body = llm.requests[0].body
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize(
    "quirks", [{"one_chunk"}, {"no_index"}, {"object_args"}, {"stop_with_tools"}]
)
def test_tolerates_compatible_server_quirks(llm: FakeLLM, quirks: set[str]) -> None:
    events = _run(
        llm,
        Reply(
            tool_calls=[("terminal", {"command": "ls"}), ("terminal", {"command": "pwd"})],
            quirks=frozenset(quirks),
        ),
    )
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [c.parsed_arguments() for c in calls] == [{"command": "ls"}, {"command": "pwd"}]
    assert all(c.id for c in calls) and events[-1] == StreamEnd("tool_calls")


def test_a_400_for_stream_options_is_answered_by_asking_without_it(llm: FakeLLM) -> None:
    provider = _provider(llm)
    llm.script(Reply(text="fine", fault="reject_stream_options"))
    events = list(provider.stream("s", [Message("user", "hi")], []))
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "fine"
    assert "stream_options" in llm.requests[0].body and "stream_options" not in llm.requests[1].body
    llm.script(Reply(text="again"))
    list(provider.stream("s", [Message("user", "hi")], []))
    assert "stream_options" not in llm.requests[2].body, "the provider remembers"


@pytest.mark.parametrize(
    ("fault", "status", "phrase"),
    [
        ("429", 429, "rate limited"),
        ("500", 500, "server error"),
        ("cut", None, ""),
        ("garbage", None, "unreadable"),
    ],
)
def test_faults_become_retryable_provider_errors(
    llm: FakeLLM, fault: str, status: int | None, phrase: str
) -> None:
    with pytest.raises(ProviderError) as error:
        _run(llm, Reply(text="partial text here", fault=fault, retry_after="7"))
    assert error.value.retryable and error.value.status == status
    assert phrase in str(error.value)
    if fault == "429":
        assert error.value.retry_after == 7.0


def test_malformed_tool_arguments_arrive_as_text_for_the_loop_to_report(llm: FakeLLM) -> None:
    events = _run(llm, Reply(tool_calls=[("terminal", '{"command": "ls"')]))
    call = next(e.call for e in events if isinstance(e, ToolCallReady))
    assert call.parsed_arguments() is None and call.arguments == '{"command": "ls"'


def test_an_error_frame_inside_a_200_stream_is_a_provider_error_not_a_crash(llm: FakeLLM) -> None:
    # LiteLLM and other proxies: HTTP 200, some text, `data: {"error": ...}`, and no [DONE].
    with pytest.raises(ProviderError) as error:
        _run(llm, Reply(text="partial words before it broke", fault="error_frame"))
    assert error.value.retryable, "an upstream failure part-way through is worth another try"
    assert "upstream said overloaded_error" in error.value.user_message()


@pytest.mark.parametrize(
    ("code", "retryable", "phrase"),
    [("503", True, ""), ("429", True, "Wait a moment"), ("400", False, "")],
)
def test_a_litellm_error_frame_is_classified_by_the_status_in_its_code(
    llm: FakeLLM, code: str, retryable: bool, phrase: str
) -> None:
    # LiteLLM: {"error": {"message": ..., "type": null, "param": null, "code": "503"}}
    with pytest.raises(ProviderError) as error:
        _run(llm, Reply(text="partial", fault="error_frame", error_type=None, error_code=code))
    assert error.value.retryable is retryable and phrase in error.value.user_message()


def test_an_error_frame_that_says_the_request_was_wrong_is_not_retried(llm: FakeLLM) -> None:
    with pytest.raises(ProviderError) as error:
        _run(
            llm,
            Reply(text="partial", fault="error_frame", error_type="context_length_exceeded"),
        )
    assert not error.value.retryable
    assert "context_length_exceeded" in str(error.value)


def test_calls_sharing_an_index_with_new_ids_stay_separate_calls(llm: FakeLLM) -> None:
    """LitServe sends three calls in one chunk, all `"index": 0`, ids call_ls0-call_ls2."""
    events = _run(
        llm,
        Reply(
            tool_calls=[
                ("read_file", {"path": "a.txt"}),
                ("read_file", {"path": "b.txt"}),
                ("terminal", {"command": "ls"}),
            ],
            tool_call_ids=("call_ls0", "call_ls1", "call_ls2"),
            quirks=frozenset({"shared_index"}),
        ),
    )
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.id, c.name, c.parsed_arguments()) for c in calls] == [
        ("call_ls0", "read_file", {"path": "a.txt"}),
        ("call_ls1", "read_file", {"path": "b.txt"}),
        ("call_ls2", "terminal", {"command": "ls"}),
    ]


@pytest.mark.parametrize("quirks", [frozenset(), frozenset({"reasoning_field"})])
def test_reasoning_deltas_are_kept_out_of_the_answer(llm: FakeLLM, quirks: frozenset) -> None:
    events = _run(
        llm, Reply(reasoning="The user greets; reply briefly.", text="Hello!", quirks=quirks)
    )
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Hello!"
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningChunk))
    assert reasoning == "The user greets; reply briefly."


def test_a_whole_json_reply_to_a_stream_request_is_accepted(llm: FakeLLM) -> None:
    events = _run(
        llm,
        Reply(
            text="From JSON",
            reasoning="thought",
            tool_calls=[("terminal", {"command": "ls"})],
            cached_tokens=30,
            quirks=frozenset({"json_body"}),
        ),
    )
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "From JSON"
    assert [e.text for e in events if isinstance(e, ReasoningChunk)] == ["thought"]
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.name, c.parsed_arguments()) for c in calls] == [("terminal", {"command": "ls"})]
    usage = next(e.usage for e in events if isinstance(e, UsageReport))
    assert (usage.input_tokens, usage.cached_tokens) == (100, 30)
    assert events[-1] == StreamEnd("tool_calls")
    assert len(llm.requests) == 1, "accepted at once, not retried as a cut stream"


def test_connection_refused_reads_as_one_sentence(llm: FakeLLM) -> None:
    provider = OpenAICompatProvider(api_key="k", model="m", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ProviderError) as error:
        list(provider.stream("s", [Message("user", "hi")], []))
    message = error.value.user_message()
    assert error.value.retryable and ".." not in message


def test_the_request_is_what_the_sdks_own_create_sends_with_the_key(llm: FakeLLM) -> None:
    """The provider posts the body itself (no typed-dict transform of the whole conversation
    at every call): the server gets byte for byte the JSON, path and key that
    `chat.completions.create` sends for the same conversation, tools and options."""
    import openai

    conversation = [
        Message("user", 'quote "this" ünïcödé \\ and\\nthat'),
        Message("assistant", "ok"),
        Message("user", "again"),
    ]
    provider = _provider(llm)
    provider.reasoning_effort = "low"
    llm.script(Reply(text="one"), Reply(text="two"))
    list(provider.stream("be brief", conversation, TOOLS))
    client = openai.OpenAI(api_key="test-key", base_url=llm.openai_url, max_retries=0)
    wire = [{"role": "system", "content": "be brief"}, *(m.to_openai() for m in conversation)]
    stream = client.chat.completions.create(
        model="fake-model",
        messages=wire,
        stream=True,
        tools=TOOLS,
        reasoning_effort="low",
        stream_options={"include_usage": True},
    )
    list(stream)
    ours, sdks = llm.requests
    assert ours.path == sdks.path == "/v1/chat/completions"
    assert ours.body == sdks.body
    assert ours.headers["authorization"] == sdks.headers["authorization"] == "Bearer test-key"
    assert ours.headers["content-type"] == sdks.headers["content-type"]
