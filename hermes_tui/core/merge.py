"""Three-way merge of lines: take back one change while keeping what was written since.

`merge3(base, ours, theirs)` applies both base→ours and base→theirs to `base`, by lines. Each
side's changes are the regions difflib finds against `base`; when a region of one side overlaps
or touches a region of the other (and they are not the same change), the merge is a conflict
and nothing is guessed: the caller gets `None` and asks the user. Undoing a review's change is
`merge3(base=after, ours=current, theirs=before)`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class _Change:
    start: int  # in base lines
    end: int
    lines: tuple[str, ...]


def _changes(base: list[str], other: list[str]) -> list[_Change]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Change(i1, i2, tuple(other[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _clash(a: _Change, b: _Change) -> bool:
    """Overlapping or touching regions: where each side's edit ends, the other's begins."""
    return a != b and a.start <= b.end and b.start <= a.end


def merge3(base: str, ours: str, theirs: str) -> str | None:
    """`base` with the changes of both `ours` and `theirs`; None when they touch the same lines."""
    if ours == base:
        return theirs
    if theirs == base or ours == theirs:
        return ours
    split = str.splitlines
    base_lines = split(base, keepends=True)
    mine = _changes(base_lines, split(ours, keepends=True))
    other = _changes(base_lines, split(theirs, keepends=True))
    if any(_clash(a, b) for a in mine for b in other):
        return None
    merged: list[str] = []
    at = 0
    for change in sorted(set(mine) | set(other), key=lambda c: (c.start, c.end)):
        merged += base_lines[at : change.start]
        merged += change.lines
        at = change.end
    merged += base_lines[at:]
    return "".join(merged)


def lost_lines(current: str, restored: str, limit: int = 8) -> list[str]:
    """The lines of `current` that `restored` would no longer have (at most `limit`)."""
    old = current.splitlines()
    matcher = difflib.SequenceMatcher(None, old, restored.splitlines(), autojunk=False)
    lost = [
        line
        for tag, i1, i2, _j1, _j2 in matcher.get_opcodes()
        if tag in ("replace", "delete")
        for line in old[i1:i2]
    ]
    return lost[:limit] + ([f"… and {len(lost) - limit} more"] if len(lost) > limit else [])
