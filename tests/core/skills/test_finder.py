"""The skill filter finds what a user means despite typos and abbreviations, best first."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from hermes_tui.core.skills.finder import rank


@dataclass
class Entry:
    name: str
    category: str | None
    description: str


LIBRARY = [
    Entry("systematic-debugging", "software-development", "Find the root cause before fixing."),
    Entry("writing-a-bug-report", "software-development", "A report a maintainer can act on."),
    Entry("deploy-with-rollback", "devops", "Ship with a way back."),
    Entry("pytest-triage", "software-development", "Sort failing tests by cause."),
    Entry("memory-hygiene", "agent", "Keep MEMORY.md small and true."),
]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("dbug", "systematic-debugging"),  # a missing letter
        ("debuging", "systematic-debugging"),  # a typo
        ("sysdebug", "systematic-debugging"),  # an abbreviation: the letters in order
        ("rollbak", "deploy-with-rollback"),
        ("pytst", "pytest-triage"),
        ("root cause", "systematic-debugging"),  # words of the description
        ("devops", "deploy-with-rollback"),  # the category
    ],
)
def test_typos_and_abbreviations_find_the_skill_first(query: str, best: str) -> None:
    assert rank(query, LIBRARY)[0].name == best


def test_nonsense_finds_nothing_and_an_empty_query_finds_all() -> None:
    assert rank("xyzzy", LIBRARY) == []
    assert rank("  ", LIBRARY) == LIBRARY


def test_closer_matches_come_first() -> None:
    names = [e.name for e in rank("bug", LIBRARY)]
    assert set(names[:2]) == {"systematic-debugging", "writing-a-bug-report"}
    assert "memory-hygiene" not in names
