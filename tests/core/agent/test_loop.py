"""The agent loop against the loopback LLM: tools, errors, budget, cancel, compression."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime

from hermes_tui.core import events as ev
from hermes_tui.core.messages import Message


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _tool_results(request) -> list[dict]:
    return [json.loads(m["content"]) for m in request.body["messages"] if m["role"] == "tool"]


def test_tool_results_reach_the_model_and_the_turn_ends_on_a_final_answer(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    events: list = []
    runtime = open_runtime(home, llm.openai_url, sink=events.append)
    llm.script(
        Reply(text="Let me look.", tool_calls=[("terminal", {"command": "echo hello-from-tool"})]),
        Reply(text="The tool said hello."),
    )
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("what does echo say?")
    assert (
        result.text == "The tool said hello." and result.tool_calls == 1 and result.tool_errors == 0
    )
    assert "hello-from-tool" in _tool_results(llm.requests[1])[0]["output"]
    kinds = [type(e).__name__ for e in events]
    assert (
        kinds.index("TurnStarted")
        < kinds.index("ToolCallStarted")
        < kinds.index("ToolCallFinished")
        < kinds.index("TurnFinished")
    )
    stored = [m.message.role for m in runtime.sessions.messages(session.id)]
    assert stored == ["user", "assistant", "tool", "assistant"]


def test_malformed_arguments_and_unknown_tools_are_errors_the_model_sees(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    llm.script(
        Reply(tool_calls=[("terminal", '{"command": "ls"'), ("no_such_tool", {})]),
        Reply(text="sorry"),
    )
    result = runtime.open_session(cwd=tmp_path).submit("go")
    errors = [r["error"] for r in _tool_results(llm.requests[1])]
    assert "not valid JSON" in errors[0] and "there is no tool named 'no_such_tool'" in errors[1]
    assert result.tool_errors == 2


def test_repeated_failing_call_gets_a_guardrail_warning(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    failing = Reply(tool_calls=[("read_file", {"path": "missing.txt"})])
    llm.script(failing, failing, Reply(text="giving up"))
    runtime.open_session(cwd=tmp_path).submit("read it")
    second = _tool_results(llm.requests[2])[-1]
    assert "failed 2 times" in second["warning"]


def test_iteration_budget_ends_with_one_grace_call(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url, agent={"max_turns": 2})
    llm.responder = lambda request: Reply(
        text="again", tool_calls=[("terminal", {"command": "true"})]
    )
    result = runtime.open_session(cwd=tmp_path).submit("loop forever")
    assert len(llm.requests) == 3
    assert "iteration budget reached" in llm.requests[2].last_user_text
    assert result.text == "again" and result.tool_calls == 2


def test_provider_failure_after_retries_keeps_the_conversation(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    events: list = []
    runtime = open_runtime(home, llm.openai_url, sink=events.append)
    llm.script(*[Reply(fault="500", retry_after=None)] * 3)
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("hello?")
    assert result.error is not None and result.error.status == 500
    stored = [m.message for m in runtime.sessions.messages(session.id)]
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].content.startswith("[no reply: provider error: openai (HTTP 500)")
    errors = [e for e in events if isinstance(e, ev.ErrorEvent)]
    assert errors and "server error" in errors[0].text
    assert sum(isinstance(e, ev.Notice) and "Retrying" in e.text for e in events) == 2


def test_an_error_frame_mid_stream_is_reported_and_the_next_call_alternates_roles(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    # The proxy sends text, then an error frame and no [DONE], on every try.
    events: list = []
    runtime = open_runtime(home, llm.openai_url, sink=events.append)
    broken = Reply(text="a partial answer that breaks", fault="error_frame")
    llm.script(*[broken] * 3, Reply(text="fine now"))
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("first question")
    assert result.error is not None and "upstream said overloaded_error" in str(result.error)
    assert any(isinstance(e, ev.ErrorEvent) for e in events), "the error is shown, not swallowed"
    assert session.submit("second question").text == "fine now"
    roles = [m["role"] for m in llm.requests[-1].body["messages"][1:]]
    assert roles == ["user", "assistant", "user"]
    assert "[the reply was cut off by a provider error]" in str(llm.requests[-1].body["messages"])


def test_reasoning_is_streamed_apart_stored_and_kept_out_of_the_answer(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    events: list = []
    runtime = open_runtime(home, llm.openai_url, sink=events.append)
    llm.script(Reply(reasoning="Think: they want a greeting.", text="Hello there."))
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("hi")
    assert result.text == "Hello there."
    streamed = "".join(e.text for e in events if isinstance(e, ev.ReasoningDelta))
    assert streamed == "Think: they want a greeting."
    assert "Think" not in "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    answer = runtime.sessions.messages(session.id)[-1].message
    assert (answer.content, answer.reasoning) == ("Hello there.", "Think: they want a greeting.")
    llm.script(Reply(text="again"))
    session.submit("more")
    assert "Think" not in json.dumps(llm.requests[-1].body), "reasoning is not sent back"


def test_anthropic_thinking_is_stored_and_sent_back_with_its_signature_in_the_tool_loop(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.anthropic_url, provider="anthropic")
    llm.script(
        Reply(
            reasoning="List first.",
            signature="sig-xyz",
            tool_calls=[("terminal", {"command": "echo hi"})],
        ),
        Reply(text="It printed hi."),
    )
    session = runtime.open_session(cwd=tmp_path)
    assert session.submit("run echo hi").text == "It printed hi."
    assistant = llm.requests[1].body["messages"][1]["content"]
    assert assistant[0] == {"type": "thinking", "thinking": "List first.", "signature": "sig-xyz"}
    stored = [m.message for m in runtime.sessions.messages(session.id)]
    assert stored[1].thinking[0].signature == "sig-xyz"


def test_cancel_between_chunks_keeps_the_partial_reply(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    cancel = threading.Event()

    def sink(event) -> None:
        if isinstance(event, ev.TextDelta):
            cancel.set()

    runtime = open_runtime(home, llm.openai_url, sink=sink)
    llm.script(
        Reply(
            text="a long answer that will be interrupted",
            tool_calls=[("terminal", {"command": "touch never"})],
        )
    )
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("talk", cancel)
    assert result.interrupted and not (tmp_path / "never").exists()
    last = runtime.sessions.messages(session.id)[-1].message
    assert last.role == "assistant" and last.content.endswith("[interrupted by the user]")


def test_compression_continues_in_a_child_session(home: Path, tmp_path: Path, llm: FakeLLM) -> None:
    runtime = open_runtime(home, llm.openai_url, model={"context_length": 2000})
    session = runtime.open_session(cwd=tmp_path)
    first_id = session.id
    for i in range(30):
        runtime.sessions.append(first_id, Message("user", f"old message {i} " + "x" * 200))
    session.agent.history = [m.message for m in runtime.sessions.messages(first_id)]
    llm.script(Reply(text="## Goal\nsummary of old messages"), Reply(text="continuing"))
    result = session.submit("next step")
    assert result.text == "continuing"
    assert session.id != first_id and runtime.sessions.get(session.id).parent_id == first_id
    sent = llm.requests[1].body["messages"]
    assert any("Summary of" in str(m["content"]) for m in sent)
    assert len(sent) < 30
