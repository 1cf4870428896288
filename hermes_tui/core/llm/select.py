"""Which provider to use: flag/config first, else detected from the API keys that are set."""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from hermes_tui.core.llm.base import (
    DEFAULT_FIRST_BYTE_TIMEOUT,
    DEFAULT_TIMEOUT,
    Provider,
    ProviderNotConfigured,
    ProviderSettingsError,
)
from hermes_tui.core.records import datarecord

DEFAULT_MODELS = {
    "openai": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-5",
    "openrouter": "anthropic/claude-sonnet-4.5",
}
KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}
BASE_URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
OPENROUTER_URL = "https://openrouter.ai/api/v1"
NOT_CONFIGURED = (
    "no LLM provider is configured. Set one of OPENAI_API_KEY, ANTHROPIC_API_KEY or "
    "OPENROUTER_API_KEY (in the environment or in {home}/.env), or point OPENAI_BASE_URL at an "
    "OpenAI-compatible server such as Ollama, or pass --provider demo to watch the scripted demo."
)


class ModelSettings(Protocol):
    provider: str | None
    name: str | None
    base_url: str | None


class Config(Protocol):
    """What choosing a provider reads: the `model` section, the environment (with the home's
    .env) and the home. The configuration's own `Config` has all three; the core never imports
    it (DESIGN.md 1.4)."""

    @property
    def home(self) -> Path: ...
    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def model(self) -> ModelSettings: ...


@datarecord
class ProviderSpec:
    """Which provider and model a runtime talks to, before the SDK is built."""

    name: str
    model: str
    base_url: str | None
    api_key: str


def detect(config: Config) -> str | None:
    env: Mapping[str, str] = config.env
    if config.model.provider:
        return config.model.provider
    for name in ("anthropic", "openai", "openrouter"):
        if env.get(KEY_VARIABLES[name]):
            return name
    if env.get("OPENAI_BASE_URL"):
        return "openai"
    return None


def choose(config: Config) -> ProviderSpec:
    name = detect(config)
    if name is None:
        raise ProviderNotConfigured(NOT_CONFIGURED.format(home=config.home))
    if name == "demo":
        return ProviderSpec("demo", config.model.name or "hermes-demo", None, "")
    env = config.env
    base_url = config.model.base_url or env.get(BASE_URL_VARIABLES.get(name, ""), "") or None
    if name == "openrouter":
        base_url = base_url or OPENROUTER_URL
    if base_url is not None:
        check_base_url(base_url, name)
        base_url = normalised_base_url(base_url, name)
    key = env.get(KEY_VARIABLES[name], "")
    if not key:
        if name == "openai" and base_url:
            key = "not-needed"  # local OpenAI-compatible servers (Ollama, llama.cpp) take any key
        else:
            raise ProviderNotConfigured(
                f"the {name} provider needs {KEY_VARIABLES[name]}; set it in the environment or in {config.home}/.env"
            )
    return ProviderSpec(name, config.model.name or DEFAULT_MODELS[name], base_url, key)


def check_base_url(base_url: str, provider: str) -> None:
    """A base URL without a scheme would be retried as a network failure; say what is wrong."""
    scheme, _, rest = base_url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        variable = BASE_URL_VARIABLES.get(provider)
        sources = (
            f"--base-url, {variable} or model.base_url"
            if variable
            else "--base-url or model.base_url"
        )
        raise ProviderSettingsError(
            f"base URL needs http:// or https://: got {base_url!r} (set by {sources}); "
            f"for example http://{base_url.split('://')[-1]}"
        )


def normalised_base_url(base_url: str, provider: str) -> str:
    """The Anthropic SDK adds `/v1/messages` itself: a base URL ending in `/v1` (as OpenAI-style
    URLs do) would send `POST /v1/v1/messages` and get a 404, so that `/v1` is dropped."""
    if provider == "anthropic":
        stripped = base_url.rstrip("/")
        if stripped.endswith("/v1"):
            return stripped[: -len("/v1")]
    return base_url


SDK_MODULES = {"anthropic": "anthropic", "demo": None}


def preload_sdk(config: Config) -> threading.Thread | None:
    """Import the chosen provider's SDK on a thread (it is the slowest import, ~0.5-1 s) while
    the caller builds stores, the skills index and the prompt; `open_provider` then finds it
    imported, or waits on the import lock for the rest. None when there is nothing to load.

    First the thread reads what the SDK's first request reads for its headers (both SDKs send
    the platform: `platform.platform()` runs `uname -p` once per process, a few ms spent
    waiting): here that wait passes while the caller works instead of in the turn."""
    try:
        spec = choose(config)
    except (ProviderNotConfigured, ProviderSettingsError):
        return None  # open_provider reports it properly
    module = SDK_MODULES.get(spec.name, "openai")
    if module is None:
        return None

    def load() -> None:
        import platform

        platform.platform()  # remembered by the platform module (see the docstring)
        # A missing or broken SDK is reported by the real import in open_provider.
        with contextlib.suppress(ImportError):
            importlib.import_module(module)

    thread = threading.Thread(target=load, name=f"preload-{module}", daemon=True)
    thread.start()
    return thread


def open_provider(
    spec: ProviderSpec,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    first_byte_timeout: float = DEFAULT_FIRST_BYTE_TIMEOUT,
    reasoning_effort: str = "",
) -> Provider:
    """The provider `spec` names; `reasoning_effort` (agent.reasoning_effort) is what the real
    providers ask for (the scripted demo has none)."""
    if spec.name == "demo":
        from hermes_tui.core.llm.demo import DemoProvider

        return DemoProvider(model=spec.model, delay=0.01)
    provider: Any
    if spec.name == "anthropic":
        from hermes_tui.core.llm.anthropic import AnthropicProvider

        provider = AnthropicProvider(
            api_key=spec.api_key,
            model=spec.model,
            base_url=spec.base_url,
            timeout=timeout,
            first_byte_timeout=first_byte_timeout,
        )
    else:
        from hermes_tui.core.llm.openai_compat import OpenAICompatProvider

        provider = OpenAICompatProvider(
            api_key=spec.api_key,
            model=spec.model,
            base_url=spec.base_url,
            name=spec.name,
            timeout=timeout,
            first_byte_timeout=first_byte_timeout,
        )
    provider.reasoning_effort = reasoning_effort
    return provider
