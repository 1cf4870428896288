"""Keyboard flow (issue 26, new item 8): tool rows are reached and opened with keys, and every
dialog opens with its first field focused and showing it."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send
from textual.widgets.collapsible import CollapsibleTitle

from hermes_tui.ui.widgets.chat import AssistantMessage, ToolRow, UserMessage
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (120, 36)


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
