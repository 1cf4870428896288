"""The model's regular expression for search_files, with a bound on the work it may cost.

The pattern comes from the model (or from a page or file that asked it to search): Python's
`re` backtracks without limit (`(a|aa)+$` over a line of sixty `a` and a `b` does not end in a
lifetime) and holds the GIL while it does, so nothing, not the user's cancel, could stop the
turn (A4-32). The `regex` package reads the same syntax, takes a timeout and lets other threads
run while it matches (`concurrent=True`). Each line gets at most `LINE_SECONDS`, one search all
its lines together `SEARCH_SECONDS`, and the user's cancel is looked at before each line; past
either bound the search stops with a `SearchStopped` that says why (the tool's error).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import regex

LINE_SECONDS = 1.0  # one line: far more than any pattern needs that does not backtrack
SEARCH_SECONDS = 10.0  # every line of one search together


class SearchStopped(Exception):
    """The search was cancelled, or the pattern took too long; the message says which."""


class BoundedPattern:
    """A compiled pattern whose searches, together, stay within the bounds above."""

    def __init__(
        self,
        pattern: str,
        cancel: threading.Event,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Raises ValueError when `pattern` is not a regular expression."""
        try:
            self._compiled = regex.compile(pattern)
        except (regex.error, OverflowError, RecursionError) as exc:
            raise ValueError(f"pattern is not a valid regular expression: {exc}") from None
        self._cancel = cancel
        self._clock = clock
        self.spent = 0.0

    def search(self, line: str, path: object, number: int) -> bool:
        """Whether the pattern occurs in `line`, line `number` of `path` (for an error)."""
        if self._cancel.is_set():
            raise SearchStopped("search_files was cancelled by the user")
        left = SEARCH_SECONDS - self.spent
        if left <= 0:
            raise SearchStopped(
                f"search_files stopped: the pattern took more than {SEARCH_SECONDS:g} s over "
                "these files; narrow the path or glob, or simplify the pattern"
            )
        started = self._clock()
        try:
            found = self._compiled.search(line, timeout=min(left, LINE_SECONDS), concurrent=True)
        except TimeoutError:
            raise SearchStopped(
                f"search_files stopped: the pattern took more than {LINE_SECONDS:g} s on one "
                f"line ({path}:{number}); nested repetition such as (a+)+ or (a|aa)+ backtracks without "
                "end: simplify the pattern"
            ) from None
        finally:
            self.spent += self._clock() - started
        return found is not None
