"""ATTACK4 A4-4: a skill holding a known secret (a hand edit, an install) shows it redacted in the
skills pane (description, frontmatter, body), in the SKILL.md editor, its diff preview and the
history; a save that still holds the label is refused (it would write the label over the
secret), one without it drops the secret. Judged by what the widgets hold and the file on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_app, write_skill
from textual.widgets import Markdown

from hermes_tui.core.skills.library import SkillError
from hermes_tui.ui.screens.editor import DiffPreview, SkillEditor
from hermes_tui.ui.widgets.skills_pane import SkillsPane

KEY = "Vr7kumquatSecret55aa19xq"
LABEL = "[REDACTED DB_TOKEN]"
SKILL = f"""---
name: dbhelp
description: helps with db token {KEY}
metadata:
  hermes:
    token: {KEY.upper()}
---

# DB help

Use token {KEY} when asked; it is {KEY.upper()} in the old docs.
"""


@pytest.fixture
def skill_md(home: Path) -> Path:
    (home / ".env").write_text(f"DB_TOKEN={KEY}\n", encoding="utf-8")
    return write_skill(home / "skills", "dbhelp", "general", SKILL) / "SKILL.md"


def leaks(text: str) -> bool:
    return KEY in text or KEY.upper() in text or KEY.lower() in text


async def test_the_skills_pane_and_editor_show_a_skills_secret_as_its_label(
    home: Path, skill_md: Path
) -> None:
    app = make_app(home)
    notes: list[str] = []
    async with app.run_test(size=(130, 40)) as pilot:
        await pilot.press("escape")
        original = app.notify
        app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
        app.action_pane("skills")
        await pilot.pause()
        pane = app.query_one(SkillsPane)
        pane.show("dbhelp")
        await pilot.pause()
        meta = str(pane.query_one("#skill-meta").content)
        body = pane.query_one("#skill-body", Markdown).source
        assert "description: helps with db token " + LABEL in meta, meta
        assert "metadata.hermes.token: " + LABEL in meta, meta
        assert LABEL in body and not leaks(meta) and not leaks(body), (meta, body)

        pane.post_message(SkillsPane.EditSkill("dbhelp"))
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, SkillEditor)
        area = editor.query_one("#skill-text")
        assert LABEL in area.text and not leaks(area.text)
        assert "saving would write that label over it" in str(
            editor.query_one("#problem-text").content
        )
        # A save that keeps the label is refused: the file keeps its secret, no label in it.
        area.text = area.text.replace("# DB help", "# DB help, edited")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SkillEditor), "no diff preview: the save was refused"
        assert "Not saved" in notes[-1] and "label over it" in notes[-1]
        assert skill_md.read_text(encoding="utf-8") == SKILL
        with pytest.raises(SkillError, match="holds a secret"):
            app.runtime.skills.edit_shown("dbhelp", SKILL, area.text)
        assert skill_md.read_text(encoding="utf-8") == SKILL

        # Without the label the save goes through, past a preview that shows no secret either.
        area.text = area.text.replace(LABEL, "(set in the environment)")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        preview = app.screen
        assert isinstance(preview, DiffPreview)
        assert not leaks(preview.before) and not leaks(preview.after)
        await pilot.press("enter")
        await pilot.pause()
        saved = skill_md.read_text(encoding="utf-8")
        assert not leaks(saved) and LABEL not in saved and "# DB help, edited" in saved
        assert "(set in the environment)" in saved


def test_edit_shown_refuses_only_a_label_that_stands_for_a_secret(
    home: Path, skill_md: Path
) -> None:
    from helpers import open_runtime

    runtime = open_runtime(home, "http://127.0.0.1:9")
    try:
        skills = runtime.skills
        shown = skills.shown(SKILL)
        assert shown.count(LABEL) == 4 and not leaks(shown)
        with pytest.raises(SkillError, match=r"holds a secret \(DB_TOKEN\)"):
            skills.edit_shown("dbhelp", SKILL, shown.replace("DB help", "DB help 2"))
        assert skill_md.read_text(encoding="utf-8") == SKILL
        # A label the file holds as text is the user's own: kept, saved.
        own = SKILL.replace(f"description: helps with db token {KEY}", f"description: see {LABEL}")
        skill_md.write_text(own, encoding="utf-8")
        edited = (
            skills.shown(own)
            .replace(KEY, "")
            .replace(
                f"Use token {LABEL} when asked; it is {LABEL} in the old docs.", "Ask the user."
            )
            .replace(f"token: {LABEL}", "token: none")
        )
        skills.edit_shown("dbhelp", own, edited)
        assert skill_md.read_text(encoding="utf-8") == edited and LABEL in edited
    finally:
        runtime.close()
