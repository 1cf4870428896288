"""Fuzzy find-and-replace for skill patches and the file `patch` tool.

Models quote text imperfectly: wrong indentation, collapsed spaces, escaped newlines, straight
quotes for curly ones. Nine strategies are tried in order and the first that finds the text
wins (DESIGN.md section 7). A non-exact match is replaced so that the file keeps its own
indentation, line endings and Unicode characters; an ambiguous match is refused.

The search is bounded (`WORK_BOUND`): the line-window strategies compare old_string with every
window of the file, so a long old_string that matches nowhere over a large file meant millions
of fuzzy comparisons, minutes in the turn's thread with no way to cancel (A4-32). Past the
bound the patch fails as having no unique match, and the error says to quote less.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

Span = tuple[int, int]

STRATEGIES = (
    "exact",
    "line_trimmed",
    "whitespace_normalized",
    "indentation_flexible",
    "escape_normalized",
    "trimmed_boundary",
    "unicode_normalized",
    "block_anchor",
    "context_aware",
)
# These accept text that only resembles old_string: fine for one targeted edit, never for
# "replace every occurrence".
SIMILARITY_STRATEGIES = frozenset({"block_anchor", "context_aware"})
BLOCK_ANCHOR_MIN = 70.0
CONTEXT_LINE_MIN = 80.0
CONTEXT_LINE_FLOOR = 50.0
CLEAR_WINNER_MARGIN = 15.0

# How many line comparisons one search may make, all strategies together (a second or two: a
# 50-line old_string near-matched in a 10,000-line file fits); a fuzzy ratio of two lines
# counts as FUZZY_COST plain comparisons (rapidfuzz's ratio of two short lines takes about
# twenty times a string equality test in the loop around it).
WORK_BOUND = 10_000_000
FUZZY_COST = 20

UNICODE_EQUIVALENTS = {
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'",
    "\u2014": "--", "\u2013": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
    "\u2026": "...",
    "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200a": " ",
    "\u202f": " ", "\u205f": " ", "\u3000": " ", "\u2007": " ", "\u2008": " ",
}  # fmt: skip


class FuzzyMatchError(ValueError):
    """old_string could not be used; `closest` shows the nearest text when nothing matched."""

    def __init__(
        self,
        message: str,
        kind: Literal["invalid", "no_match", "ambiguous"],
        closest: str | None = None,
        closest_line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.closest = closest
        self.closest_line = closest_line


class _OutOfWork(Exception):
    """A strategy would pass WORK_BOUND: it gives up, the cheaper ones still run."""


class _Search:
    """One search of `old` in `content`: the file's lines (cut once, for every strategy), and
    what is left of WORK_BOUND."""

    def __init__(self, content: str, old: str) -> None:
        self.content = content
        self.old = old
        self.left = WORK_BOUND
        self.gave_up = False
        self._lines: list[_Line] | None = None

    @property
    def lines(self) -> list[_Line]:
        if self._lines is None:
            self._lines = _lines(self.content)
        return self._lines

    def spend(self, work: int) -> None:
        if work > self.left:
            self.gave_up = True
            raise _OutOfWork
        self.left -= work

    def too_much(self) -> FuzzyMatchError:
        return FuzzyMatchError(
            "old_string has no unique match: it is not in the file as written, and comparing "
            f"its {len(_old_lines(self.old)):,} lines with every place in a file this large for "
            "a near match is too much work. Quote the text exactly (re-read the file), or a "
            "shorter, distinctive part of it.",
            "no_match",
        )


@dataclass(frozen=True)
class Replacement:
    """A patch applied: the new content, the strategy that matched and how often."""

    content: str
    strategy: str
    count: int


class _Line(NamedTuple):
    start: int
    end: int  # end of the text, before the line ending
    text: str


def _lines(content: str) -> list[_Line]:
    """The lines of `content` (cut at `\n`, a CR before it left out of the text)."""
    pieces = content.split("\n")
    if pieces[-1] == "":
        pieces.pop()  # after the last line ending, or an empty file
    lines, start = [], 0
    for piece in pieces:
        text = piece.rstrip("\r")
        lines.append(_Line(start, start + len(text), text))
        start += len(piece) + 1
    return lines


def _old_lines(old: str) -> list[str]:
    lines = [line.rstrip("\r") for line in old.split("\n")]
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _exact_spans(content: str, needle: str) -> list[Span]:
    spans, start = [], 0
    while needle and (index := content.find(needle, start)) != -1:
        spans.append((index, index + len(needle)))
        start = index + len(needle)
    return spans


def _line_windows(
    search: _Search, norm: Callable[[str], str], skip_blank: bool = False
) -> list[Span]:
    lines = search.lines
    target = [norm(line) for line in _old_lines(search.old)]
    if skip_blank:
        target = [line for line in target if line]
    if not target or not any(target):
        return []
    normed = [norm(line.text) for line in lines]
    spans: list[Span] = []
    index = 0
    while index < len(lines):
        if skip_blank and not normed[index]:
            index += 1
            continue
        position, matched, last = index, 0, index
        while position < len(lines) and matched < len(target):
            if skip_blank and not normed[position]:
                position += 1
                continue
            if normed[position] != target[matched]:
                break
            matched, last, position = matched + 1, position, position + 1
        search.spend(position - index + 1)
        if matched == len(target):
            spans.append((lines[index].start, lines[last].end))
            index = last + 1
        else:
            index += 1
    return spans


class _Rule(NamedTuple):
    """A normalisation: what to replace (`pattern`), and with what (`piece`)."""

    pattern: re.Pattern[str]
    piece: Callable[[re.Match[str]], str]


def _mapped(text: str, rule: _Rule) -> tuple[str, list[int]]:
    """Normalise `text`, keeping for each output char the index of the input it came from.
    Only the matches are visited, the text between them copied whole: a file of megabytes
    took seconds a character at a time."""
    out: list[str] = []
    origin: list[int] = []
    at = 0
    for match in rule.pattern.finditer(text):
        start = match.start()
        out.append(text[at:start])
        origin.extend(range(at, start))
        piece = rule.piece(match)
        out.append(piece)
        origin.extend([start] * len(piece))
        at = match.end()
    out.append(text[at:])
    origin.extend(range(at, len(text)))
    origin.append(len(text))
    return "".join(out), origin


# A run of blanks with a line ending becomes the line ending, any other run one space; a lone
# space or line ending is already what it becomes, and is not visited.
_WHITESPACE = _Rule(
    re.compile(r"[ \t]+\n[ \t]*|\n[ \t]+|[ \t]*\t[ \t]*|  +"),
    lambda m: "\n" if "\n" in m.group() else " ",
)
_UNICODE = _Rule(
    re.compile("[" + "".join(UNICODE_EQUIVALENTS) + "]"), lambda m: UNICODE_EQUIVALENTS[m.group()]
)


def _mapped_spans(content: str, old: str, rule: _Rule, strip: bool) -> list[Span]:
    norm_content, origin = _mapped(content, rule)
    norm_old, _ = _mapped(old, rule)
    if strip:
        norm_old = norm_old.strip()
    return [(origin[a], origin[b]) for a, b in _exact_spans(norm_content, norm_old)]


def _unescape(text: str) -> str:
    table = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}
    return re.sub(r"\\([ntr\"'\\])", lambda m: table[m.group(1)], text)


def _similar_windows(search: _Search, anchored: bool) -> list[tuple[float, Span]]:
    # Imported here: the last two strategies and the no-match hint need it, and every
    # session's agent loop imports this module (a one-shot turn should not pay for it).
    from rapidfuzz import fuzz

    lines = search.lines
    target = [line.strip() for line in _old_lines(search.old)]
    n = len(target)
    if n < (3 if anchored else 2) or n > len(lines):
        return []
    if not anchored:  # every line of every window: known before starting
        search.spend((len(lines) - n + 1) * n * FUZZY_COST)
    scored: list[tuple[float, Span]] = []
    for i in range(len(lines) - n + 1):
        if anchored:
            search.spend(2)
            if lines[i].text.strip() != target[0] or lines[i + n - 1].text.strip() != target[-1]:
                continue
            search.spend((n - 2) * FUZZY_COST)
            window = [line.text.strip() for line in lines[i : i + n]]
            score = fuzz.ratio("\n".join(window[1:-1]), "\n".join(target[1:-1]))
            if score < BLOCK_ANCHOR_MIN:
                continue
        else:
            window = [line.text.strip() for line in lines[i : i + n]]
            ratios = [fuzz.ratio(a, b) for a, b in zip(window, target, strict=True)]
            # Most lines close, and none unrelated: a half-garbage block must not match.
            if (
                sum(r >= CONTEXT_LINE_MIN for r in ratios) * 2 < n
                or min(ratios) < CONTEXT_LINE_FLOOR
            ):
                continue
            score = sum(ratios) / n
        scored.append((score, (lines[i].start, lines[i + n - 1].end)))
    scored.sort(key=lambda item: -item[0])
    if len(scored) > 1 and scored[0][0] - scored[1][0] >= CLEAR_WINNER_MARGIN:
        return scored[:1]
    return scored


def find(content: str, old: str) -> tuple[str, list[Span]]:
    """The first strategy that finds `old` in `content`, and where; ("", []) if none does.
    Raises FuzzyMatchError (no_match) when none does and a strategy gave up at WORK_BOUND
    (the cheaper ones after it still ran)."""
    search = _Search(content, old)
    finders: list[tuple[str, Callable[[], list[Span]]]] = [
        ("exact", lambda: _exact_spans(content, old)),
        ("line_trimmed", lambda: _line_windows(search, str.strip)),
        (
            "whitespace_normalized",
            lambda: _mapped_spans(content, old, _WHITESPACE, strip=True),
        ),
        ("indentation_flexible", lambda: _line_windows(search, str.strip, skip_blank=True)),
        ("escape_normalized", lambda: _exact_spans(content, _unescape(old)) if "\\" in old else []),
        ("trimmed_boundary", lambda: _exact_spans(content, old.strip())),
        ("unicode_normalized", lambda: _mapped_spans(content, old, _UNICODE, strip=False)),
        ("block_anchor", lambda: [span for _, span in _similar_windows(search, True)]),
        ("context_aware", lambda: [span for _, span in _similar_windows(search, False)]),
    ]
    for name, finder in finders:
        try:
            spans = finder()
        except _OutOfWork:
            continue
        if spans:
            return name, spans
    if search.gave_up:
        raise search.too_much()
    return "", []


# As Hermes' "Did you mean" (tools/fuzzy_match.py): a hint only for text at least 30 % alike.
CLOSEST_MIN_SCORE = 30.0


def closest_match(content: str, old: str) -> tuple[int, str] | None:
    """(1-based line, text) of the window of lines most like `old`, for a no-match error."""
    from rapidfuzz import fuzz

    lines = _lines(content)
    n = max(1, len(_old_lines(old)))
    if not lines or max(1, len(lines) - n + 1) * n * FUZZY_COST > WORK_BOUND:
        return None  # no hint rather than minutes spent finding one
    best: tuple[float, int] | None = None
    for i in range(max(1, len(lines) - n + 1)):
        window = "\n".join(line.text for line in lines[i : i + n])
        score = fuzz.ratio(window, old)
        if best is None or score > best[0]:
            best = (score, i)
    assert best is not None
    if best[0] < CLOSEST_MIN_SCORE:
        return None  # nothing is like it: pointing at a random line would mislead
    text = "\n".join(line.text for line in lines[best[1] : best[1] + n])
    return best[1] + 1, text[:800]


def _leading(text: str) -> str:
    return text[: len(text) - len(text.lstrip(" \t"))]


def _reindent(region: str, old: str, new: str) -> str:
    """Shift `new` from old_string's indentation to the file's."""
    region_first = next((line for line in region.split("\n") if line.strip()), "")
    old_first = next((line for line in old.split("\n") if line.strip()), "")
    file_indent, old_indent = _leading(region_first), _leading(old_first)
    if file_indent == old_indent:
        return new
    out = []
    for line in new.split("\n"):
        if line.strip() and line.startswith(old_indent):
            out.append(file_indent + line[len(old_indent) :])
        else:
            out.append(line)
    return "\n".join(out)


def _keep_unicode(region: str, old: str, new: str) -> str:
    """Copy the parts of `new` that repeat `old` from the file, so curly quotes stay curly."""
    norm_region, origin = _mapped(region, _UNICODE)
    norm_old, _ = _mapped(old, _UNICODE)
    if norm_region != norm_old:
        return new
    import difflib

    pieces = []
    matcher = difflib.SequenceMatcher(None, norm_old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        pieces.append(region[origin[i1] : origin[i2]] if tag == "equal" else new[j1:j2])
    return "".join(pieces)


def _control_escapes(region: str, new: str) -> str:
    """Models write a tab as the two characters `\\t` (and CR as `\\r`); where the text being
    replaced really holds tabs (or CRs), new_string means them too. `\\n` stays as written: a
    newline survives JSON, and `\\n` in source code is usually meant literally."""
    for escape, char in (("t", "\t"), ("r", "\r")):
        if char in region:
            new = re.sub(rf"(?<!\\)\\{escape}", char, new)
    return new


def _replacement_for(content: str, span: Span, strategy: str, old: str, new: str) -> str:
    region = content[span[0] : span[1]]
    new = _control_escapes(region, new)
    if strategy == "exact":
        return new
    text = new.replace("\r\n", "\n")
    if strategy == "escape_normalized" and "\n" not in text:
        text = _unescape(text)
    if old.endswith("\n") and text.endswith("\n") and not region.endswith("\n"):
        # Line windows stop before the last line ending; keep the file's own.
        text = text[:-1]
    if strategy == "unicode_normalized":
        text = _keep_unicode(region, old, text)
    else:
        text = _reindent(region.replace("\r\n", "\n"), old.replace("\r\n", "\n"), text)
    if "\r\n" in region or ("\r\n" in content and "\n" in text and "\n" not in region):
        text = text.replace("\n", "\r\n")
    return text


def find_and_replace(content: str, old: str, new: str, *, replace_all: bool = False) -> Replacement:
    """Replace `old` with `new` in `content`; raises FuzzyMatchError when that is unsafe."""
    if not old or not old.strip():
        raise FuzzyMatchError(
            "old_string is empty or only whitespace; quote the text to change.", "invalid"
        )
    if old == new:
        raise FuzzyMatchError(
            "old_string and new_string are identical; nothing would change.", "invalid"
        )
    strategy, spans = find(content, old)
    for escaped in ("\\'", '\\"'):
        drifted = escaped in old and escaped in new and escaped not in content
        if drifted and strategy not in ("exact", "escape_normalized"):
            # A transport artefact: the quote got a backslash on its way through the tool call
            # (a whole string encoded twice matches as escape_normalized and is fine).
            raise FuzzyMatchError(
                f"Escape-drift: old_string and new_string both contain {escaped!r}, which the "
                "file never has; the backslash came from serialising the tool call. Send the "
                "quotes without the backslash.",
                "invalid",
            )
    if not spans:
        closest = closest_match(content, old)
        hint = ""
        if closest:
            hint = f" The closest text is at line {closest[0]}:\n{closest[1]}"
        raise FuzzyMatchError(
            f"old_string was not found (all {len(STRATEGIES)} matching strategies tried). "
            f"Re-read the file and quote the text exactly.{hint}",
            "no_match",
            closest[1] if closest else None,
            closest[0] if closest else None,
        )
    if len(spans) > 1 and not replace_all:
        where = ", ".join(f"line {content.count(chr(10), 0, start) + 1}" for start, _ in spans[:5])
        raise FuzzyMatchError(
            f"old_string matches {len(spans)} places ({where}); include more surrounding text "
            "to pick one, or set replace_all to change them all.",
            "ambiguous",
        )
    if len(spans) > 1 and strategy in SIMILARITY_STRATEGIES:
        raise FuzzyMatchError(
            f"old_string only resembles {len(spans)} places ({strategy} match); replace_all needs "
            "the exact text.",
            "ambiguous",
        )
    result = content
    for span in reversed(spans):
        replacement = _replacement_for(content, span, strategy, old, new)
        result = result[: span[0]] + replacement + result[span[1] :]
    return Replacement(result, strategy, len(spans))
