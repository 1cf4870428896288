"""SVG snapshots of the main screens (pytest-textual-snapshot); volatile text is normalised first."""

from __future__ import annotations

import re
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, skill_text, steady_mode, wait_until

from hermes_tui.ui.screens.editor import DiffPreview, DiffView
from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.skills_pane import SkillsPane

SIZE = (120, 36)


def _steady(app) -> None:
    """Replace what changes from run to run (timings, session ids) with fixed text."""
    app.title = "hermes-tui"
    app.clear_notifications()
    steady_mode(app)
    for row in app.query(ToolRow):
        row.title = re.sub(r"\d+\.\d+s", "0.01s", str(row.title))


async def _settled(app, pilot) -> None:
    """Until the screen draws the same twice in a row, 0.1 s apart (bounded)."""
    shot = app.export_screenshot()
    for _ in range(100):
        await pilot.pause(0.1)
        shot, previous = app.export_screenshot(), shot
        if shot == previous:
            return
    raise AssertionError("the screen never settled")


def test_main_screen_mid_conversation(snap_compare, home: Path, llm: FakeLLM) -> None:
    llm.script(
        Reply(
            text="I'll check the tests first.",
            tool_calls=[("terminal", {"command": "echo 3 passed"})],
        ),
        Reply(text="All **3 tests pass**. Nothing to fix."),
    )
    app = make_app(home, llm.openai_url)
    app.runtime.memory.add("user", "Prefers short answers.", origin="user")

    async def run_before(pilot) -> None:
        app.query_one("#chat-input").text = "do the tests pass?"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        _steady(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_skills_browser(snap_compare, home: Path) -> None:
    app = make_app(home)
    library = app.runtime.skills
    library.create(
        "flask-k8s-deploy",
        skill_text("flask-k8s-deploy", "Deploy a Flask app to Kubernetes with helm."),
        category="devops",
        origin="review",
    )
    library.create(
        "release-notes",
        skill_text("release-notes", "Draft release notes from merged PRs."),
        category="writing",
        origin="user",
    )
    library.set_pinned("release-notes", True)

    async def run_before(pilot) -> None:
        await pilot.press("escape")
        app.action_pane("skills")
        app.action_resize_panel(40)
        await pilot.pause()
        tree = app.query_one(SkillsPane).query_one("#skills-tree")
        (node,) = [
            leaf
            for category in tree.root.children
            for leaf in category.children
            if leaf.data == ("skill", "flask-k8s-deploy")
        ]
        tree.move_cursor(node)  # the pane has focus on its tree (f3): the cursor picks
        await pilot.pause()
        _steady(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_editor_with_diff_preview(snap_compare, home: Path) -> None:
    app = make_app(home)
    app.runtime.skills.create("notes", skill_text("notes"), origin="user")

    async def run_before(pilot) -> None:
        await pilot.press("escape")
        app.query_one(SkillsPane).post_message(SkillsPane.EditSkill("notes"))
        await wait_until(lambda: app.screen.query("#skill-text"))
        area = app.screen.query_one("#skill-text")
        area.text = area.text.replace("1. Do it.", "1. Do it carefully.\n2. Check the result.")
        await wait_until(lambda: _editor_drawn(app), 30, step=0.1)  # before the preview covers it
        await pilot.press("ctrl+s")
        # The preview is pushed, then composed: wait for its diff (a loaded machine is slow).
        await wait_until(lambda: isinstance(app.screen, DiffPreview) and app.screen.query(DiffView))

        def editor_beneath() -> bool:
            """The editor beneath the preview shows what it had drawn when the preview came,
            which depended on the machine's pace (on a quiet one, its last rows were not
            drawn yet: the main screen's input showed through, no footer). Until it shows
            the whole editor, it is drawn again."""
            if _editor_drawn(app):
                return True
            app.screen_stack[-2].refresh(layout=True)
            return False

        await wait_until(editor_beneath, 30, step=0.2)
        _steady(app)
        await _settled(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_welcome_screen(snap_compare, home: Path) -> None:
    app = make_app(home)

    async def run_before(pilot) -> None:
        await pilot.pause()
        _steady(app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _editor_drawn(app) -> bool:
    """The skill editor drawn down to its last rows: the text area and the problems panel,
    then its footer."""
    rows = _rows(app)
    return len(rows) > 2 and rows[-2].endswith("▎│") and rows[-1].startswith(" ^s Save")


def _rows(app) -> list[str]:
    """The screen as the snapshot draws it, row by row: the text of the full render that
    `export_screenshot` makes (made as it makes it), without the SVG it would make of it
    (most of a screenshot's cost, and the editor test's waits ask it dozens of times)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return ["".join(strip.text for strip in line).rstrip() for line in update.strips]
