"""Keyboard flow (issue 26, new item 8): tool rows are reached and opened with keys, and every
dialog opens with its first field focused and showing it."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send
from textual.widgets.collapsible import CollapsibleTitle

from hermes_tui.ui.widgets.chat import AssistantMessage, ToolRow, UserMessage
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_tool_rows_are_reached_expanded_and_copied_from_the_keyboard(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(
        Reply(text="Checking.", tool_calls=[("terminal", {"command": "echo from-the-tool"})]),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "run it")
        row = app.query_one(ToolRow)
        await pilot.press("alt+up")
        assert isinstance(app.focused, AssistantMessage) and app.focused.text == "Done."
        await pilot.press("up")
        assert isinstance(app.focused, CollapsibleTitle) and row in app.focused.ancestors
        assert row.collapsed
        await pilot.press("enter")
        await pilot.pause()
        assert not row.collapsed, "enter expands a focused tool row"
        await pilot.press("space")
        await pilot.pause()
        assert row.collapsed, "space collapses it again"
        await pilot.press("c")
        assert "from-the-tool" in app.clipboard
        await pilot.press("up")
        assert isinstance(app.focused, AssistantMessage) and app.focused.text == "Checking."
        await pilot.press("up")
        assert isinstance(app.focused, UserMessage)
        await pilot.press("down", "down")
        assert isinstance(app.focused, CollapsibleTitle)
        await pilot.press("escape")
        assert isinstance(app.focused, ChatInput)
        await pilot.press("alt+up", "up", "o", "k")  # a letter on a row goes to the box
        await pilot.pause()
        assert isinstance(app.focused, ChatInput) and app.query_one(ChatInput).text == "ok"


def _look(widget) -> tuple[str, ...]:
    styles = widget.styles
    return tuple(
        str(value)
        for value in (
            styles.border,
            styles.background,
            styles.color,
            styles.text_style,
            styles.outline,
            styles.tint,
            styles.background_tint,
        )
    )


async def test_every_dialog_opens_with_its_first_field_focused_and_showing_it(home: Path) -> None:
    from helpers import skill_text

    from hermes_tui.ui.screens.editor import DiffPreview, HistoryScreen, SkillEditor
    from hermes_tui.ui.screens.insights import InsightsScreen
    from hermes_tui.ui.screens.install import InstallScreen
    from hermes_tui.ui.screens.mcp import McpScreen
    from hermes_tui.ui.screens.modals import (
        ApprovalScreen,
        ConfirmScreen,
        HelpScreen,
        PendingScreen,
        SessionsScreen,
    )
    from hermes_tui.ui.screens.welcome import WelcomeScreen
    from hermes_tui.ui.widgets.memory_pane import EntryEditor

    app = make_app(home)
    library = app.runtime.skills
    library.create("ship", skill_text("ship"), category="ops", origin="user")
    library.edit("ship", skill_text("ship", body="# Steps\n"), origin="user")
    dialogs = {
        "deny": lambda: ApprovalScreen("rm -rf /srv/x", "deletes /srv/x", ("rm on /srv/x",)),
        "session-query": lambda: SessionsScreen(app.runtime),
        "pending-list": lambda: PendingScreen(app.runtime),
        "no": lambda: ConfirmScreen("Delete it?"),
        "key": lambda: WelcomeScreen(app.runtime.config, ""),
        "new-name": lambda: SkillEditor(library, None),
        "skill-text": lambda: SkillEditor(library, "ship"),
        "versions": lambda: HistoryScreen(library, "ship"),
        "install-source": lambda: InstallScreen(library, app.runtime.skill_installer),
        "entry-text": lambda: EntryEditor("New MEMORY.md entry"),
        # Dialogs of text alone: their scrolling area has the focus (its keys scroll it).
        "help": HelpScreen,
        "mcp": lambda: McpScreen(app.runtime),
        "insights": lambda: InsightsScreen(app.runtime),
        "diff": lambda: DiffPreview("SKILL.md", "a\n", "b\n", False),
    }
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        for expected, make in dialogs.items():
            app.push_screen(make())
            await pilot.pause()
            await pilot.pause()
            focused = app.focused
            assert focused is not None and focused.screen is app.screen, expected
            if focused.id is not None or expected in ("help", "mcp", "insights", "diff"):
                assert focused.id in (expected, None), (expected, focused)
            shown = _look(focused)
            focused.blur()
            await pilot.pause()
            assert _look(focused) != shown, f"{expected}: the focus does not show"
            app.pop_screen()
            await pilot.pause()
