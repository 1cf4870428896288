"""The new-skill editor validates the name its save will use: a placeholder is no name."""

from __future__ import annotations

from pathlib import Path

from helpers import make_app

from hermes_tui.ui.screens.editor import DiffPreview, SkillEditor
from hermes_tui.ui.widgets.skills_pane import SkillsPane

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def open_new_skill(app, pilot) -> SkillEditor:
    await pilot.press("escape")
    app.query_one(SkillsPane).post_message(SkillsPane.EditSkill(None))
    await pilot.pause()
    assert isinstance(app.screen, SkillEditor)
    return app.screen


async def test_with_the_name_left_at_its_placeholder_it_is_not_valid_and_nothing_is_saved(
    home: Path,
) -> None:
    app = make_app(home)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_new_skill(app, pilot)
        original = app.notify
        app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
        shown = str(editor.query_one("#problem-text").content)
        assert "✓ valid" not in shown and "no name yet" in shown
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, DiffPreview), "no 'Save new skill?' for a nameless skill"
        assert notes[-1] == "Not saved: the new skill has no name yet: type it in the name box"
        assert not list((home / "skills").rglob("SKILL.md"))


async def test_a_name_written_in_the_frontmatter_is_the_name_saved(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_new_skill(app, pilot)
        area = editor.query_one("#skill-text")
        area.text = area.text.replace("name: my-skill", "name: deploy-notes")
        await pilot.pause()
        assert "✓ valid" in str(editor.query_one("#problem-text").content)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, DiffPreview) and "deploy-notes" in app.screen.title_text
        await pilot.press("enter")
        await pilot.pause()
        assert (home / "skills" / "general" / "deploy-notes" / "SKILL.md").exists()
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_new_skill(app, pilot)
        area = editor.query_one("#skill-text")
        area.text = area.text.replace("name: my-skill", "name: Deploy_Notes")
        await pilot.pause()
        shown = str(editor.query_one("#problem-text").content)
        assert "Deploy_Notes" in shown and "✓ valid" not in shown, (
            "the frontmatter's name is checked"
        )


async def test_a_name_the_save_would_refuse_is_shown_before_the_save(home: Path) -> None:
    from helpers import write_skill

    write_skill(home / "skills", "taken", "ops")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_new_skill(app, pilot)
        editor.query_one("#new-name").focus()
        await pilot.press(*"taken")
        await pilot.pause()
        assert "already exists" in str(editor.query_one("#problem-text").content)
        editor.query_one("#new-name").value = "fresh"
        editor.query_one("#new-category").value = "Bad Category"
        await pilot.pause()
        shown = str(editor.query_one("#problem-text").content)
        assert "category 'Bad Category' must be" in shown and "✓ valid" not in shown
