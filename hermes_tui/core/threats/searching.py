"""How a threat row is searched faster than its plain regex, finding the same match.

`later_on_its_line(head, tail)` writes a row that is `head`, then `tail` later on its line: as a
plain regex each place the head matches reads the rest of its line again (quadratic on a line of
heads with no tail); `LaterOnItsLine` reads each line at most twice.
"""

from __future__ import annotations

import re

# Rows written `head[^\n]*tail` (later_on_its_line), by their pattern: (head, tail).
LATER_ON_ITS_LINE: dict[str, tuple[str, str]] = {}


def later_on_its_line(head: str, tail: str) -> str:
    """The row `head`, then `tail` anywhere later on the same line, searched in one pass
    (LaterOnItsLine): as a plain regex each place `head` matches reads the rest of its line
    again, so a line of 16,000 `curl` words and no `$…KEY` took 3 s (attack6)."""
    pattern = head + r"[^\n]*" + tail
    LATER_ON_ITS_LINE[pattern] = (head, tail)
    return pattern


class LaterOnItsLine:
    """`search` as `re.search(head + r"[^\n]*" + tail)` answers (the same match), reading each
    line at most twice: the tails first (a line without one is never read for its heads), then
    on a line that has one, the first head that ends before its last tail."""

    def __init__(self, head: str, tail: str) -> None:
        # `tail` can hold no line break, and the head no character a tail can start with
        # (the rows that use this say so in their tests).
        self.whole = re.compile(head + r"[^\n]*" + tail, re.I | re.M)
        self.pattern = self.whole.pattern
        self._head = re.compile(head, re.I | re.M)
        self._tail = re.compile(tail, re.I | re.M)

    def search(self, text: str) -> re.Match[str] | None:
        line_end = -1
        last = -1  # where the last tail found on the line ending at line_end starts
        for tail in self._tail.finditer(text):
            if tail.start() > line_end:
                if last >= 0 and (found := self._on_line(text, last)):
                    return found
                line_end = text.find("\n", tail.start())
                line_end = len(text) if line_end < 0 else line_end
            last = tail.start()
        return self._on_line(text, last) if last >= 0 else None

    def _on_line(self, text: str, last: int) -> re.Match[str] | None:
        """The whole pattern's first match on the line where a tail starts at `last`, the
        line's last: there is one if a head ends at or before `last`."""
        line_start = text.rfind("\n", 0, last) + 1
        if self._head.search(text, line_start, last) is None:
            return None
        return self.whole.search(text, line_start)


# ---- required strings: a row asked only of a text that holds one of them -------------------
# Read off the parsed regex (re._parser's tree: CPython's own, private; tests/core/test_prefilter.py
# fails loudly if it changes): a literal is a string; a sequence holds the longest-reaching
# strings of its parts, a branch the union of its branches', a repeat of at least one its part's,
# a lookaround its own (it must match in the text too). Anything else (a class, `.`, a group with
# flags of its own) holds no string. Every match of the regex holds one of the set: searching
# for the set (under the regex's flags, so letters match alike) tells which texts need the row.
_MOST_STRINGS = 200  # a sequence's strings, at most (their product grows with each branch)


def required_strings(pattern: str, flags: int) -> frozenset[str] | None:
    """Strings one of which every match of `pattern` holds, or None when none was found."""
    from re import _parser

    _, needed = _sequence(_parser.parse(pattern, flags).data)
    return frozenset(needed) if needed else None


def _better(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    """The more telling of two sets: the one whose shortest string is longer."""
    if a is None or b is None:
        return a if b is None else b
    return a if min(map(len, a)) >= min(map(len, b)) else b


def _sequence(items: list) -> tuple[set[str] | None, set[str] | None]:
    """(the strings the sequence is exactly, or None; the strings one of which it holds)."""
    best: set[str] | None = None
    run: set[str] = {""}  # the strings the parts since the last break are exactly
    whole = True
    for op, av in items:
        exact, needed = _node(op, av)
        if exact == {""}:  # zero-width: the run goes on past it
            best = _better(best, needed)
            continue
        if (
            exact is not None
            and len(joined := {a + b for a in run for b in exact}) <= _MOST_STRINGS
        ):
            run = joined
            continue
        whole = False
        if all(run):
            best = _better(best, run)
        best = _better(best, needed if needed and all(needed) else None)
        run = {""}
    if all(run):
        best = _better(best, run)
    return (run if whole else None), best


def _node(op: object, av: object) -> tuple[set[str] | None, set[str] | None]:
    from re import _constants as c

    if op is c.LITERAL:
        return {chr(av)}, {chr(av)}  # type: ignore[arg-type]
    if op is c.SUBPATTERN:
        _, added, removed, sub = av  # type: ignore[misc]
        return (None, None) if added or removed else _sequence(sub.data)
    if op is c.BRANCH:
        branches = [_sequence(branch.data) for branch in av[1]]  # type: ignore[index]
        if all(exact is not None for exact, _ in branches):
            union = set().union(*(exact for exact, _ in branches if exact is not None))
            if len(union) <= _MOST_STRINGS:
                return union, (union if all(union) else None)
        if all(needed for _, needed in branches):
            return None, set().union(*(needed for _, needed in branches if needed))
        return None, None
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        least, most, sub = av  # type: ignore[misc]
        exact, needed = _sequence(sub.data)
        if least == most == 1:
            return exact, needed
        return None, (needed if least >= 1 else None)
    if op is c.ASSERT:  # a lookahead or a lookbehind: it matches in the text as well
        return {""}, _sequence(av[1].data)[1]  # type: ignore[index]
    if op in (c.AT, c.ASSERT_NOT):
        return {""}, None
    return None, None


class Prefiltered:
    """`search` as `regex.search` answers, the regex asked only of a text that holds one of
    the strings every match of it holds (`required_strings`): most texts hold none of a long
    row's and are let go after one pass of a small trie of them. The strings are read off
    after SEARCHES_FIRST searches (parsing the row again costs a tenth of a second for the
    table: a process that scans a few texts never pays it, one reading a corpus gains more),
    or at once for a text of LONG_TEXT characters or more: the table's long rows searched over
    160,000 characters took 1.4-1.6 s of CPU plain, 0.8-0.9 s through their strings (a long
    AGENTS.md at a start, a long memory file)."""

    SEARCHES_FIRST = 64
    LONG_TEXT = 32_768

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.pattern = regex.pattern
        self._searches = 0
        self._first: re.Pattern[str] | None | bool = False  # False: not read off yet

    def search(self, text: str) -> re.Match[str] | None:
        first = self._first
        if first is False:
            self._searches += 1
            if self._searches >= self.SEARCHES_FIRST or len(text) >= self.LONG_TEXT:
                first = self.first_pass()
        if first and not first.search(text):  # type: ignore[union-attr]
            return None
        return self.regex.search(text)

    def first_pass(self) -> re.Pattern[str] | None:
        """The trie of the row's required strings (None: it has none), read off now if not yet."""
        if self._first is False:
            strings = required_strings(self.pattern, self.regex.flags)
            self._first = None if strings is None else _strings_regex(strings, self.regex.flags)
        return self._first  # type: ignore[return-value]


def _strings_regex(strings: frozenset[str], flags: int) -> re.Pattern[str]:
    root: dict = {}
    for string in strings:
        node = root
        for char in string:
            node = node.setdefault(char, {})
        node[""] = {}
    return re.compile(_trie(root), flags)


def _trie(node: dict) -> str:
    """The strings of a trie as one regex: a try per character, not per string."""
    if "" in node:  # a string ends here: finding it is enough
        return ""
    branches = [re.escape(char) + _trie(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


# Shorter rows are about as fast as a trie of their strings (measured on the corpora's texts).
PREFILTERED_FROM = 2000


def prefiltered(pattern: str, flags: int) -> re.Pattern[str] | Prefiltered:
    """`pattern` compiled; a long one searched through its required strings (`Prefiltered`)."""
    regex = re.compile(pattern, flags)
    return Prefiltered(regex) if len(pattern) >= PREFILTERED_FROM else regex
