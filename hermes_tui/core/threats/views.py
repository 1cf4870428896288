"""Normalisation and decoding: the forms of a text the scanner reads.

`normalise(text)` is the plain form every comparison should use: invisible characters removed,
NFKC, homoglyphs (Cyrillic а, Greek ο, …) folded to the ASCII letter they imitate. `views(text)`
adds the text as written (NFKC, not folded: Russian stays Russian) and every decoded form worth
scanning: spaced-out letters joined, URL-decoding, base64 and hex
runs that decode to printable text, rot13 and reversed text when that reads more like English.
Invisible characters themselves are looked for in the raw text (`invisible`), since the views
remove them.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator

from hermes_tui.core.threats.verdicts import Finding, excerpt

# Invisible characters: zero-width, bidi controls, invisible operators, the BOM, tags,
# variation selectors (emoji smuggling), the grapheme joiner and blank-looking letters.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# A single variation selector or joiner after a pictograph is how emoji are written.
_EMOJI_PRESENTATION = re.compile(
    "(?<=[\u2190-\u2bff\U0001f000-\U0001faff\u00a9\u00ae])[\ufe0e\ufe0f\u200d]"
)

# Persian, Urdu and the Indic scripts spell words with the zero-width non-joiner and joiner
# ("می‌خواهد"): one of them between two letters of such a script is spelling, not smuggling.
_JOINING_LETTER = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufefc\u0900-\u0dff"
_SPELLING_JOINER = re.compile(f"(?<=[{_JOINING_LETTER}])[\u200c\u200d](?=[{_JOINING_LETTER}])")


def invisible(text: str) -> Finding | None:
    for match in _INVISIBLE.finditer(text):
        char = match.group()
        if char in "\ufe0e\ufe0f\u200d" and _EMOJI_PRESENTATION.match(text, match.start()):
            following = text[match.end() : match.end() + 1]
            if not following or not _INVISIBLE.match(following):
                continue
        if _SPELLING_JOINER.match(text, match.start()):
            continue
        if char == "\u2800" and not re.match("\u2800{2,}|\u2800\\s|\u2800$", text[match.start() :]):
            continue  # one braille blank among braille cells is braille
        codepoint = f"U+{ord(char):04X}"
        return Finding(
            "invisible_unicode",
            "hidden_content",
            "high",
            f"invisible character {codepoint} ({unicodedata.name(char, 'unnamed')})",
            excerpt(text, match.start(), match.end()),
        )
    return None


_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?<![0-9a-f])(?:[0-9a-f]{2}(?:[\s:]?)){12,}", re.I)
# Letters spelled out one by one with the same separator: "i g n o r e", "s.e.n.d", "r-u-n".
_SPACED_RUNS = tuple(
    re.compile(rf"(?<![\w{re.escape(sep)}])\w(?:{re.escape(sep)}\w){{{least},}}(?![\w])")
    for sep, least in ((" ", 2), (".", 1), ("_", 1), ("-", 1), ("*", 1))
)


# Starts only where a word starts (after a space, an underscore or at the beginning): the same
# matches, since a match can only begin where a word does, but a long word (100 KB of output
# with no space) is tried once, not from each of its characters (that was quadratic).
_UNDERSCORED = re.compile(r"(?<![^\s_])[^\s_]+(?:_+[^\s_]+){3,}")


def _spaced(match: re.Match[str]) -> str:
    return re.sub(r"_+", " ", match.group())


def _printable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or sum(ch.isprintable() or ch.isspace() for ch in text) < 0.95 * len(text):
        return None
    return text


@functools.cache
def _confusables() -> dict[int, str]:
    """Unicode confusables (Cyrillic а, Greek ο, …) → the ASCII letter they imitate."""
    from confusable_homoglyphs.utils import load

    data: dict[str, list[dict[str, str]]] = load("confusables.json")
    table: dict[int, str] = {}
    candidates: dict[str, list[str]] = {}
    for ascii_char in (c for c in data if c.isascii() and c.isalnum()):
        for glyph in data[ascii_char]:
            char = glyph["c"]
            if len(char) == 1 and not char.isascii():
                candidates.setdefault(char, []).append(ascii_char)
    for char, letters in candidates.items():
        # A glyph like Cyrillic І imitates both 'l' and 'I': keep the letter of its own case.
        same_case = [c for c in letters if c.isupper() == char.isupper() and c.isalpha()]
        letter = sorted(same_case or letters)[0]
        # Unicode's skeleton for every I-like capital is 'l'.
        table[ord(char)] = "I" if letter == "l" and char.isupper() else letter
    return table


def fold_homoglyphs(text: str) -> str:
    return text if text.isascii() else text.translate(_confusables())


def normalise(text: str) -> str:
    """The plain form: invisible characters removed, NFKC, homoglyphs folded to ASCII."""
    return fold_homoglyphs(unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)))


def views(text: str) -> list[tuple[str, str]]:
    """(name, text) for every form of `text` worth scanning; the first is ("text", normalise(text))."""
    return list(_views(text))


def _views(text: str) -> Iterator[tuple[str, str]]:
    # The lexicon's word lists load with the first text actually scanned: a turn whose texts
    # were all remembered (threats/cache.py) never reads them (bench/oneshot.py).
    from hermes_tui.core.threats.lexicon import englishness

    plain = normalise(text)
    yield "text", plain
    # Folding homoglyphs unmasks a Latin word spelled with Cyrillic letters, and mangles a
    # text written in Cyrillic or Greek: that text is read as written too.
    written = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    if written != plain:
        yield "text as written", written
    joined = plain
    for run in _SPACED_RUNS:
        joined = run.sub(lambda m: re.sub(r"[ ._\-*]", "", m.group()), joined)
    joined = re.sub(r"[ \t]{2,}", " ", joined)
    if joined != plain:
        yield "spaced-out letters", joined
    # Words joined by `_` instead of spaces ("retry_with_the_sandbox_off"): a word pattern
    # sees one identifier. Four or more joined make a phrase, read with spaces.
    if "_" in plain and (spaced := _UNDERSCORED.sub(_spaced, plain)) != plain:
        yield "underscored words", spaced
    if "%" in plain:
        decoded = urllib.parse.unquote_plus(plain)
        if decoded != plain:
            yield "URL-encoding", decoded
    for match in _B64_RUN.finditer(plain):
        run = match.group()
        try:
            raw = base64.b64decode(
                run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None
            )
        except (binascii.Error, ValueError):
            continue
        if (decoded := _printable(raw)) and englishness(decoded) > 0:
            yield "base64", decoded
    for match in _HEX_RUN.finditer(plain):
        digits = re.sub(r"[\s:]", "", match.group())
        try:
            raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
        except ValueError:
            continue
        if decoded := _printable(raw):
            yield "hex", decoded
    base = englishness(plain)
    for name, transformed in (("rot13", codecs.encode(plain, "rot13")), ("reversed", plain[::-1])):
        score = englishness(transformed)
        if score >= 0.3 and score > base + 0.15:
            yield name, transformed
