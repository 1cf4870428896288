"""Retries for provider calls: 429 (honouring retry-after), 408, 5xx, timeouts and cut streams.

Backoff is capped exponential with a little jitter. When a stream was cut after it had
produced output, a StreamRestart event tells the consumer to drop that partial output before
the retry's stream begins. The provider's code runs inside a `call_scope` (core/llm/scope.py)
so that setting `cancel` stops a blocked read at once; a failure after a cancel is the cancel
(Cancelled), never a reason to retry.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

from hermes_tui.core.llm.base import Provider, ProviderError, StreamEvent, StreamRestart
from hermes_tui.core.llm.scope import CallScope, call_scope
from hermes_tui.core.messages import Message
from hermes_tui.core.records import datarecord


@datarecord
class RetryPolicy:
    """How often and how long to retry a failed provider call."""

    max_retries: int = 3
    base_delay: float = 1.0
    max_delay: float = 20.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, error: ProviderError) -> float:
        if error.retry_after is not None:
            return max(0.0, min(error.retry_after, self.max_retry_after))
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return backoff * (0.85 + 0.3 * random.random())


class Cancelled(Exception):
    """The user cancelled the call (while it streamed, or while a retry was waiting)."""


def stream_with_retries(
    provider: Provider,
    system: str,
    messages: list[Message],
    tools: list[dict[str, Any]],
    policy: RetryPolicy,
    *,
    cancel: threading.Event | None = None,
    on_retry: Callable[[ProviderError, int, float], None] = lambda *_: None,
    on_wait: Callable[[float], None] | None = None,
) -> Iterator[StreamEvent]:
    """The provider's events, retried; `on_wait(seconds)` hears how long the server is silent."""
    scope = CallScope(cancel, on_wait)
    attempt = 0
    while True:
        produced = False
        try:
            events = iter(provider.stream(system, messages, tools))
            try:
                while True:
                    # The scope covers only the provider's own code, never the consumer's.
                    with call_scope(scope):
                        event = next(events, None)
                    if event is None:
                        return
                    produced = True
                    yield event
            finally:
                close = getattr(events, "close", None)
                if close is not None:
                    with call_scope(scope):
                        close()
        except ProviderError as error:
            if cancel is not None and cancel.is_set():
                raise Cancelled() from error
            if not error.retryable or attempt >= policy.max_retries:
                raise
            attempt += 1
            delay = policy.delay(attempt, error)
            on_retry(error, attempt, delay)
            if cancel is not None and cancel.wait(delay):
                raise Cancelled() from error
            if cancel is None and delay:
                threading.Event().wait(delay)
            if produced:
                yield StreamRestart(attempt, str(error))
