"""Loop guardrails, and undoing a review's changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import skill_text

from hermes_tui.core.agent.guardrails import LoopGuard
from hermes_tui.core.agent.undo import UndoError, UndoNeedsConfirmation, undo_change
from hermes_tui.core.events import ReviewChange
from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.skills.library import SkillLibrary


def test_guard_warns_on_repeats() -> None:
    guard = LoopGuard()
    failed = {"success": False, "error": "boom"}
    assert guard.check("terminal", {"command": "x"}, failed, False) is None
    assert "failed 2 times" in guard.check("terminal", {"command": "x"}, failed, False)
    assert "terminal has failed 3 times" in guard.check("terminal", {"command": "y"}, failed, False)
    same = {"success": True, "content": "a"}
    assert guard.check("read_file", {"path": "a"}, same, True) is None
    assert "exactly the same result" in guard.check("read_file", {"path": "a"}, same, True)
    assert guard.check("terminal", {"command": "ls"}, same, False) is None, "only read-only tools"


def test_undo_a_memory_change_and_a_created_skill(home: Path) -> None:
    memory = MemoryStore(home / "memories")
    skills = SkillLibrary(home / "skills")
    memory.add("user", "Old fact.", origin="user")
    memory.replace("user", "Old fact.", "New fact.", origin="review")
    change = ReviewChange("memory", "user", "replace", "Old fact.", "New fact.")
    assert "undid 2" in undo_change(change, memory, skills)
    assert memory.entries("user") == ["Old fact."]
    skills.create("made", skill_text("made"), origin="review")
    assert "archived made" in undo_change(
        ReviewChange("skill", "made", "create", None, skill_text("made")), memory, skills
    )
    assert skills.get("made") is None
    with pytest.raises(UndoError, match="nothing to undo"):
        undo_change(ReviewChange("memory", "user", "add", "", "Never saved."), memory, skills)


def test_undo_a_support_file_written_by_a_review(home: Path) -> None:
    memory = MemoryStore(home / "memories")
    skills = SkillLibrary(home / "skills")
    skills.create("s", skill_text("s"), origin="review")
    skills.write_file("s", "references/a.md", "v1\n", origin="review")
    skills.write_file("s", "references/a.md", "v2\n", origin="review")
    change = ReviewChange("skill", "s", "write_file", "v1\n", "v2\n", file="references/a.md")
    undo_change(change, memory, skills)
    assert (skills.require("s").directory / "references" / "a.md").read_text() == "v1\n"
    skills.write_file("s", "references/new.md", "x\n", origin="review")
    undo_change(
        ReviewChange("skill", "s", "write_file", None, "x\n", file="references/new.md"),
        memory,
        skills,
    )
    assert not (skills.require("s").directory / "references" / "new.md").exists()


def test_undoing_a_create_asks_first_when_the_user_pinned_or_edited_the_skill(home: Path) -> None:
    memory = MemoryStore(home / "memories")
    skills = SkillLibrary(home / "skills")
    created = skill_text("made")
    skills.create("made", created, origin="review")
    skills.edit("made", created.replace("Do it.", "Do it my way."), origin="user")
    skills.set_pinned("made", True)
    change = ReviewChange("skill", "made", "create", None, created)
    with pytest.raises(UndoNeedsConfirmation, match="you pinned it and it changed since"):
        undo_change(change, memory, skills)
    assert skills.get("made") is not None, "nothing happens before the user says yes"
    undo_change(change, memory, skills, force=True)
    assert skills.get("made") is None and "made" in skills.archived_skills()
