"""The models a provider offers: `GET /v1/models` (OpenAI-compatible servers, OpenRouter) or
Anthropic's models endpoint, through the real SDKs. Used by the app's model picker, which
still accepts any name typed by hand (a server may serve models it does not list).
"""

from __future__ import annotations

import importlib

from hermes_tui.core.llm.base import ProviderError
from hermes_tui.core.llm.sdk_errors import server_words
from hermes_tui.core.llm.select import OPENROUTER_URL, check_base_url, normalised_base_url

LIST_TIMEOUT = 15.0


def list_models(name: str, base_url: str | None, api_key: str) -> list[str]:
    """Model ids, sorted; raises ProviderError saying what to check (key, URL, network)."""
    if name == "demo":
        return ["hermes-demo"]
    if name == "openrouter":
        base_url = base_url or OPENROUTER_URL
    if base_url:
        check_base_url(base_url, name)
        base_url = normalised_base_url(base_url, name)
    sdk = importlib.import_module("anthropic" if name == "anthropic" else "openai")
    where = base_url or f"the {name} API"
    try:
        if name == "anthropic":
            client = sdk.Anthropic(
                api_key=api_key, base_url=base_url, max_retries=0, timeout=LIST_TIMEOUT
            )
            ids = [model.id for model in client.models.list(limit=1000)]
        else:
            client = sdk.OpenAI(
                api_key=api_key or "not-needed",  # local servers take any key
                base_url=base_url,
                max_retries=0,
                timeout=LIST_TIMEOUT,
            )
            ids = [model.id for model in client.models.list()]
        return sorted(set(ids))
    except sdk.AuthenticationError as exc:
        raise ProviderError(
            name, f"the key was refused: {server_words(exc)}", hint="Check the API key."
        ) from exc
    except sdk.APIStatusError as exc:
        url_hint = (
            "Check the base URL (without /v1: the SDK adds it)"
            if name == "anthropic"
            else "Check the base URL (OpenAI-compatible servers usually end in /v1)"
        )
        raise ProviderError(
            name,
            f"{where} answered HTTP {exc.status_code} to a model listing: {server_words(exc)}",
            hint=f"{url_hint}; you can still type a model name by hand.",
        ) from exc
    except (sdk.APITimeoutError, sdk.APIConnectionError) as exc:
        raise ProviderError(
            name,
            f"could not reach {where}: {str(exc).rstrip('.')}",
            retryable=True,
            hint="Check the base URL and that the server is running.",
        ) from exc
