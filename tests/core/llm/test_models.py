"""Listing a provider's models through the real SDKs, against the loopback server."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM

from hermes_tui.core.llm.base import ProviderError
from hermes_tui.core.llm.models import list_models


@pytest.fixture
def llm():
    with FakeLLM() as server:
        server.models = ["zeta-1", "alpha-2", "alpha-2"]
        yield server


def test_openai_compatible_and_anthropic_listings(llm: FakeLLM) -> None:
    assert list_models("openai", llm.openai_url, "") == ["alpha-2", "zeta-1"]
    assert list_models("anthropic", llm.anthropic_url, "key") == ["alpha-2", "zeta-1"]
    assert llm.requests[0].path.endswith("/v1/models")


def test_a_wrong_base_url_says_what_to_check(llm: FakeLLM) -> None:
    with pytest.raises(ProviderError, match="HTTP 404") as caught:
        list_models("openai", llm.anthropic_url, "")  # no /v1: the server has no /models
    assert "type a model name by hand" in caught.value.user_message()
    with pytest.raises(ProviderError, match="could not reach"):
        list_models("openai", "http://127.0.0.1:9/v1", "")


def test_a_failed_listing_keeps_the_servers_own_words(llm: FakeLLM) -> None:
    with pytest.raises(ProviderError) as caught:
        list_models("openai", llm.anthropic_url, "")
    assert "no route /models" in caught.value.user_message()
    with pytest.raises(ProviderError) as anthropic:
        list_models("anthropic", llm.anthropic_url + "/api", "key")
    assert "without /v1" in anthropic.value.user_message()
    assert "usually end in /v1" not in anthropic.value.user_message()


def test_an_anthropic_base_url_ending_in_v1_is_not_doubled(llm: FakeLLM, tmp_path) -> None:
    from hermes_tui.config import load_config
    from hermes_tui.core.llm.select import choose, open_provider
    from hermes_tui.core.messages import Message

    assert list_models("anthropic", llm.anthropic_url + "/v1/", "key") == ["alpha-2", "zeta-1"]
    config = load_config(
        tmp_path,
        environ={
            "ANTHROPIC_API_KEY": "key",
            "ANTHROPIC_BASE_URL": llm.anthropic_url + "/v1",
            "HERMES_MODEL": "fake-model",
        },
    )
    provider = open_provider(choose(config))
    list(provider.stream("be brief", [Message("user", "hi")], []))
    assert llm.requests[-1].path == "/v1/messages"
