"""Three-way line merge: both sides' changes kept, a clash never guessed."""

from __future__ import annotations

from hermes_tui.core.merge import lost_lines, merge3

BASE = "a\nb\nc\nd\ne\n"


def test_changes_to_different_lines_are_both_kept() -> None:
    ours = "a\nB\nc\nd\ne\nf\n"  # b changed, f added at the end
    theirs = "a\nb\nc\nD\ne\n"
    assert merge3(BASE, ours, theirs) == "a\nB\nc\nD\ne\nf\n"


def test_one_side_unchanged_gives_the_other() -> None:
    assert merge3(BASE, BASE, "x\n") == "x\n"
    assert merge3(BASE, "x\n", BASE) == "x\n"
    assert merge3(BASE, "x\n", "x\n") == "x\n"


def test_changes_to_the_same_or_touching_lines_are_a_conflict() -> None:
    assert merge3(BASE, "a\nB\nc\nd\ne\n", "a\nb2\nc\nd\ne\n") is None
    assert merge3(BASE, "a\nb\nnew\nc\nd\ne\n", "a\nB\nc\nd\ne\n") is None, "touching"


def test_the_same_change_on_both_sides_is_taken_once() -> None:
    assert merge3(BASE, "a\nB\nc\nd\nE\n", "a\nB\nc\nd\ne\n") == "a\nB\nc\nd\nE\n"


def test_lost_lines_names_what_would_go() -> None:
    assert lost_lines("a\nmine\nb\n", "a\nb\n") == ["mine"]
    assert lost_lines("\n".join(map(str, range(20))), "", limit=3) == [
        "0",
        "1",
        "2",
        "… and 17 more",
    ]
