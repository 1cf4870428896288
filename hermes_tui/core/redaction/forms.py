"""The forms a known secret value can be carried out in, and the patterns that find them.

A value is found
- written out loosely, in any letter case: as it is, reversed, or letter by letter with
  separators between (`s k - a b c`, `s-k-a-b-c`, `Zq9 known secret`): its characters other than
  separators (SEPARATORS), in order, with up to three separators between each two;
- encoded, in any letter case: hex, URL-encoding, base32 (at each of the five byte offsets
  inside a longer encoded text);
- in base64, standard and URL-safe, at each of the three byte offsets;
and each encoding also of the value upper-cased, lower-cased and reversed. An encoded form may
be wrapped (a line break every few characters, as `base64`, `base32` and `xxd -p` print them),
as real line breaks or as the `\\n` escapes of JSON text: such a block is searched with its lines
joined, and shown joined where it held a secret.

Each kind of form is one regular expression built as a trie (a branch only where forms differ),
so a text is scanned once whatever the number of forms; a form's name is found again from the
text it matched (`name_of`).
"""

from __future__ import annotations

import base64
import bisect
import functools
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping

# An encoded form shorter than this could match by chance in ordinary base64 or hex.
MIN_ENCODED_LENGTH = 8
# Written-out values shorter than this (separators not counted) would match ordinary words.
MIN_LOOSE_LENGTH = 8
# Written between the characters of a value: ASCII separators, their full-width forms, NUL
# (UTF-16 text printed as it is), zero-width characters and combining accents.
_INVISIBLE = "\x00\u200b\u200c\u200d\u2060\ufeff" + "".join(map(chr, range(0x300, 0x370)))
SEPARATORS = " \t\r\n\f\v-_.,:;|/*+\u3000\uff0d\uff3f\uff0e\uff0c\uff1a" + _INVISIBLE
_SQUASH = str.maketrans("", "", SEPARATORS)
# Between two characters of a value written out loosely. No quote or backslash but whole JSON
# escapes, so redacting JSON text keeps it valid JSON.
GAP = (
    r"(?:[\s\-_.,:;|/*+\u3000\uff0d\uff3f\uff0e\uff0c\uff1a\x00\u200b-\u200d\u2060\ufeff"
    r"\u0300-\u036f]|\\[nrt]){0,3}"
)
_FULLWIDTH = {code: code + 0xFEE0 for code in range(0x21, 0x7F)}
# A block of encoded text wrapped over lines (`base64`, `base32`, `xxd -p` print them so), real
# line breaks or JSON's `\n`: its lines are joined before its forms are looked for.
# Starts only where a run of such characters starts: the same matches (a match can only begin
# at a run's start), but a long run followed by a line break and no more (100 KB of one word)
# is tried once, not from each of its characters (that was quadratic).
WRAPPED = re.compile(
    r"(?<![A-Za-z0-9+/=_%\-])[A-Za-z0-9+/=_%\-]{2,}(?:(?:\r?\n|\\r\\n|\\n)[A-Za-z0-9+/=_%\-]+)+"
)
_BREAKS = re.compile(r"[\r\n]|\\[nr]")
BASE64_TAIL = "[A-Za-z0-9+/_-]{0,3}={0,2}"  # the group holding the value's last bytes, padding
BASE32_TAIL = "[A-Za-z2-7]{0,7}={0,6}"
BASE32HEX_TAIL = "[0-9A-Va-v]{0,7}={0,6}"
BASE85_TAIL = r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{0,4}"
ASCII85_TAIL = r"[!#-\[\]-u]{0,4}"  # not a quote or a backslash: JSON text stays valid
Z85_TAIL = r"[0-9A-Za-z.\-:+=^!/*?&<>()\[\]{}@%$#]{0,4}"
# ZeroMQ's base85 (basenc --z85): Python's base85 digit for digit, in another alphabet.
_Z85 = bytes.maketrans(
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~",
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#",
)


def squash(text: str) -> str:
    """`text` without separators, lower-cased: how loose forms are compared."""
    return text.translate(_SQUASH).lower()


def _cores(raw: bytes, group: int, encode) -> list[str]:
    """What `raw` looks like inside any text `encode`d in groups of `group` bytes, at each byte
    offset: the groups it shares with its neighbours are left out."""
    cores = []
    for offset in range(group):
        skip = (group - offset) % group  # bytes of the value in the group shared with what precedes
        body = raw[skip:]
        body = body[: len(body) - len(body) % group]
        core = encode(body).decode("ascii").rstrip("=") if body else ""
        if len(core) >= MIN_ENCODED_LENGTH:
            cores.append(core)
    return cores


def _variants(value: str) -> set[str]:
    return {value, value.upper(), value.lower(), value[::-1]}


def loose_form(value: str) -> str | None:
    """The value without its separators, if enough is left to be told from ordinary words."""
    squashed = squash(value)
    return squashed if len(squashed) >= MIN_LOOSE_LENGTH else None


def loose_forms(value: str) -> set[str]:
    """The value, reversed, in ROT13 and in full-width letters, each without separators."""
    import codecs

    texts = {value, value[::-1], codecs.encode(value, "rot13"), value.translate(_FULLWIDTH)}
    return {form for form in map(loose_form, texts) if form}


def partial_forms(value: str, wordy: bool = False) -> set[str]:
    """Pieces of a value that looks random (a key, a token: 16 characters or more, letters and
    digits, no URL) long enough to tell (a third of it, 8 characters at least) and holding a
    digit and two letters: printed in two halves (two commands, two tool results), each half
    is found on its own. Words and URLs are left out: a piece of one would be ordinary text.
    A secret split in three (a third of it each) is found piece by piece too, a piece
    without a digit when its letters look random (`random_looking`), and so are its even and odd
    characters apart, and each piece reversed. `wordy`: every piece of just a third,
    random-looking or not (for decoded views, where a word is no ordinary text)."""
    if len(value) < 16 or "://" in value or not random_looking(value):
        return set()
    size = max(8, len(value) // 3)
    pieces = [value[i:j] for i in range(len(value)) for j in range(i + size, len(value) + 1)]
    if wordy:  # the shortest pieces: a longer one holds one of them
        # With two letters at least: a run of digits is what ordinary numeric output (`seq`,
        # ids, sizes) decodes to when read as a dump, not a piece of anything.
        windows = (value[i : i + size] for i in range(len(value) - size + 1))
        return {piece for piece in windows if sum(map(str.isalpha, piece)) >= 2}
    # Its every other (every third, …) character, on lines of their own.
    pieces += [
        value[start::step] for step in range(2, len(value) // 8 + 1) for start in range(step)
    ]
    kept = {
        piece for piece in pieces if len(piece) >= 8 and random_looking(piece) and piece != value
    }
    return kept | {piece[::-1] for piece in kept}  # a half printed backwards (`rev`)


def random_looking(text: str) -> bool:
    """Random-looking: a digit and two letters, or (no digit) letters of both cases that no
    word or name holds: two of each, and never four of one case in a row (`hJsDfGaE`, not
    `CorrectHorse` or `LEAKCHECK`)."""
    if any(map(str.isdigit, text)):
        return sum(map(str.isalpha, text)) >= 2
    upper, lower = sum(map(str.isupper, text)), sum(map(str.islower, text))
    return upper >= 2 and lower >= 2 and not _SAME_CASE_RUN.search(text)


_SAME_CASE_RUN = re.compile(r"[a-z]{4}|[A-Z]{4}")


def _byte_forms(raw: bytes) -> set[str]:
    """Each byte spelled out: hex pairs with separators, escapes, entities, numbers."""
    pairs = [f"{byte:02x}" for byte in raw]
    return {
        ":".join(pairs),
        " ".join(pairs),
        "".join(f"\\x{pair}" for pair in pairs),
        "".join(f"%{pair}" for pair in pairs),
        "".join(f"\\{byte:03o}" for byte in raw),
        " ".join(map(str, raw)),
    }


def _char_forms(value: str) -> set[str]:
    """Each character escaped as JSON, HTML (decimal, hex) would write it."""
    return {
        "".join(f"\\u{ord(char):04x}" for char in value),
        "".join(f"&#{ord(char)};" for char in value),
        "".join(f"&#x{ord(char):x};" for char in value),
    }


def encoded_forms(value: str) -> dict[str, str]:
    """Form → the tail that may follow it: the value and its reverse as they are, hex,
    URL-encoding and base32 (letter case does not matter in any of them)."""
    forms = {value: "", value[::-1]: ""}
    for text in _variants(value):
        raw = text.encode("utf-8")
        forms.update({raw.hex(): "", urllib.parse.quote(text, safe=""): ""})
        forms[urllib.parse.quote_plus(text)] = ""
        forms.update(dict.fromkeys(_cores(raw, 5, base64.b32encode), BASE32_TAIL))
    utf16 = value.encode("utf-16-le")
    forms.update(dict.fromkeys({*_byte_forms(value.encode("utf-8")), *_char_forms(value)}, ""))
    # A list of its characters, as JSON or Python print it (`["V", "r", …]`): the label takes
    # the place of what lies between the first and the last quote, so the list stays valid.
    forms.update(dict.fromkeys((sep.join(value) for sep in ('", "', '","', "', '", "','")), ""))
    forms.update({utf16.hex(): "", value.encode("utf-16-be").hex(): ""})
    return {form: tail for form, tail in forms.items() if len(form) >= MIN_ENCODED_LENGTH}


def base64_forms(value: str) -> dict[str, str]:
    """Form → tail: the value inside base64 text (standard and URL-safe) at each offset."""
    forms = {}
    for text in _variants(value):
        for core in _cores(text.encode("utf-8"), 3, base64.b64encode):
            forms[core] = forms[core.replace("+", "-").replace("/", "_")] = BASE64_TAIL
    # Its UTF-16, base64 of its base64, and base85 (Python's and Ascii85).
    others = [value.encode("utf-16-le"), base64.b64encode(value.encode("utf-8"))]
    for raw in others:
        forms.update(dict.fromkeys(_cores(raw, 3, base64.b64encode), BASE64_TAIL))
    for encode, tail in ((base64.b85encode, BASE85_TAIL), (base64.a85encode, ASCII85_TAIL)):
        forms.update(dict.fromkeys(_cores(value.encode("utf-8"), 4, encode), tail))
    forms.update(dict.fromkeys(_cores(value.encode("utf-8"), 4, _z85), Z85_TAIL))
    # base32hex (basenc --base32hex): upper case as printed, and lower case; matched here, case
    # and all, it costs a fraction of what the encoded forms' case-blind pattern would.
    for core in _cores(value.encode("utf-8"), 5, base64.b32hexencode):
        forms[core] = forms[core.lower()] = BASE32HEX_TAIL
    return forms


# A piece's encoding goes on to the end of its word: the rest of a half encoded alone.
PIECE_BASE64_TAIL = "[A-Za-z0-9+/_-]*={0,2}"
PIECE_BASE32_TAIL = "[A-Za-z2-7]*={0,6}"
PIECE_HEX_TAIL = "[0-9A-Fa-f]*"


def piece_encodings(value: str) -> tuple[dict[str, str], dict[str, str]]:
    """(base64 forms, case-blind forms) → tail, of each piece of a third of a value
    `partial_forms` knows (wordy or not) encoded on its own: in base64 and base32 at each byte
    offset, and in hex. A half (`head -c 12 secret | base64`), or any cut of the whole value's
    encoding, holds one of them, and its tail takes the rest of the word (attack4's A4-5
    addendum). Matched as forms, they cost no decoding of the text."""
    b64: dict[str, str] = {}
    blind: dict[str, str] = {}
    for piece in partial_forms(value, wordy=True):
        raw = piece.encode("utf-8")
        for core in _cores(raw, 3, base64.b64encode):
            b64[core] = b64[core.replace("+", "-").replace("/", "_")] = PIECE_BASE64_TAIL
        blind.update(
            dict.fromkeys((c.lower() for c in _cores(raw, 5, base64.b32encode)), PIECE_BASE32_TAIL)
        )
        blind[raw.hex()] = PIECE_HEX_TAIL
    return b64, blind


def _z85(raw: bytes) -> bytes:
    return base64.b85encode(raw).translate(_Z85)


def trie_pattern(forms: Mapping[str, str], gap: str, flags: int = 0) -> re.Pattern[str] | None:
    """One pattern matching any of `forms` (form → the tail that may follow it), with `gap`
    between each two of its characters; where one form goes on past another, the longer wins.
    Built once per set of forms in a process: every runtime (a provider switch, an eval's runs,
    a crash report) builds a Redactor for the same secrets, and compiling the patterns of one
    secret's hundreds of forms costs milliseconds."""
    return _trie_pattern(tuple(sorted(forms.items())), gap, flags) if forms else None


@functools.lru_cache(maxsize=16)
def _trie_pattern(forms: tuple[tuple[str, str], ...], gap: str, flags: int) -> re.Pattern[str]:
    root: dict = {}
    for form, tail in forms:
        node = root
        for char in form:
            node = node.setdefault(char, {})
        node[""] = tail
    return re.compile(_branches(root, gap), flags)


class AnyCase:
    """`trie_pattern(forms, gap)` matched in any letter case (`finditer`, `sub`).

    The forms are lower case, and `gap` and their tails match a letter in either case alike.
    A case-blind pattern's branches cannot be skipped in C by their first character, so it
    tries every branch at every position (1.3 s for a 4 MB tool output). When every form, the
    gap and the tails are ASCII, a text is searched case-folded by `ascii_folded`, case and
    all: one of its characters matches a form's character in any case exactly when its folded
    form matches it as written, so the matches are the same, at the same places (each index
    unchanged), in a twentieth of the time. A match found so holds the text folded. The
    case-blind pattern is compiled only for forms that are not all ASCII (or when a test asks
    for it): compiling it cost a third of a Redactor's construction, and every session whose
    tool output held a byte dump read as non-ASCII text (a date, a size) paid it again.
    """

    def __init__(self, forms: Mapping[str, str], gap: str) -> None:
        self._forms, self._gap = dict(forms), gap
        self._blind: re.Pattern[str] | None = None
        ascii_lower = _ascii_only(gap) and all(
            form.isascii() and form == form.lower() and _ascii_only(tail)
            for form, tail in forms.items()
        )
        self._cased = trie_pattern(forms, gap) if ascii_lower else None

    @property
    def pattern(self) -> re.Pattern[str] | None:
        """The case-blind pattern (built on first use; two threads may both build it)."""
        if self._blind is None:
            self._blind = trie_pattern(self._forms, self._gap, re.IGNORECASE)
        return self._blind

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._cased is not None:
            return self._cased.finditer(ascii_folded(text))
        pattern = self.pattern
        assert pattern is not None
        return pattern.finditer(text)

    def sub(self, label: Callable[[re.Match[str]], str], text: str) -> str:
        if self._cased is None:
            pattern = self.pattern
            assert pattern is not None
            return pattern.sub(label, text)
        pieces, at = [], 0
        for match in self._cased.finditer(ascii_folded(text)):
            pieces += (text[at : match.start()], label(match))
            at = match.end()
        return "".join(pieces) + text[at:] if pieces else text


# Under re.IGNORECASE an ASCII letter matches its other case and, of all other characters,
# only these four (Python's case folding: dotted and dotless i, long s, the Kelvin sign).
_ASCII_FOLD = {
    **{code: code + 32 for code in range(ord("A"), ord("Z") + 1)},
    0x130: "i",
    0x131: "i",
    0x17F: "s",
    0x212A: "k",
}
# Those str.lower() leaves alone, or makes two characters of (İ).
_NOT_LOWERED = re.compile("[\u0130\u0131\u017f]")


# What a case-blind GAP matches as one character, each written as a space by `loose_text`:
# \s (str.isspace), the other separators it lists, and the three characters case folding
# makes equal to U+0345 (a combining mark): ι, Ι and U+1FBE.
_GAP_CHARACTERS = (
    "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "-_.,:;|/*+\uff0d\uff3f\uff0e\uff0c\uff1a\x00\u200b\u200c\u200d\u2060\ufeff"
    + "".join(map(chr, range(0x300, 0x370)))
    + "\u03b9\u0399\u1fbe"
)
_LOOSE_TEXT = {**_ASCII_FOLD, **dict.fromkeys(map(ord, _GAP_CHARACTERS), " ")}
# GAP in `loose_text`: a space stands for any separator.
_LOOSE_GAP = r"(?: |\\[nrt]){0,3}"


def loose_text(text: str) -> str:
    """`text` as the loose forms are searched in it: each character a case-blind GAP matches
    written as a space, each one a case-blind letter matches written as that ASCII letter in
    lower case (`ascii_folded`), nothing else changed: the same length, each index the same."""
    return text.translate(_LOOSE_TEXT)


class LooseForms:
    """`trie_pattern(forms, GAP, re.IGNORECASE)` (values written out loosely: up to three
    separators between each two characters, any letter case), matched alike (`finditer`,
    `sub`) without compiling it.

    Compiled, its GAP between every two characters of every form cost more than half of a
    Redactor's construction (0.5 s of CPU with fifteen secrets, at every start). The forms
    all ASCII are matched, case and all, in `loose_text(text)`, where every separator is a
    space: the gap there is a space or a JSON escape, and each character of the text matches
    a form's character, or the gap, exactly when it does in the case-blind pattern, so the
    matches are the same, at the same places. The other forms (full-width ones, a secret not
    all ASCII) keep the case-blind pattern, compiled when a text first holds a character one
    of them starts with. A match of one kind meets one of the other only where two values
    share a stretch of eight characters or more; the one that starts first is replaced."""

    def __init__(self, forms: Iterable[str]) -> None:
        wide = sorted({form for form in forms if not form.isascii()})
        narrow = {form: "" for form in forms if form.isascii()}
        self._cased = trie_pattern(narrow, _LOOSE_GAP)
        self._wide = dict.fromkeys(wide, "")
        self._blind: re.Pattern[str] | None = None
        firsts = "".join(sorted({re.escape(form[0]) for form in wide}))
        self._starts = re.compile(f"[{firsts}]", re.IGNORECASE) if wide else None

    def finditer(self, text: str) -> list[re.Match[str]]:
        found = list(self._cased.finditer(loose_text(text))) if self._cased is not None else []
        if self._starts is not None and self._starts.search(text):
            if self._blind is None:  # (two threads may both build it)
                self._blind = trie_pattern(self._wide, GAP, re.IGNORECASE)
            assert self._blind is not None
            found = sorted([*found, *self._blind.finditer(text)], key=lambda m: m.start())
        return found

    def sub(self, label: Callable[[re.Match[str]], str], text: str) -> str:
        pieces, at = [], 0
        for match in self.finditer(text):
            if match.start() >= at:
                pieces += (text[at : match.start()], label(match))
                at = match.end()
        return "".join(pieces) + text[at:] if pieces else text


def _ascii_only(regex: str) -> bool:
    """Whether a gap's or a tail's pattern matches ASCII characters only, as far as its text
    tells: written in ASCII, no `.`, no escape of a letter or digit (\\s, \\w, \\u0300)."""
    return regex.isascii() and _WIDE_REGEX.search(regex) is None


_WIDE_REGEX = re.compile(r"\.|\\[A-Za-z0-9]")


def ascii_folded(text: str) -> str:
    """`text` with every character a case-blind pattern matches to an ASCII letter written as
    that letter in lower case, and no other character made ASCII: the same length, each index
    the same. str.lower() does that (a fifth of the time of a translation) unless the text
    holds one of _NOT_LOWERED: it turns no other character into an ASCII one, and only İ into
    two characters."""
    if text.isascii() or not _NOT_LOWERED.search(text):
        return text.lower()
    return text.translate(_ASCII_FOLD)


def _branches(node: dict, gap: str, lead: str = "") -> str:
    """The pattern of what may follow `node` (`lead`: the gap before each next character)."""
    alternatives = []
    for char in sorted(key for key in node if key):
        chain, child = [re.escape(char)], node[char]
        while len(child) == 1 and "" not in child:  # one way on: no group needed
            ((next_char, child),) = child.items()
            chain.append(re.escape(next_char))
        if any(child):
            alternatives.append(lead + gap.join(chain) + _branches(child, gap, gap))
        else:
            alternatives.append(lead + gap.join(chain) + child[""])
    if "" in node:
        alternatives.append(node[""])  # the form ends here: after the longer ones
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def unwrapped(block: str) -> str:
    """An encoded block without the line breaks wrapping put in it."""
    return _BREAKS.sub("", block)


def name_of(found: str, names: Mapping[str, str], fold: bool) -> str:
    """Whose form `found` (a match, line breaks taken out) begins with: the longest first."""
    if fold:
        found = found.lower()
    if found in names:  # most matches are a whole form
        return names[found]
    for form in sorted(names, key=len, reverse=True):
        if found.startswith(form):
            return names[form]
    return next(iter(names.values()))


class Starts:
    """Whether the tail of a streamed text may still grow into one of `forms`, and from where.

    `drop`: characters a form may have between its own (left out of both before comparing);
    `fold`: letter case does not matter."""

    def __init__(self, forms: Iterable[str], drop: str, fold: bool) -> None:
        self.table = str.maketrans("", "", drop)
        self.drop, self.fold = drop, fold
        self.forms = sorted({self._kept(form) for form in forms})
        self.longest = max(map(len, self.forms), default=0)
        self.alphabet = "".join({char for form in self.forms for char in form})
        self.firsts = frozenset(form[0] for form in self.forms)

    def _kept(self, text: str) -> str:
        kept = text.translate(self.table)
        return kept.lower() if self.fold and len(kept.lower()) == len(kept) else kept

    def start(self, window: str) -> int | None:
        """Where in `window` the earliest tail that begins a form starts (None: nowhere)."""
        kept = self._kept(window)
        # Only the last run of the forms' characters can begin one; the run is found in C.
        first = max(len(kept.rstrip(self.alphabet)), len(kept) - self.longest)
        for start in range(first, len(kept)):
            if kept[start] not in self.firsts:
                continue
            tail = kept[start:]
            at = bisect.bisect_left(self.forms, tail)
            if at < len(self.forms) and self.forms[at].startswith(tail):
                return self._back(window, len(tail))
        return None

    def _back(self, window: str, count: int) -> int:
        """The index in `window` of the character that begins its `count` last kept ones."""
        for index in range(len(window) - 1, -1, -1):
            if window[index] not in self.drop:
                count -= 1
                if count == 0:
                    return index
        return 0
