"""Retries around a provider stream, against the loopback server."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.base import ProviderError, StreamRestart, TextChunk
from hermes_tui.core.llm.openai_compat import OpenAICompatProvider
from hermes_tui.core.llm.retry import RetryPolicy, stream_with_retries
from hermes_tui.core.messages import Message

FAST = RetryPolicy(max_retries=3, base_delay=0.001, max_delay=0.01)


def _stream(llm: FakeLLM, policy: RetryPolicy = FAST, retries: list | None = None) -> list:
    provider = OpenAICompatProvider(api_key="k", model="m", base_url=llm.openai_url)
    record = retries if retries is not None else []
    return list(
        stream_with_retries(
            provider,
            "s",
            [Message("user", "hi")],
            [],
            policy,
            on_retry=lambda e, n, d: record.append((e.status, n, d)),
        )
    )


def test_429_and_500_are_retried_honouring_retry_after() -> None:
    with FakeLLM() as llm:
        llm.script(
            Reply(fault="429", retry_after="0.05"),
            Reply(fault="500", retry_after=None),
            Reply(text="done"),
        )
        retries: list = []
        events = _stream(llm, retries=retries)
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "done"
    assert [(status, attempt) for status, attempt, _ in retries] == [(429, 1), (500, 2)]
    assert retries[0][2] == pytest.approx(0.05)


def test_a_cut_stream_restarts_and_the_partial_text_is_marked_for_dropping() -> None:
    with FakeLLM() as llm:
        llm.script(
            Reply(text="the first attempt is long enough to be cut", fault="cut"),
            Reply(text="second"),
        )
        events = _stream(llm)
    restart = next(i for i, e in enumerate(events) if isinstance(e, StreamRestart))
    assert "".join(e.text for e in events[restart:] if isinstance(e, TextChunk)) == "second"


def test_gives_up_after_the_last_try_with_one_clear_error() -> None:
    with FakeLLM() as llm:
        llm.script(*[Reply(fault="500", retry_after=None)] * 4)
        with pytest.raises(ProviderError) as error:
            _stream(llm)
        assert len(llm.requests) == 4
    assert error.value.user_message().startswith("openai (HTTP 500): server error")


def test_an_anthropic_overloaded_event_mid_stream_is_retried() -> None:
    from hermes_tui.core.llm.anthropic import AnthropicProvider

    with FakeLLM() as llm:
        llm.script(
            Reply(text="the first attempt breaks part-way", fault="error_frame"),
            Reply(text="second"),
        )
        provider = AnthropicProvider(api_key="k", model="m", base_url=llm.anthropic_url)
        events = list(stream_with_retries(provider, "s", [Message("user", "hi")], [], FAST))
        assert len(llm.requests) == 2
    restart = next(i for i, e in enumerate(events) if isinstance(e, StreamRestart))
    assert "".join(e.text for e in events[restart:] if isinstance(e, TextChunk)) == "second"


def test_an_openai_error_frame_mid_stream_is_retried() -> None:
    with FakeLLM() as llm:
        llm.script(Reply(text="cut by the proxy part-way", fault="error_frame"), Reply(text="ok"))
        events = _stream(llm)
        assert len(llm.requests) == 2
    restart = next(i for i, e in enumerate(events) if isinstance(e, StreamRestart))
    assert "".join(e.text for e in events[restart:] if isinstance(e, TextChunk)) == "ok"


def test_litellms_llm_provider_retry_after_is_honoured() -> None:
    """LiteLLM passes the upstream's retry-after on as `llm_provider-retry-after`."""
    with FakeLLM() as llm:
        llm.script(
            Reply(fault="429", retry_after="0.07", retry_after_header="llm_provider-retry-after"),
            Reply(text="done"),
        )
        retries: list = []
        events = _stream(llm, retries=retries)
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "done"
    assert [(status, delay) for status, _, delay in retries] == [(429, pytest.approx(0.07))]


def test_upstream_timeouts_as_408_are_retried_by_status_and_inside_the_stream() -> None:
    with FakeLLM() as llm:
        llm.script(
            Reply(fault="408", retry_after=None),
            # LiteLLM: an error frame with no type and the upstream's status as its code.
            Reply(text="half of a reply", fault="error_frame", error_type=None, error_code="408"),
            Reply(text="done"),
        )
        retries: list = []
        events = _stream(llm, retries=retries)
    restart = max(i for i, e in enumerate(events) if isinstance(e, StreamRestart))
    assert "".join(e.text for e in events[restart:] if isinstance(e, TextChunk)) == "done"
    assert [attempt for _, attempt, _ in retries] == [1, 2]
    assert retries[0][0] == 408
