"""What a thread's reads of a model server answer to: the turn's cancel and a silence report.

A provider call runs inside `call_scope` (core/llm/retry.py); the reads it makes, wherever
they happen under the SDK, find the scope with `current_scope` (core/llm/watch.py). A
background review's calls and the main turn's, on one client, each answer to their own.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from hermes_tui.core.records import datarecord


@datarecord
class CallScope:
    """What a provider call's reads answer to: the turn's cancel and a silence report."""

    cancel: threading.Event | None = None
    # Told each whole second (from watch.WAIT_REPORT_AFTER on) that the server has been silent so
    # long, and 0.0 when it speaks again after that.
    on_wait: Callable[[float], None] | None = None


_local = threading.local()


@contextlib.contextmanager
def call_scope(scope: CallScope) -> Iterator[None]:
    """Reads made by this thread inside the block answer to `scope`."""
    previous = getattr(_local, "scope", None)
    _local.scope = scope
    try:
        yield
    finally:
        _local.scope = previous


def current_scope() -> CallScope | None:
    """The scope of the calling thread's reads, if it is inside a `call_scope`."""
    return getattr(_local, "scope", None)
