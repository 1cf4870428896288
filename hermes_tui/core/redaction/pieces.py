"""Small pieces of a known secret, counted over one conversation's tool results.

The Redactor judges each text alone: a piece of a secret is redacted when it is a third of it
or more (forms.partial_forms). A secret printed in quarters (`cut -c1-6`, `cut -c7-12`, … in
four tool results: ATTACK.md A3-1) passes piece by piece, and the model has it whole. This
ledger belongs to one conversation (ToolContext.secret_pieces) and reads every tool result
after the Redactor:

1. A piece is a run of 4 characters or more of a random-looking known value (forms.
   partial_forms' kind: 16 characters or more, no URL), in any letter case; it counts when it
   holds a digit or an upper-case letter after a lower-case one, is 10 characters or more, or
   lies next to a piece seen before (`cret` or `Secret` of a word is ordinary text; `19xq`,
   `atSe`, and `cret` right after `atSe` are not).
2. The characters of each value the conversation's results have shown are remembered. A piece
   that would make them more than `SHARE` of the value is replaced by a label (and stays
   unshown); so the model never sees more than that share, however the value is cut.

A piece shown again costs nothing (its characters are shown already). The label says
`piece`, so a person reading the transcript knows what happened.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping

from hermes_tui.core.redaction.forms import random_looking, trie_pattern

SHARE = 0.2  # the most of a value a conversation's results may show in pieces
SHORTEST = 4  # characters of a piece
LONGEST_VALUE = 160  # longer values are left to the whole-value forms (their pieces are many)
_COUNTS = re.compile(r"[0-9]|[a-z][A-Z]")


def _counts(piece: str) -> bool:
    return len(piece) >= 10 or bool(_COUNTS.search(piece))


class PieceLedger:
    """The pieces of known values one conversation has been shown, and the ones it may not."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        self._values = {
            name: value
            for name, value in secrets.items()
            if 16 <= len(value) <= LONGEST_VALUE
            and value.isascii()
            and "://" not in value
            and random_looking(value)
        }
        self._shown = {name: set[int]() for name in self._values}
        self._seen = {name: set[int]() for name in self._values}  # shown or withheld
        # Every run of SHORTEST characters of every value, lower-cased → where (a piece found
        # starts with one and is followed along the value).
        self._lower = {name: value.lower() for name, value in self._values.items()}
        self._where: dict[str, list[tuple[str, int]]] = {}
        for name, lower in self._lower.items():
            for start in range(len(lower) - SHORTEST + 1):
                self._where.setdefault(lower[start : start + SHORTEST], []).append((name, start))
        self._pattern = trie_pattern(dict.fromkeys(self._where, ""), "")
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return self._pattern is not None

    def withheld(self, texts: list[str]) -> dict[str, str]:
        """The pieces (lower case → the value's name) to replace in these texts, the strings
        of one tool result; what they show besides is remembered as shown."""
        if self._pattern is None:
            return {}
        withheld: dict[str, str] = {}
        with self._lock:
            for text in texts:
                lowered = text.lower()
                if len(lowered) != len(text):  # a character whose lower case is longer
                    lowered = text
                at = 0
                while (match := self._pattern.search(lowered, at)) is not None:
                    name, start, length = self._longest(lowered, match.start())
                    at = match.start() + length
                    piece = lowered[match.start() : at]
                    end, seen = start + length, self._seen[name]
                    if not (_counts(text[match.start() : at]) or {start - 1, end} & seen):
                        continue
                    here = set(range(start, end))
                    seen |= here
                    shown = self._shown[name] | here
                    if len(shown) > SHARE * len(self._values[name]):
                        withheld[piece] = name
                    else:
                        self._shown[name] = shown
        return withheld

    def _longest(self, text: str, at: int) -> tuple[str, int, int]:
        """(name, start in it, length) of the longest run of a value at `text[at:]`."""
        best = ("", 0, 0)
        for name, start in self._where[text[at : at + SHORTEST]]:
            value, length = self._lower[name], SHORTEST
            while (
                start + length < len(value)
                and at + length < len(text)
                and text[at + length] == value[start + length]
            ):
                length += 1
            if length > best[2]:
                best = (name, start, length)
        return best

    @staticmethod
    def replace(text: str, withheld: Mapping[str, str]) -> str:
        """`text` with each withheld piece (any case) replaced by its label."""
        if not withheld:
            return text
        pattern = trie_pattern(dict.fromkeys(withheld, ""), "", re.IGNORECASE)
        assert pattern is not None
        return pattern.sub(lambda m: f"[REDACTED {withheld[m.group().lower()]} piece]", text)
