"""The model's regular expression for search_files, run where a bound can stop it.

The pattern comes from the model (or from a page or file that asked it to search): Python's
`re` backtracks without limit (`(a+)+$` over a line of forty `a` and a `b` does not end in a
lifetime), in C, holding the GIL, so nothing in this process, not the user's cancel, could stop
it (A4-32). So the lines are searched by a child Python, one file at a time, with `re` itself
(the same syntax and answers as before, at its speed), files sent in batches: the search
waits for each batch's answer
looking at the user's cancel every few hundredths of a second, and kills the child when the
cancel comes or when matching has taken `SEARCH_SECONDS` in all; the search then stops with a
`SearchStopped` that says why (the tool's error).
"""

from __future__ import annotations

import json
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
SEARCH_SECONDS = 5.0  # matching, every file of one search together: far more than `re` needs
POLL_SECONDS = 0.05  # how soon the user's cancel is seen
BATCH_BYTES = 1 << 20  # files go to the child in batches: a round trip per file cost more
BATCH_FILES = 200  # than matching a small file
START_SECONDS = 60.0  # for the child to start: a loaded machine's, not the pattern's, time
# The child: the pattern as a JSON line (it answers "ready" once it has compiled it), then per
# batch the number of files and per file its length in bytes and its UTF-8 text; per batch it
# answers one JSON line: for each file, the numbers of the lines the pattern occurs in.
_CHILD = """
import json, re, sys
given, told = sys.stdin.buffer, sys.stdout
pattern = re.compile(json.loads(given.readline()))
told.write("ready\\n")
told.flush()
while header := given.readline():
    found = []
    for _ in range(int(header)):
        text = given.read(int(given.readline())).decode("utf-8", "surrogatepass")
        found.append([n for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)])
    told.write(json.dumps(found) + "\\n")
    told.flush()
"""


class SearchStopped(Exception):
    """The search was cancelled, or the pattern took too long; the message says which."""


class BoundedSearch:
    """One search_files call's pattern, matched by a child Python within the bound above.
    Close it (a context manager) to end the child."""

    def __init__(
        self,
        pattern: str,
        cancel: threading.Event,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Raises ValueError when `pattern` is not a regular expression (compiling one is
        bounded by its length; only matching can run away)."""
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            raise ValueError(f"pattern is not a valid regular expression: {exc}") from None
        self._pattern = pattern
        self._cancel = cancel
        self._clock = clock
        self._child: subprocess.Popen[bytes] | None = None
        self.spent = 0.0

    def __enter__(self) -> BoundedSearch:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def search(self, files: Iterable[tuple[T, str]]) -> Iterator[tuple[T, str, list[int]]]:
        """For each (name, text) of `files`, in order: the name, the text and the 1-based
        numbers of its lines the pattern occurs in."""
        batch: list[tuple[T, str]] = []
        size = 0
        for name, text in files:
            batch.append((name, text))
            size += len(text)
            if size >= BATCH_BYTES or len(batch) >= BATCH_FILES:
                yield from self._batch(batch)
                batch, size = [], 0
        if batch:
            yield from self._batch(batch)

    def _batch(self, batch: list[tuple[T, str]]) -> Iterator[tuple[T, str, list[int]]]:
        if self._cancel.is_set():
            raise SearchStopped("search_files was cancelled by the user")
        where = ", ".join(str(name) for name, _ in batch[:3]) + (", …" if len(batch) > 3 else "")
        child = self._started()
        assert child.stdin is not None and child.stdout is not None
        request = [b"%d\n" % len(batch)]
        for _, text in batch:
            data = text.encode("utf-8", "surrogatepass")
            request += [b"%d\n" % len(data), data]
        try:
            child.stdin.write(b"".join(request))
            child.stdin.flush()
        except OSError as exc:
            self.close()
            raise SearchStopped(f"search_files could not search {where}: {exc}") from None
        started = self._clock()
        while not select.select([child.stdout], [], [], POLL_SECONDS)[0]:
            self.spent += self._clock() - started
            started = self._clock()
            if self._cancel.is_set():
                self.close()
                raise SearchStopped("search_files was cancelled by the user")
            if self.spent > SEARCH_SECONDS:
                self.close()
                raise SearchStopped(
                    f"search_files stopped: the pattern took more than {SEARCH_SECONDS:g} s "
                    f"(searching {where}); nested repetition such as (a+)+ or (a|aa)+ backtracks "
                    "without end: simplify the pattern, or narrow the path or glob"
                )
        self.spent += self._clock() - started
        try:
            found = json.loads(child.stdout.readline())
        except ValueError:  # the child died (out of memory, say): no answer to read
            self.close()
            raise SearchStopped(f"search_files could not search {where}") from None
        for (name, text), numbers in zip(batch, found, strict=True):
            yield name, text, [int(number) for number in numbers]

    def close(self) -> None:
        if self._child is None:
            return
        child, self._child = self._child, None
        child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._child is None:
            # -I -S: no user site, no PYTHON* variables, no site-packages: only `re` and `json`.
            self._child = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            assert self._child.stdin is not None and self._child.stdout is not None
            try:
                self._child.stdin.write(json.dumps(self._pattern).encode() + b"\n")
                self._child.stdin.flush()
            except OSError as exc:
                self.close()
                raise SearchStopped(f"search_files could not start its search: {exc}") from None
            # Its start (an interpreter, json, re) is not matching: on a loaded machine it took
            # a good part of SEARCH_SECONDS, so only what follows counts against that bound.
            started = self._clock()
            while not select.select([self._child.stdout], [], [], POLL_SECONDS)[0]:
                if self._cancel.is_set():
                    self.close()
                    raise SearchStopped("search_files was cancelled by the user")
                if self._clock() - started > START_SECONDS:
                    self.close()
                    raise SearchStopped("search_files could not start its search in time")
            if self._child.stdout.readline().strip() != b"ready":  # (a dead child: EOF)
                self.close()
                raise SearchStopped("search_files could not start its search")
        return self._child
