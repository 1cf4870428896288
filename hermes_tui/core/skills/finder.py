"""Find skills the way a fuzzy finder does: typos, missing letters and abbreviations still hit.

A query is scored against each skill's name, category and description with rapidfuzz, and the
best score wins:
- the name counts most: `partial_ratio` (a typo or a missing letter, `debuging`, `dbug`) and a
  subsequence bonus (the letters in order, `sysdebug` → `systematic-debugging`, as fzf matches);
- the description and category count less: `partial_token_set_ratio` (one word of a sentence
  can match one word of the query) averaged with `token_set_ratio` (more words matching wins);
Scores under CUTOFF are dropped; the rest come best first (then by name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from rapidfuzz import fuzz, utils

CUTOFF = 60.0
DESCRIPTION_WEIGHT = 0.8
CATEGORY_WEIGHT = 0.7


class Findable(Protocol):
    name: str
    category: str | None
    description: str


def _compact(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _subsequence_score(query: str, name: str) -> float:
    """90 for the query's letters appearing in order in the name, less the more spread out."""
    wanted, text = _compact(query), _compact(name)
    if not wanted:
        return 0.0
    position, first, last = 0, -1, -1
    for char in wanted:
        found = text.find(char, position)
        if found < 0:
            return 0.0
        first = found if first < 0 else first
        last, position = found, found + 1
    spread = (last - first + 1) / len(wanted)  # 1.0 when the letters are contiguous
    return max(0.0, 90.0 - 5.0 * (spread - 1.0))


def score(query: str, name: str, category: str, description: str) -> float:
    query = query.strip()
    if not query:
        return 100.0
    clean = utils.default_process
    by_name = max(
        fuzz.partial_ratio(query, name, processor=clean),
        fuzz.WRatio(query, name, processor=clean),
        _subsequence_score(query, name),
    )
    # partial: one word may match one word; token_set: more of the query's words matching wins.
    by_description = (
        DESCRIPTION_WEIGHT
        * (
            fuzz.partial_token_set_ratio(query, description, processor=clean)
            + fuzz.token_set_ratio(query, description, processor=clean)
        )
        / 2
    )
    by_category = CATEGORY_WEIGHT * fuzz.partial_ratio(query, category, processor=clean)
    return max(by_name, by_description, by_category)


T = TypeVar("T", bound=Findable)


def rank(query: str, skills: Sequence[T]) -> list[T]:
    """The skills that match `query`, best first; all of them, unchanged, for an empty query."""
    if not query.strip():
        return list(skills)
    scored = [
        (score(query, s.name, s.category or "", s.description or ""), s.name, s) for s in skills
    ]
    return [s for value, _name, s in sorted(scored, key=lambda t: (-t[0], t[1])) if value >= CUTOFF]
