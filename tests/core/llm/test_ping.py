"""`ping`: one tiny real request through the real SDKs, against the loopback server."""

from __future__ import annotations

import itertools

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.anthropic import AnthropicProvider
from hermes_tui.core.llm.openai_compat import OpenAICompatProvider
from hermes_tui.core.llm.ping import PING_TOOL, ping

TOOL_CALL = [(PING_TOOL, {"status": "pong"})]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _openai(llm: FakeLLM, url: str | None = None) -> OpenAICompatProvider:
    return OpenAICompatProvider(api_key="k", model="fake-model", base_url=url or llm.openai_url)


def _ticks(step: float = 0.25):
    """A clock that moves `step` seconds per reading, so latencies are exact."""
    counter = itertools.count()
    return lambda: next(counter) * step


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_tool_call_in_a_stream_reports_streaming_and_tool_calls_working(
    llm: FakeLLM, provider: str
) -> None:
    llm.script(Reply(tool_calls=TOOL_CALL))
    target = (
        _openai(llm)
        if provider == "openai"
        else AnthropicProvider(api_key="k", model="claude-fake", base_url=llm.anthropic_url)
    )
    result = ping(target, clock=_ticks())
    assert result.ok and result.streaming and result.tool_calls
    assert result.served_model == "fake" and result.first_event == 0.25
    assert result.latency > result.first_event
    assert PING_TOOL in llm.requests[0].tool_names and len(llm.requests) == 1
    assert "served as fake" in result.summary() and "streaming yes" in result.summary()


def test_a_text_answer_and_a_json_body_are_reported_as_such(llm: FakeLLM) -> None:
    llm.script(Reply(text="pong", quirks=frozenset({"json_body"})))
    result = ping(_openai(llm))
    assert result.ok and result.streaming is False and result.tool_calls is False
    assert result.reply == "pong"
    assert "streaming no" in result.summary() and "tool calls no" in result.summary()


def test_a_server_error_is_a_failed_ping_that_is_not_retried(llm: FakeLLM) -> None:
    llm.script(Reply(fault="500", retry_after=None))
    result = ping(_openai(llm), clock=_ticks())
    assert not result.ok and result.retryable and len(llm.requests) == 1
    assert result.summary() == (
        "openai · fake-model: openai (HTTP 500): server error: scripted failure. (after 0.25s)"
    )


def test_nothing_listening_is_a_failed_ping_naming_the_address(llm: FakeLLM) -> None:
    result = ping(_openai(llm, "http://127.0.0.1:9/v1"))
    assert not result.ok and "127.0.0.1:9" in result.error and ".." not in result.error
