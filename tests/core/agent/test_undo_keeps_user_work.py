"""Undoing a review's change never silently drops what the user wrote since (DESIGN.md 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import skill_text

from hermes_tui.core.agent.undo import UndoError, UndoNeedsConfirmation, undo_change
from hermes_tui.core.events import ReviewChange
from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.skills.library import SkillLibrary

STEPS = "# Steps\n\n1. Build it.\n2. Run the tests.\n3. Ship it.\n"
PATCHED = STEPS.replace("2. Run the tests.", "2. Run the tests with -x.")


def reviewed(home: Path) -> tuple[MemoryStore, SkillLibrary, ReviewChange]:
    """A skill the review patched (step 2), as a review record's change says it."""
    memory, skills = MemoryStore(home / "memories"), SkillLibrary(home / "skills")
    before, after = skill_text("ship", body=STEPS), skill_text("ship", body=PATCHED)
    skills.create("ship", before, origin="agent")
    skills.edit("ship", after, origin="review")
    return memory, skills, ReviewChange("skill", "ship", "patch", before, after)


def skill_md(skills: SkillLibrary) -> str:
    return skills.require("ship").skill_md.read_text(encoding="utf-8")


def history_texts(home: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in (home / "skills" / ".history").rglob("*.md")]


def test_undo_takes_back_the_review_patch_and_keeps_a_step_added_since(home: Path) -> None:
    memory, skills, change = reviewed(home)
    skills.edit("ship", skill_md(skills) + "4. Tell the team.\n", origin="user")
    message = undo_change(change, memory, skills)
    assert skill_md(skills) == skill_text("ship", body=STEPS + "4. Tell the team.\n")
    assert "your edits since are kept" in message


def test_undo_asks_when_the_user_edited_the_lines_the_review_changed(home: Path) -> None:
    memory, skills, change = reviewed(home)
    mine = skill_md(skills).replace("with -x.", "with -x and -q (mine).")
    skills.edit("ship", mine, origin="user")
    with pytest.raises(UndoNeedsConfirmation) as asked:
        undo_change(change, memory, skills)
    assert "2. Run the tests with -x and -q (mine)." in str(asked.value), "says what is lost"
    assert skill_md(skills) == mine, "nothing changes before the user says yes"
    undo_change(change, memory, skills, force=True)
    assert skill_md(skills) == change.before
    assert mine in history_texts(home), "the text replaced is kept in the history"


def test_undo_of_a_change_already_taken_back_says_so(home: Path) -> None:
    memory, skills, change = reviewed(home)
    skills.edit("ship", change.before, origin="user")
    with pytest.raises(UndoError, match="already as before"):
        undo_change(change, memory, skills)


def test_undo_of_a_support_file_keeps_later_edits_or_asks(home: Path) -> None:
    memory, skills, _ = reviewed(home)
    skills.write_file("ship", "references/a.md", "one\ntwo\nthree\n", origin="agent")
    skills.write_file("ship", "references/a.md", "one\nTWO\nthree\n", origin="review")
    path = skills.require("ship").directory / "references" / "a.md"
    path.write_text("one\nTWO\nthree\nfour (mine)\n", encoding="utf-8")
    change = ReviewChange(
        "skill",
        "ship",
        "write_file",
        "one\ntwo\nthree\n",
        "one\nTWO\nthree\n",
        file="references/a.md",
    )
    undo_change(change, memory, skills)
    assert path.read_text(encoding="utf-8") == "one\ntwo\nthree\nfour (mine)\n"
    added = ReviewChange("skill", "ship", "write_file", None, "x\n", file="references/new.md")
    skills.write_file("ship", "references/new.md", "x\nmy note\n", origin="user")
    with pytest.raises(UndoNeedsConfirmation, match="my note"):
        undo_change(added, memory, skills)
    assert (path.parent / "new.md").exists()


def test_undo_of_a_memory_entry_the_user_edited_since_keeps_the_edit(home: Path) -> None:
    memory, skills = MemoryStore(home / "memories"), SkillLibrary(home / "skills")
    memory.add("user", "Prefers short answers.", origin="review")
    memory.replace(
        "user", "Prefers short answers.", "Prefers short answers, in French.", origin="user"
    )
    change = ReviewChange("memory", "user", "add", "", "Prefers short answers.")
    with pytest.raises(UndoError, match="nothing to undo"):
        undo_change(change, memory, skills)
    assert memory.entries("user") == ["Prefers short answers, in French."]


def test_bytes_that_are_not_utf8_added_since_are_never_rewritten_unasked(home: Path) -> None:
    memory, skills, change = reviewed(home)
    path = skills.require("ship").skill_md
    mine = path.read_bytes() + b"4. \xff\xfe mine\n"
    path.write_bytes(mine)
    with pytest.raises(UndoNeedsConfirmation, match="not UTF-8"):
        undo_change(change, memory, skills)
    assert path.read_bytes() == mine
    undo_change(change, memory, skills, force=True)
    assert path.read_text(encoding="utf-8") == change.before
    history = (home / "skills" / ".history").rglob("*.md")
    assert mine in [p.read_bytes() for p in history], "the bytes are kept in the history"


def test_undo_never_writes_a_secrets_label_in_place_of_the_secret(home: Path) -> None:
    """A review replaced a hand-written entry holding a secret; its record (like every output)
    has the secret as its label. Undo refuses rather than put the label in the file."""
    from hermes_tui.core.redaction import Redactor

    secret = "Zq9-undo-secret-4417-kept"
    redactor = Redactor({"DB_TOKEN": secret})
    memory = MemoryStore(home / "memories", redact=redactor.text)
    skills = SkillLibrary(home / "skills")
    path = home / "memories" / "MEMORY.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Deploys use {secret} daily.", encoding="utf-8")
    memory.replace("memory", "Deploys use", "Deploys run daily.", origin="review")
    change = ReviewChange(
        "memory", "memory", "replace", redactor.text(f"Deploys use {secret} daily."),
        "Deploys run daily.",
    )  # fmt: skip
    with pytest.raises(UndoError, match="held a secret"):
        undo_change(change, memory, skills)
    assert path.read_text(encoding="utf-8") == "Deploys run daily."
    assert any(secret in r.entry for r in memory.archived("memory")), "kept whole in the archive"
    # An entry that held no secret is undone as before.
    memory.replace("memory", "Deploys run daily.", "Deploys run hourly.", origin="review")
    plain = ReviewChange("memory", "memory", "replace", "Deploys run daily.", "Deploys run hourly.")
    undo_change(plain, memory, skills)
    assert memory.entries("memory") == ["Deploys run daily."]
