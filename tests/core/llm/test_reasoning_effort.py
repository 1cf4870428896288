"""The reasoning effort (/reasoning, agent.reasoning_effort) as each provider sends it."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM, Reply

from hermes_tui.core.llm.select import ProviderSpec, open_provider
from hermes_tui.core.messages import Message


@pytest.fixture
def llm():
    with FakeLLM(Reply(text="ok")) as server:
        yield server


def _spec(name: str, url: str) -> ProviderSpec:
    return ProviderSpec(name=name, model="m", api_key="k", base_url=url)


def test_openai_compatible_sends_reasoning_effort_only_when_set(llm: FakeLLM) -> None:
    provider = open_provider(_spec("openai", llm.openai_url), reasoning_effort="low")
    list(provider.stream("sys", [Message("user", "hi")], []))
    assert llm.requests[-1].body["reasoning_effort"] == "low"
    provider.reasoning_effort = ""
    list(provider.stream("sys", [Message("user", "hi")], []))
    assert "reasoning_effort" not in llm.requests[-1].body


def test_anthropic_asks_for_extended_thinking_with_room_for_the_answer(llm: FakeLLM) -> None:
    provider = open_provider(_spec("anthropic", llm.anthropic_url), reasoning_effort="high")
    list(provider.stream("sys", [Message("user", "hi")], []))
    body = llm.requests[-1].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert body["max_tokens"] == 8192 + 16384
    provider.reasoning_effort = "none"
    list(provider.stream("sys", [Message("user", "hi")], []))
    assert "thinking" not in llm.requests[-1].body and llm.requests[-1].body["max_tokens"] == 8192
