"""Provenance by content: which tool result a memory or skill write copies its text from.

Taint by channel (taint.py) asks how text came in; there are endless channels (`cp outside.md
./o.md && cat o.md`, a here-doc fetching a URL, a README inside the working directory). This
asks what the write says instead:

1. Every tool result of the conversation is indexed as it arrives: its text in the scanner's
   normal form and in each decoding the scanner reads (threats.views: base64, hex, URL-encoding,
   rot13, reversed, spaced-out letters; also line by line for reversed and rot13), lower-cased
   into words (a CJK character is a word), every run of 5 words hashed into one dict that maps
   it to the result it came from.
2. A write is read the same way, and copies a result when 4 consecutive 5-word runs are found
   (8 consecutive words) or most (more than half) of its 5-word runs are.
3. The match names the tool call and gives both excerpts, the result's and the write's.

Building costs one hash per word of each result, once; a check costs one lookup per word of the
write, whatever the size of the conversation (bench/taint.py).
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from functools import cache
from typing import Any

from hermes_tui.core import threats
from hermes_tui.core.records import datarecord

GRAM = 5  # words hashed together
RUN_WORDS = 8  # consecutive copied words that make a write a copy
MOST = 0.5  # more than this share of the write's 5-word runs found makes it a copy too
EXCERPT_CHARS = 160
# The "tool" of the project's instruction files (AGENTS.md, .cursor/rules/*.mdc...) that the
# system prompt carries: a cloned repository's text as much as a README it holds.
PROJECT_FILE = "project file"
PROJECT_FILE_MAX_CHARS = 1 << 20  # indexed of each (the prompt carries less)
# A word: a run of letters (whatever joins words, `_` and digits too, separates them: a copy
# with underscores for spaces is the same words), or one CJK character (those scripts write
# no spaces: a character is the unit).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


@cache
def _word() -> re.Pattern[str]:
    """Compiled when first used (~3 ms): a conversation that indexes no tool result never is."""
    return re.compile(f"[{_CJK}]|[^\\W\\d_{_CJK}]+")


@datarecord
class ContentMatch:
    """A write that reproduces text from a tool result: which one, and both excerpts."""

    tool: str
    call: str  # the call as the model made it: terminal(command='cat README.md')
    source_excerpt: str  # the copied text as the tool result has it
    write_excerpt: str  # the same text as the write has it
    words: int  # the longest run of consecutive copied words
    share: float  # the share of the write's 5-word runs found in tool results
    view: str = "text"  # the decoding of the write it was found in ("base64", ...)
    # The lines of the tool result around the copied words (the line before too: a heading
    # such as "## For AI agents"), for a gate that asks to whom the source spoke.
    source_context: str = ""

    def describe(self) -> str:
        how = (
            f"{self.words} consecutive words"
            if self.words >= RUN_WORDS
            else (f"{self.share:.0%} of its 5-word runs")
        )
        decoded = "" if self.view == "text" else f" (in its {self.view} form)"
        source = "a project file" if self.tool == PROJECT_FILE else "a tool result"
        return f"copies {how} of {source}{decoded}: {self.call}"


@datarecord(frozen=False)
class _Result:
    """One tool result that entered the conversation, with its decoded views."""

    tool: str
    call: str
    views: list[str]  # the result's text in normal form, then its decodings


def result_text(result: dict[str, Any]) -> str:
    """Every string in a tool result (keys left out), one per line."""
    parts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "success":
                    walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    walk(result)
    return "\n".join(parts)


def _result_views(text: str) -> list[str]:
    """A result's text as the scanner reads it, plus the lines that read as English only when
    reversed or rot13'd (one such line in a long file does not make the scanner read the whole
    file that way, yet a write can copy it forward)."""
    from hermes_tui.core.threats.lexicon import englishness  # loaded by the first scan, not here

    views = [view for _, view in threats.views(text)]
    lines = [line for line in views[0].splitlines() if len(line) >= 20]
    for transform in (_reversed, _rot13):
        found = [
            t for line in lines if englishness(t := transform(line)) > englishness(line) + 0.15
        ]
        if found:
            views.append("\n".join(found))
    return views


def _reversed(text: str) -> str:
    return text[::-1]


def _rot13(text: str) -> str:
    return codecs.encode(text, "rot13")


def _words(text: str) -> list[str]:
    return _word().findall(text.lower())


def _grams(words: list[str]) -> list[int]:
    return list(map(hash, zip(*(words[i:] for i in range(GRAM)), strict=False)))


class ContentIndex:
    """The 5-word runs of every tool result a conversation has taken in."""

    def __init__(self) -> None:
        self._grams: dict[int, int] = {}  # hash of 5 words → index of the result
        self._results: list[_Result] = []

    def __len__(self) -> int:
        return len(self._results)

    def add(self, tool: str, call: str, text: str) -> None:
        if not text.strip():
            return
        views = _result_views(text)
        index = len(self._results)
        self._results.append(_Result(tool, call, views))
        for view in views:
            self._grams.update(dict.fromkeys(_grams(_words(view)), index))

    def read_results(self) -> bool:
        """Whether a tool result (not only the project's instruction files) is indexed."""
        return any(result.tool != PROJECT_FILE for result in self._results)

    def entries(self, max_chars: int | None = None) -> list[dict[str, Any]]:
        """The indexed results as plain data ({tool, call, views}), for `absorb` elsewhere: a
        conversation compressed or forked carries what it took in (taint.TaintTracker.export).
        With `max_chars`: the newest whose views fit in it (what sessions.db keeps)."""
        kept, total = [], 0
        for result in reversed(self._results):
            total += sum(map(len, result.views))
            if max_chars is not None and total > max_chars:
                break
            kept.append({"tool": result.tool, "call": result.call, "views": list(result.views)})
        return kept[::-1]

    def absorb(self, entries: list[Any]) -> None:
        """Index results another index exported (`entries`), their views as they were."""
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("views"), list):
                continue
            views = [str(view) for view in entry["views"] if isinstance(view, str) and view]
            if not views:
                continue
            index = len(self._results)
            self._results.append(_Result(str(entry.get("tool")), str(entry.get("call")), views))
            for view in views:
                self._grams.update(dict.fromkeys(_grams(_words(view)), index))

    def match(self, text: str, known: frozenset[int] = frozenset()) -> ContentMatch | None:
        """The tool result `text` copies (by the rules above), or None. With `known` (the
        `known_grams` of what a file held before the write), only what is new counts: a copied
        run must take in a 5-word run the file did not hold, and the share is of new runs."""
        if not self._grams:
            return None
        best: ContentMatch | None = None
        for name, view in threats.views(text):
            found = self._match_view(name, view, known)
            if found is not None and (best is None or found.words > best.words):
                best = found
        return best

    def copied_text(self, text: str, known: frozenset[int] = frozenset()) -> str:
        """The stretches of `text` (its words in the scanner's normal form, spaced) that copy
        tool results, one a line: every run of found 5-word runs holding a new one (`known` as
        in `match`). What an instruction file's gate asks the scanner about."""
        view = threats.normalise(text)
        spans = [(m.start(), m.end()) for m in _word().finditer(view)]
        grams = _grams([view[a:b].lower() for a, b in spans])
        stretches, start, fresh = [], None, False
        for position, gram in enumerate([*grams, None]):
            if gram is not None and gram in self._grams:
                start = position if start is None else start
                fresh = fresh or gram not in known
                continue
            if start is not None and fresh:  # its words, spaced (`-`, `_`, `/` join none)
                copied = spans[start : position + GRAM - 1]
                stretches.append(" ".join(view[a:b] for a, b in copied))
            start, fresh = None, False
        return "\n".join(stretches)

    def _match_view(self, name: str, view: str, known: frozenset[int]) -> ContentMatch | None:
        spans = [(m.start(), m.end()) for m in _word().finditer(view)]
        words = [view[a:b].lower() for a, b in spans]
        if len(words) < GRAM:
            return None
        grams = _grams(words)
        hits = [self._grams.get(h) for h in grams]
        new = [h not in known for h in grams]
        found = [h for h, fresh in zip(hits, new, strict=True) if h is not None and fresh]
        if not found:
            return None
        # The longest run of consecutive 5-word runs found that holds a new one: n of them
        # cover n + 4 words (a copy grown a few words per write is judged whole).
        run_start, run_length, start, length, fresh = 0, 0, 0, 0, False
        for position, hit in enumerate(hits):
            if hit is None:
                length, fresh = 0, False
                continue
            if length == 0:
                start = position
            length += 1
            fresh = fresh or new[position]
            if fresh and length > run_length:
                run_start, run_length = start, length
        copied = run_length + GRAM - 1
        share = len(found) / sum(new)
        if copied < RUN_WORDS and share <= MOST:
            return None
        source = Counter(hits[run_start : run_start + run_length]).most_common(1)[0][0]
        result = self._results[source]
        first, last = spans[run_start][0], spans[run_start + copied - 1][1]
        return ContentMatch(
            tool=result.tool,
            call=result.call,
            source_excerpt=_source_excerpt(result, words[run_start : run_start + copied]),
            write_excerpt=_flat(view[first:last]),
            words=copied,
            share=share,
            view=name,
            source_context=_source_context(result, words[run_start : run_start + GRAM]),
        )


def _source_context(result: _Result, first: list[str]) -> str:
    """The result's lines holding the copy's first 5 words, and the line before them (words
    are runs of letters: anything else may lie between them, `MARKER6F`'s digit too)."""
    pattern = re.compile(r"[\W\d_]*".join(map(re.escape, first)), re.IGNORECASE)
    for view in result.views:
        found = pattern.search(view)
        if found:
            start = view.rfind("\n", 0, view.rfind("\n", 0, found.start()))
            end = view.find("\n", found.end())
            return view[max(start, 0) : end if end >= 0 else len(view)][-2000:]
    return ""


def known_grams(text: str) -> frozenset[int]:
    """The 5-word runs of `text` as `match` reads a write (for its `known`)."""
    return frozenset(_grams(_words(threats.normalise(text))))


def _source_excerpt(result: _Result, copied: list[str]) -> str:
    """The copied words as the result has them (in the first of its views that holds them)."""
    for words in (copied, copied[:GRAM]):
        pattern = re.compile(r"\W*".join(map(re.escape, words)), re.IGNORECASE)
        for view in result.views:
            found = pattern.search(view)
            if found:
                return _flat(found.group())
    return _flat(" ".join(copied))


def _flat(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"
