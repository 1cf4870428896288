"""Turn the `openai` / `anthropic` SDK exceptions (same names in both) into ProviderErrors.

Both SDKs raise APIStatusError (with the HTTP response), APITimeoutError and
APIConnectionError; a stream torn mid-way surfaces as the HTTP library's own exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hermes_tui.core.llm.base import ProviderError, StreamEvent

TRANSPORT_MODULES = ("httpx2", "httpx", "httpcore", "h11")


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", None) or exc)


def status_error(provider: str, model: str, exc: Any, key_hint: str) -> ProviderError:
    status = getattr(exc, "status_code", None)
    message, retry_after = _message(exc), _retry_after(exc)
    if status == 429:
        return ProviderError(
            provider,
            f"rate limited: {message}",
            status=status,
            retryable=True,
            retry_after=retry_after,
            hint="Wait a moment or check your plan's limits.",
        )
    if status is not None and status >= 500:
        kind = "overloaded" if status == 529 else "server error"
        return ProviderError(
            provider, f"{kind}: {message}", status=status, retryable=True, retry_after=retry_after
        )
    if status in (401, 403):
        return ProviderError(provider, f"not authorised: {message}", status=status, hint=key_hint)
    if status == 404:
        return ProviderError(
            provider,
            f"not found: {message}",
            status=status,
            hint=f"Check the model name ({model}) and the base URL.",
        )
    return ProviderError(provider, message, status=status)


def translated(
    events: Iterator[StreamEvent],
    *,
    sdk: Any,
    provider: str,
    model: str,
    base_url: str | None,
    key_hint: str,
    network_hint: str,
) -> Iterator[StreamEvent]:
    """Re-yield `events`, raising every failure as a ProviderError that says what to check."""
    try:
        yield from events
    except sdk.APIStatusError as exc:
        raise status_error(provider, model, exc, key_hint) from exc
    except (sdk.APITimeoutError, sdk.APIConnectionError) as exc:
        raise ProviderError(
            provider,
            f"connection to {base_url or 'the API'} failed or was cut: {exc}",
            retryable=True,
            hint=network_hint,
        ) from exc
    except json.JSONDecodeError as exc:
        raise ProviderError(
            provider, f"the server sent an unreadable stream ({exc.msg})", retryable=True
        ) from exc
    except Exception as exc:  # only transport errors are translated; anything else is a bug
        if type(exc).__module__.split(".")[0] in TRANSPORT_MODULES:
            raise ProviderError(provider, f"the stream was cut: {exc}", retryable=True) from exc
        raise
