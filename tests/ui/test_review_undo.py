"""Reviews pane `z`: undoing a review's change asks before it would drop the user's later edits."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import make_app, skill_text

from hermes_tui.core.agent.review import ReviewRecord
from hermes_tui.core.events import ReviewChange
from hermes_tui.ui.screens.modals import ConfirmScreen

SIZE = (100, 30)  # small: a frame costs by the cells it draws
STEPS = "# Steps\n\n1. Build it.\n2. Run the tests.\n"
PATCHED = STEPS.replace("Run the tests.", "Run the tests with -x.")


async def test_z_on_a_patch_edited_since_shows_what_would_be_lost_and_waits_for_yes(
    home: Path,
) -> None:
    app = make_app(home)
    skills = app.runtime.skills
    before, after = skill_text("ship", body=STEPS), skill_text("ship", body=PATCHED)
    skills.create("ship", before, origin="agent")
    skills.edit("ship", after, origin="review")
    change = ReviewChange("skill", "ship", "patch", before, after)
    now = time.time()
    record = ReviewRecord(
        "r1", "s1", "skills", now, now, "done", "ship patched", "", changes=[change]
    )
    app.runtime.reviews.save(record)
    mine = after.replace("with -x.", "with -x, then read the log.")
    skills.edit("ship", mine, origin="user")  # the user's edit in the SKILL.md editor
    skill_md = skills.require("ship").skill_md
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        original = app.notify
        app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("z")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), "undo asks before dropping the edit"
        assert "2. Run the tests with -x, then read the log." in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert skill_md.read_text(encoding="utf-8") == mine
        assert app.runtime.reviews.list()[0].undone == []
        await pilot.press("z")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await pilot.pause()
        assert skill_md.read_text(encoding="utf-8") == before
        assert app.runtime.reviews.list()[0].undone == [0]
        assert notes[-1] == "Ship: SKILL.md put back as before the patch"
