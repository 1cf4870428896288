"""Decoded views of a text: a known secret where the patterns, reading the text as written, miss it.

`Redactor.text` searches each view with its patterns, and replaces what a match was decoded
from (`View.span`): the character views first (`character_views`: each character of a view
maps to its own), the dump views last (`dump_views`: a match stands for whole numbers). Kinds:

- Byte dumps, as od, xxd, hexdump and basenc print a file, or a program its bytes: numbers with
  any separator or prefix (`56 72`, `0x56, 0x72`, `\\x56`, `=56`, `[86, 114]`), each line's
  offset and character column left out, read as hex bytes (big-endian, and in either byte
  order when the numbers are 2- or 4-byte words: od -x and hexdump print little-endian words),
  as decimal or octal bytes or 2-byte words (od -d, od -o), and as bits (most or least significant first, wrapped or not);
  and od -c's columns of characters, joined.
- Escapes anywhere in a text (`Vr7\\x6bum`, `b'V\\x00r\\x00'`, `%71`, `&#107;`, `\\u006d`,
  `\\153`), each decoded to its character.
- Characters: NFKC-folded (math bold, circled, full-width letters), look-alike letters folded
  to the ASCII letter they imitate (Cyrillic а, Greek ο), format characters (soft hyphen,
  zero-width, bidi controls) dropped; Unicode tag characters read as the ASCII they copy, and
  in a second view dropped (put between a value's characters).

A text with no run of numbers, no escape and no character outside ASCII has no view (three
regular expression searches tell, in C).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Iterator

from hermes_tui.core.records import datarecord

# A view shorter than this holds no known value (MIN_SECRET_LENGTH).
_SHORTEST = 8

# Three numbers in a row, on one line or not (or one long run of digits, or an offset and a
# number): a dump may be here.
# (JSON's `\n` ends a line too: a number after its `n` starts one.)
_NUMBERS = re.compile(
    r"(?:(?<=\\n)|(?<![0-9A-Za-z]))(?:0[xX]|[xX])?[0-9A-Fa-f]{2,16}"
    r"(?:(?:[^0-9A-Za-z]|\\n){1,4}(?:0[xX]|[xX])?[0-9A-Fa-f]{2,16}(?![0-9A-Za-z])){2}"
    r"|[0-9A-Fa-f]{24}|[0-9A-Fa-f]{6,16}:[ \t]+[0-9A-Fa-f]{2}"  # xxd's offset, a number
)
# od -c: characters in columns four wide.
_OD_CHARS_HINT = re.compile(
    r"(?:   [^ \n]|  \\[0abfnrtv]| [0-7]{3}){6}|[0-7]{7}(?:   [^ \n]|  \\[0abfnrtv]| [0-7]{3})"
)

# A line (a real line break or JSON's `\n` ends it).
_LINE = re.compile(r"(?:[^\n\\]|\\(?!n))+")
# A line's offset: xxd's `00000010:`, od's and hexdump's `0000020` (octal or hex, zeros first).
_OFFSET = re.compile(
    r"[ \t]*(?:(?:0[xX])?[0-9A-Fa-f]{4,16}:|00[0-9A-Fa-f]{4,8}(?![0-9A-Za-z])|[0-9A-Fa-f]{7}(?![0-9A-Za-z]))[ \t]*"
)
# Numbers in a row, each with its separators after it.
_RUN = re.compile(
    r"(?:(?<=\\n)|(?<![0-9A-Za-z_]))(?:(?:0[xX]|[xX])?[0-9A-Fa-f]+(?![0-9A-Za-z_])[^\w\n]{0,6})+"
)
_NUMBER = re.compile(r"(?:0[xX]|[xX])?([0-9A-Fa-f]+)")
_ONE_NUMBER = re.compile(r"[0-9A-Fa-f]+")
_WORD_CHARACTER = re.compile(r"[0-9A-Za-z_]")  # what _RUN may not follow (but `\\n`)
_REPEATED = re.compile(r"\s*\*\s*")
_BITS = re.compile(r"[01]+")
_LEAD = re.compile(r"(?:\\|%|=|&#|\$)\Z")
# The character column xxd prints after its numbers, two spaces apart from them.
_COLUMN = re.compile(r" {2,}(?:0[xX]|[xX])?[0-9A-Fa-f]+[^\w\n]*\Z")
# od -c's fields: a character, an escape, or a byte in octal (each four columns wide).
_OD_LINE = re.compile(r"(?:[0-7]{7,}|[0-9a-f]{7,8})?((?:   [^ ]|  \\[0abfnrtv]| [0-7]{3}|    )+) *")
_OD_FIELD = re.compile(r"   ([^ ])|  \\([0abfnrtv])| ([0-7]{3})|    ")
_ESCAPES = dict(zip("0abfnrtv", "\0\a\b\f\n\r\t\v", strict=True))


@datarecord(frozen=False)
class _Run:
    """Numbers in a row on one line."""

    start: int  # where it begins in the text
    text: str  # as written
    numbers: list[str]  # their digits, prefixes left out
    column: str  # what follows on its line, two spaces or more after it: characters (xxd's)


@datarecord(frozen=False)
class View:
    """A decoded text and how to find, for a range of it, what in the original it came from."""

    text: str
    span: Callable[[int, int], tuple[int, int]]


def character_views(text: str) -> Iterator[View]:
    """The views of `text` that map each character to its own (searched before the patterns
    read the text as written: a piece of a value they find would split the value)."""
    if not text.isascii():
        yield from _folded(text)
    if _ESCAPE.search(text):
        yield from _unescaped(text)


def dump_views(text: str) -> Iterator[View]:
    """The views of `text` read as dumps of bytes (a match stands for whole numbers and lines)."""
    if _NUMBERS.search(text):
        yield from _dumps(_runs(text))
    if _OD_CHARS_HINT.search(text):
        yield from _od_chars(text)


# --- byte dumps ----------------------------------------------------------------------------


def _runs(text: str) -> list[_Run | None]:
    """Each line's runs of numbers, its offset left out (None: a line with none: a dump ends).
    After a run of four numbers or more, the rest of the line is its characters (xxd's,
    hexdump -C's), left out too."""
    found: list[_Run | None] = []
    for line in _LINE.finditer(text):
        start, end = line.span()
        if _ONE_NUMBER.fullmatch(text, start, end):
            # A line that is one number (seq's, a count's): what the reading below makes of it
            # (no offset, one run, no column), 3 times faster. After a letter it is no run,
            # but for the `n` of JSON's `\n`.
            number = line.group()
            alone = (
                start == 0
                or text.startswith("\\n", start - 2)
                or not _WORD_CHARACTER.match(text, start - 1)
            )
            found.append(_Run(start, number, [number], "") if alone else None)
            continue
        if _REPEATED.fullmatch(text, start, end) and found and found[-1] is not None:
            found.append(found[-1])  # od's and hexdump's `*`: the line before, again (once)
            continue
        offset = _OFFSET.match(text, start, end)
        if offset and _RUN.match(text, offset.end(), end):
            start = offset.end()
        runs = []
        for run in _RUN.finditer(text, start, end):
            rest = text[run.end() - (len(run.group()) - len(run.group().rstrip())) : end]
            column = rest if rest.startswith("  ") and rest.strip() else ""
            runs.append(_Run(run.start(), run.group(), _NUMBER.findall(run.group()), column))
            if len(runs[0].numbers) >= 4:
                break
        if not runs:
            found.append(None)
            continue
        last = runs[-1]
        column = _COLUMN.search(last.text)
        # xxd's characters, when they look like a number: as many as the bytes before them.
        if column and _is_column(last.numbers):
            last.numbers.pop()
            last.text, last.column = (
                last.text[: column.start()],
                text[last.start + column.start() : end],
            )
        found.extend(runs)
    return found


def _is_column(numbers: list[str]) -> bool:
    """Whether the last of a line's `numbers` is as long as the bytes the others spell."""
    prior = numbers[:-1]
    bits = all(_BITS.fullmatch(number) for number in prior)
    return len(numbers[-1]) == sum(map(len, prior)) // (8 if bits else 2) > 0


def _big_endian(numbers: list[str]) -> bytes:
    return bytes.fromhex("".join(numbers))


def _little_endian(numbers: list[str]) -> bytes:
    return b"".join(bytes.fromhex(number)[::-1] for number in numbers)


def _bytes_of(base: int) -> Callable[[list[str]], bytes]:
    return lambda numbers: bytes(map(functools.partial(int, base=base), numbers))


def _words_of(base: int) -> Callable[[list[str]], bytes]:
    """Numbers of two bytes each, little-endian (od -d, od -o, hexdump -d)."""
    return lambda numbers: b"".join((int(n, base) % 65536).to_bytes(2, "little") for n in numbers)


def _msb_first(numbers: list[str]) -> bytes:
    bits = "".join(numbers)
    bits = bits[: len(bits) - len(bits) % 8]
    return int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""


def _lsb_first(numbers: list[str]) -> bytes:
    bits = "".join(numbers)
    bits = bits[: len(bits) - len(bits) % 8][::-1]
    return int(bits, 2).to_bytes(len(bits) // 8, "big")[::-1] if bits else b""


class _Kind:
    """How a dump's numbers read: what one number may be, how many units a decoded byte takes
    (a number counts `each` units; 0: one a digit), and the decoding."""

    def __init__(
        self, number: str, per_byte: int, each: int, decode: Callable[[list[str]], bytes]
    ) -> None:
        # Numbers that fit, each followed by a space, in the runs' numbers written one after
        # the other (`_dumps`), enough for a value (fewer units than that are skipped in C).
        digit = number[number.index("[") : number.index("]") + 1]
        least = f"(?=(?:{digit} ?){{{_SHORTEST * per_byte}}})" if not each else ""
        times = f"{{{-(-_SHORTEST // each)},}}" if each else "+"
        # (The first number is checked first: most places fail there, at once.)
        self.stretch = re.compile(f"(?<![^ |])(?=(?:{number}) ){least}(?:{number} ){times}")
        self.per_byte, self.each, self.decode = per_byte, each, decode


_KINDS = (
    _Kind("(?:[0-9A-Fa-f]{2})+", 2, 0, _big_endian),
    _Kind("[0-9A-Fa-f]{16}|(?:[0-9A-Fa-f]{4}){1,2}", 2, 0, _little_endian),  # od -x, -tx8
    # (Atomic groups: one way to read each number, or a failed match would try them all.)
    _Kind("(?>25[0-5]|2[0-4][0-9]|[01][0-9][0-9]|[0-9]{1,2})", 1, 1, _bytes_of(10)),
    _Kind("(?>[0-3][0-7]{2}|[0-7]{1,2})", 1, 1, _bytes_of(8)),  # od -b
    _Kind("[0-9]{4,5}", 1, 2, _words_of(10)),  # od -d, hexdump -d
    _Kind("[0-7]{5,6}", 1, 2, _words_of(8)),  # od -o, hexdump -o
    _Kind("[01]+", 8, 0, _msb_first),
    _Kind("[01]+", 8, 0, _lsb_first),  # basenc --base2lsbf
)


def _dumps(runs: list[_Run | None]) -> Iterator[View]:
    """Each kind's view of each stretch of numbers that fit it, found in C in the runs'
    numbers written one after the other (a `|` where a line has none): a number that does not
    fit ends a stretch, and so does a line with no number."""
    written = "".join(run and " ".join(run.numbers) + " " or "|" for run in runs)
    firsts, count = [], 0  # the index of each run's first number
    for run in runs:
        firsts.append(count)
        count += len(run.numbers) if run else 0
    for kind in _KINDS:
        first = at = 0  # numbers before `at` in `written`
        for stretch in kind.stretch.finditer(written):
            numbers = stretch.group().split()
            decoded = kind.decode(numbers).decode("latin-1")
            first, at = first + written.count(" ", at, stretch.start()), stretch.start()
            if len(decoded) >= _SHORTEST:
                yield View(decoded, _dump_span(runs, firsts, first, numbers, kind))


def _dump_span(
    runs: list[_Run | None], firsts: list[int], first: int, numbers: list[str], kind: _Kind
) -> Callable[[int, int], tuple[int, int]]:
    """A view's span → the text's: from the number holding its first byte to the end of the
    run holding its last byte."""

    def where(unit: int) -> tuple[_Run, re.Match[str]]:
        """The run, and the number in it, holding `unit`."""
        index = 0
        while index < len(numbers) - 1 and unit >= (kind.each or len(numbers[index])):
            unit -= kind.each or len(numbers[index])
            index += 1
        at = first + index
        line = bisect.bisect_right(firsts, at) - 1
        while runs[line] is None or at - firsts[line] >= len(runs[line].numbers):  # type: ignore[union-attr]
            line += 1
        run = runs[line]
        assert run is not None
        return run, list(_NUMBER.finditer(run.text))[at - firsts[line]]

    def span(start: int, end: int) -> tuple[int, int]:
        run, number = where(start * kind.per_byte)
        lead = _LEAD.search(run.text, 0, number.start())  # its `%`, `\\`, `=`, `&#`
        last_run = where(end * kind.per_byte - 1)[0]
        *_, last = _NUMBER.finditer(last_run.text)  # the rest of its run goes too, and its
        stop = last_run.start + last.end()  # characters
        if last_run.column:
            stop = last_run.start + len(last_run.text.rstrip()) + len(last_run.column)
        return run.start + (lead.start() if lead else number.start()), stop

    return span


def _od_chars(text: str) -> Iterator[View]:
    """od -c's columns: consecutive lines of characters four columns wide, joined."""
    chars: list[str] = []
    bases: list[int] = []  # where each line's first field begins in the text
    firsts: list[int] = []  # the index in the view of each line's first character
    lines: list[re.Match[str]] = []
    for line in [*_LINE.finditer(text), None]:
        if line and bases and _REPEATED.fullmatch(line.group()):
            line = lines[-1]  # od's `*`: the line before, again (once)
        fields = _OD_LINE.fullmatch(line.group()) if line else None
        if fields is None or not fields.group(1).strip():
            if len(chars) >= _SHORTEST:
                yield View("".join(chars), _od_span(bases, firsts))
            chars, bases, firsts, lines = [], [], [], []
            continue
        lines.append(line)  # type: ignore[arg-type]
        bases.append(line.start() + fields.start(1))  # type: ignore[union-attr]
        firsts.append(len(chars))
        chars += [
            char or (escape and _ESCAPES[escape]) or (octal and chr(int(octal, 8))) or " "
            for char, escape, octal in _OD_FIELD.findall(fields.group(1))
        ]


def _od_span(bases: list[int], firsts: list[int]) -> Callable[[int, int], tuple[int, int]]:
    def at(index: int) -> int:
        line = bisect.bisect_right(firsts, index) - 1
        return bases[line] + 4 * (index - firsts[line])  # each field is four columns wide

    return lambda start, end: (at(start), at(end - 1) + 4)


# --- escapes -------------------------------------------------------------------------------

# A character written as an escape, in any text around it (`Vr7\x6bum`, `b'V\x00r\x00'`,
# `Vr7kum%71uat`, `&#107;`): the exact forms (forms.py) only know a value escaped whole.
_ESCAPE = re.compile(
    r"\\x([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\([0-3][0-7]{2})|%([0-9A-Fa-f]{2})"
    r"|&#[xX]([0-9A-Fa-f]{1,6});|&#([0-9]{1,7});"
)
_BASES = (16, 16, 8, 16, 16, 10)


def _unescaped(text: str) -> Iterator[View]:
    """`text` with its escapes decoded, each to its character."""
    pieces: list[str] = []
    starts: list[int] = []  # where each escape's character is in the view
    escapes: list[re.Match[str]] = []
    at = size = 0
    for escape in _ESCAPE.finditer(text):
        pieces.append(text[at : escape.start()])
        size += escape.start() - at
        group = escape.lastindex or 1
        code = int(escape.group(group), _BASES[group - 1])
        pieces.append(chr(code) if code < 0x110000 else "\ufffd")
        starts.append(size)
        escapes.append(escape)
        size, at = size + 1, escape.end()
    pieces.append(text[at:])

    def where(index: int) -> tuple[int, int]:
        """The span in `text` of the view's character at `index`."""
        found = bisect.bisect_right(starts, index) - 1
        if found >= 0 and starts[found] == index:
            return escapes[found].span()
        shift = escapes[found].end() - starts[found] - 1 if found >= 0 else 0
        return index + shift, index + shift + 1

    yield View("".join(pieces), lambda start, end: (where(start)[0], where(end - 1)[1]))


# --- characters ----------------------------------------------------------------------------

_TAGS = re.compile("[\U000e0000-\U000e007f]")
_FOLDS_KEPT = 50_000  # characters whose fold is remembered (a hostile text may hold them all)


class _Fold(dict):
    """str.translate's table, filled as characters are met: NFKC, look-alikes folded, format
    characters dropped, tag characters read as ASCII (`tags=True`) or dropped."""

    def __init__(self, tags: bool) -> None:
        super().__init__()
        self.tags = tags

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if code < 128:
            folded = char
        elif 0xE0020 <= code <= 0xE007E and self.tags:
            folded = chr(code - 0xE0000)
        elif unicodedata.category(char) == "Cf":
            folded = ""
        else:
            folded = _homoglyphs(unicodedata.normalize("NFKC", char))
        if len(self) < _FOLDS_KEPT:
            self[code] = folded
        return folded


def _homoglyphs(text: str) -> str:
    from hermes_tui.core.threats.views import fold_homoglyphs

    return fold_homoglyphs(text)


_WITH_TAGS, _WITHOUT_TAGS = _Fold(tags=True), _Fold(tags=False)


def _folded(text: str) -> Iterator[View]:
    tables = (_WITH_TAGS, _WITHOUT_TAGS) if _TAGS.search(text) else (_WITH_TAGS,)
    for table in tables:
        folded = text.translate(table)
        if folded != text:
            yield View(folded, _mapping(text, table))


def _mapping(text: str, table: _Fold) -> Callable[[int, int], tuple[int, int]]:
    """A folded text's span → the original's (built when a match asks)."""
    origins: list[int] = []

    def span(start: int, end: int) -> tuple[int, int]:
        if not origins:
            for index, char in enumerate(text):
                origins.extend([index] * len(table[ord(char)]))
            origins.append(len(text))
        return origins[start], origins[end - 1] + 1

    return span
