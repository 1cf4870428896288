"""A threat row is asked only of a text holding one of the strings every match of it holds
(core/threats/searching.py): the strings read off the regex, and the rows finding what their
plain regexes find, on the corpora's texts and on them with letters only re.I equates."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from helpers import read_yaml

from hermes_tui.core.skills import guard
from hermes_tui.core.threats import patterns
from hermes_tui.core.threats.searching import Prefiltered, required_strings

DATA = Path(__file__).resolve().parents[1] / "data"
FLAGS = re.I | re.M


@pytest.mark.parametrize(
    ("pattern", "strings"),
    [
        ("abc", {"abc"}),
        (r"a(?:bb|cc)d", {"abbd", "accd"}),
        (r"a(?:b|c)d", {"a"}),  # one letter of two is a class to the parser
        (r"\bfoo\s+barbaz", {"barbaz"}),
        (r"\b(?:ignore|forget)\s+\w+", {"ignore", "forget"}),
        (r"(?:x|y\w+)z", {"x", "y"}),
        (r"(?:ab)?cd", {"cd"}),
        (r"(?:ab)+c", {"ab"}),
        (r"^(?=[^\n]*?secret)(?=[^\n]*?send\s)[^\n]*", {"secret"}),
        (r"(?<!never )(?:set|put)\s", {"set", "put"}),
        (r"(?<=token=)\w+", {"token="}),
        (r"(?!abc)x", {"x"}),
        (r".*", None),
        (r"[a-z]{3}", None),
        (r"a{0,3}", None),
        (r"(?:abc|\w)", None),
        (r"(?-i:Secret)", None),  # letters that would match otherwise than the row's
    ],
)
def test_the_strings_every_match_holds(pattern: str, strings: set[str] | None) -> None:
    found = required_strings(pattern, FLAGS)
    assert (set(found) if found is not None else None) == strings


def _rows() -> list[tuple[str, str]]:
    return [(p.id, p.pattern) for p in (*patterns.PATTERNS, *guard.SKILL_PATTERNS)]


def _attacks() -> list[str]:
    """Two corpora's attacks (a prefilter can only lose a match, so texts the rows match are
    the ones to read; the scanner's verdicts on every corpus text were compared before and
    after, out of the suite)."""
    attacks = []
    for name in ("injection_attacker_1.yaml", "injection_holdout_11.yaml"):
        attacks += [entry["text"] for entry in read_yaml(DATA / name)["attacks"]]
    return attacks


# Letters re.I takes for others (the long s for s, the Kelvin sign for k, dotted and dotless I),
# and the ones it does not (the sharp s is no "ss").
FOLDS = str.maketrans({"s": "ſ", "k": "\u212a", "i": "\u0130", "I": "ı", "S": "ß"})


def test_every_long_row_finds_what_its_plain_regex_finds() -> None:
    attacks = _attacks()
    rng = random.Random(7)
    folded = ["".join(c.translate(FOLDS) if rng.random() < 0.3 else c for c in t) for t in attacks]
    texts = [*attacks, *folded[::2]]
    rows = [row for row in _rows() if isinstance(patterns._compile(row[1]), Prefiltered)]
    assert len(rows) >= 7
    matched = 0
    for name, pattern in rows:
        plain = re.compile(pattern, FLAGS)
        fast = Prefiltered(plain)  # its strings read off after its first searches, as in use
        for text in texts:
            old, new = plain.search(text), fast.search(text)
            assert (old and old.span()) == (new and new.span()), (name, text)
            matched += old is not None
        assert fast.first_pass() is not None, name
    assert matched > 60


def test_a_long_text_is_searched_through_the_rows_strings_from_the_first_search() -> None:
    """A text of Prefiltered.LONG_TEXT characters or more is not searched plain even by a row's
    first search (a long AGENTS.md at a start): the strings are read off at once, and the
    match is the plain regex's."""
    rows = [row for row in _rows() if isinstance(patterns._compile(row[1]), Prefiltered)]
    attack = _attacks()[0]
    filler = "the build runs tests on every push. " * (Prefiltered.LONG_TEXT // 36 + 1)
    for name, pattern in rows:
        plain = re.compile(pattern, FLAGS)
        for text in (filler + attack, attack + filler, filler):
            fast = Prefiltered(plain)
            found = fast.search(text)
            assert fast._first is not False, name  # read off by this first search
            assert (found and found.span()) == ((m := plain.search(text)) and m.span()), name
        short = Prefiltered(plain)
        short.search(attack)
        assert short._first is False, name  # a short text: after SEARCHES_FIRST, as before
