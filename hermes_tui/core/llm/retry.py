"""Retries for provider calls: 429 (honouring retry-after), 5xx, timeouts and cut streams.

Backoff is capped exponential with a little jitter. When a stream was cut after it had
produced output, a StreamRestart event tells the consumer to drop that partial output before
the retry's stream begins.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hermes_tui.core.llm.base import Provider, ProviderError, StreamEvent, StreamRestart
from hermes_tui.core.messages import Message


@dataclass(frozen=True)
class RetryPolicy:
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
    """The user cancelled while a retry was waiting."""


def stream_with_retries(
    provider: Provider,
    system: str,
    messages: list[Message],
    tools: list[dict[str, Any]],
    policy: RetryPolicy,
    *,
    cancel: threading.Event | None = None,
    on_retry: Callable[[ProviderError, int, float], None] = lambda *_: None,
) -> Iterator[StreamEvent]:
    attempt = 0
    while True:
        produced = False
        try:
            for event in provider.stream(system, messages, tools):
                produced = True
                yield event
            return
        except ProviderError as error:
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
