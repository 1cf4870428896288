"""Turn the `openai` / `anthropic` SDK exceptions (same names in both) into ProviderErrors.

This is the one place SDK errors are translated, whether they are raised by the request or
while a stream is iterated. Both SDKs raise APIStatusError (with the HTTP response),
APITimeoutError and APIConnectionError; an error frame inside a 200 stream arrives as a plain
APIError (OpenAI: `data: {"error": ...}`) or as an APIStatusError carrying status 200
(Anthropic: `event: error`); a stream torn mid-way surfaces as the HTTP library's own
exception. Errors inside a stream are classified by their `type`/`code`, not their status.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hermes_tui.core.llm.base import ProviderError, StreamEvent

TRANSPORT_MODULES = ("httpx2", "httpx", "httpcore", "h11")
# Error types (Anthropic's `error.type`, OpenAI's and LiteLLM's `type`/`code`) that say "the
# request was wrong": asking again cannot help. Any other error inside a stream that had already
# started is treated as the upstream failing part-way, which a retry usually cures.
FINAL_ERROR_TYPES = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "permission_denied",
        "not_found_error",
        "billing_error",
        "request_too_large",
        "context_length_exceeded",
        "content_filter",
        "content_policy_violation",
        "insufficient_quota",
        "invalid_api_key",
        "model_not_found",
    }
)
RETRYABLE_ERROR_TYPES = frozenset(
    {"overloaded_error", "rate_limit_error", "api_error", "server_error", "timeout_error"}
)


def sdk_timeout(read: float) -> Any:
    """The SDK client's timeout: `read` for every read and write, a short connect."""
    import httpx2

    from hermes_tui.core.llm.base import CONNECT_TIMEOUT

    return httpx2.Timeout(read, connect=min(read, CONNECT_TIMEOUT))


TIMEOUT_HINT = "A slow server may need a longer model.timeout or model.first_byte_timeout."


def _timeout_reason(exc: BaseException) -> str:
    """The transport's own words about a timeout ("nothing from the server within 60s
    (first-byte timeout)"), found down the exception's causes; else the SDK's."""
    seen: BaseException | None = exc
    while seen is not None:
        if seen is not exc and "timeout" in type(seen).__name__.lower() and str(seen):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return str(exc).rstrip(".")


def answered_with_json(http_response: Any) -> bool:
    """True when a stream request got a plain JSON body (a whole reply, or an error) instead."""
    content_type = http_response.headers.get("content-type", "")
    return content_type.split(";")[0].strip().lower() == "application/json"


# Where a server says how long to wait, first match wins. LiteLLM passes the upstream's
# headers on with an `llm_provider-` prefix, and its own retry-after may be missing.
RETRY_AFTER_HEADERS = (
    ("retry-after-ms", 0.001),
    ("retry-after", 1.0),
    ("llm_provider-retry-after-ms", 0.001),
    ("llm_provider-retry-after", 1.0),
)


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    for header, scale in RETRY_AFTER_HEADERS:
        value = response.headers.get(header)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            seconds = _http_date_delay(value)
            if seconds is not None:
                return seconds
    return None


def _http_date_delay(value: str) -> float | None:
    """Seconds until an HTTP date (`Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`)."""
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_object(body: Any) -> dict[str, Any]:
    """The `error` object of an error body, whichever wrapping the server used."""
    if isinstance(body, dict):
        inner = body.get("error")
        return inner if isinstance(inner, dict) else body
    return {}


def server_words(exc: Any) -> str:
    """What the server said about an error, in its own words (its `message`, else the SDK's)."""
    return _message(exc).strip().rstrip(".")


def _message(exc: Any) -> str:
    error = _error_object(getattr(exc, "body", None))
    if error.get("message"):
        return str(error["message"])
    return str(getattr(exc, "message", None) or exc)


def _kind(exc: Any) -> tuple[str, int | None]:
    """The error's type/code in lower case, and a status the body names (LiteLLM sends "429")."""
    error = _error_object(getattr(exc, "body", None))
    kind = str(error.get("type") or error.get("code") or "").lower()
    status = None
    for value in (error.get("code"), error.get("status_code"), error.get("status")):
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            status = int(value)
            break
    return kind, status


def status_error(provider: str, model: str, exc: Any, key_hint: str) -> ProviderError:
    status = getattr(exc, "status_code", None)
    message, retry_after = _message(exc), _retry_after(exc)
    if status is not None and 200 <= status < 300:  # Anthropic's `event: error` in a 200 stream
        return stream_error(provider, model, exc, key_hint)
    if status == 429:
        return ProviderError(
            provider,
            f"rate limited: {message}",
            status=status,
            retryable=True,
            retry_after=retry_after,
            hint="Wait a moment or check your plan's limits.",
        )
    if status == 408:  # an upstream timeout, as LiteLLM reports it: asking again usually works
        return ProviderError(
            provider,
            f"the server timed out: {message}",
            status=status,
            retryable=True,
            retry_after=retry_after,
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


def stream_error(provider: str, model: str, exc: Any, key_hint: str) -> ProviderError:
    """An error reported inside a stream that began with HTTP 200 (so the status says nothing)."""
    kind, status = _kind(exc)
    label = f"error inside the stream ({kind or 'untyped'}): {_message(exc)}"
    if status == 429 or kind == "rate_limit_error":
        return ProviderError(
            provider, label, retryable=True, hint="Wait a moment or check your plan's limits."
        )
    if status == 408:  # LiteLLM's code for an upstream timeout
        return ProviderError(provider, label, retryable=True)
    final = kind in FINAL_ERROR_TYPES or (status is not None and 400 <= status < 500)
    if final and kind not in RETRYABLE_ERROR_TYPES:
        hint = key_hint if status in (401, 403) or "auth" in kind or "key" in kind else ""
        if status == 404 or "not_found" in kind:
            hint = f"Check the model name ({model}) and the base URL."
        return ProviderError(provider, label, hint=hint)
    return ProviderError(provider, label, retryable=True)


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
    except sdk.APITimeoutError as exc:
        raise ProviderError(
            provider,
            f"no answer from {base_url or 'the API'}: {_timeout_reason(exc)}",
            retryable=True,
            hint=TIMEOUT_HINT,
        ) from exc
    except sdk.APIConnectionError as exc:
        raise ProviderError(
            provider,
            f"connection to {base_url or 'the API'} failed or was cut: {str(exc).rstrip('.')}",
            retryable=True,
            hint=network_hint,
        ) from exc
    except sdk.APIError as exc:  # an error frame inside a 200 stream (no HTTP status of its own)
        raise stream_error(provider, model, exc, key_hint) from exc
    except json.JSONDecodeError as exc:
        raise ProviderError(
            provider, f"the server sent an unreadable stream ({exc.msg})", retryable=True
        ) from exc
    except Exception as exc:  # only transport errors are translated; anything else is a bug
        if type(exc).__name__ == "ReadTimeout" and type(exc).__module__.startswith("httpx"):
            raise ProviderError(
                provider, f"the stream stalled: {exc}", retryable=True, hint=TIMEOUT_HINT
            ) from exc
        if _transport_error(exc):
            raise ProviderError(provider, f"the stream was cut: {exc}", retryable=True) from exc
        raise


def _transport_error(exc: BaseException) -> bool:
    """An HTTP library's exception, or one of ours made from it (core/llm/watch.py's
    CancelledRead is an httpx2.ReadError)."""
    return any(kind.__module__.split(".")[0] in TRANSPORT_MODULES for kind in type(exc).__mro__)
