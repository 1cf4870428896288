"""Copying a whole message: alt+↑ (or a click) focuses one, ↑/↓ move, c copies, esc goes back."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send

from hermes_tui.ui.widgets.chat import AssistantMessage, UserMessage
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws
REPLY = "Use **pytest -x**:\n\n```sh\npytest -x tests/\n```\n\nThen read the first failure."


async def test_a_focused_message_copies_its_whole_text(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text=REPLY))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "how do I stop at the first failure?")
        await pilot.press("alt+up")
        assert isinstance(app.focused, AssistantMessage)
        await pilot.press("c")
        assert app.clipboard == REPLY  # the Markdown source, every line of it
        await pilot.press("up")
        assert isinstance(app.focused, UserMessage)
        await pilot.press("c")
        assert app.clipboard == "how do I stop at the first failure?"
        await pilot.press("down", "down")  # past the newest message: back to the box
        await pilot.pause()
        assert isinstance(app.focused, ChatInput)
        assert app.query_one(ChatInput).text == ""


async def test_typing_on_a_focused_message_types_into_the_box(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Hello."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "hi")
        await pilot.click(AssistantMessage)
        assert isinstance(app.focused, AssistantMessage)
        await pilot.press("o", "k")
        assert isinstance(app.focused, ChatInput)
        assert app.query_one(ChatInput).text == "ok"
        await pilot.press("alt+up", "escape")
        assert isinstance(app.focused, ChatInput)


async def test_a_copied_reply_carries_no_escape_sequences(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="done \x1b]52;c;aGk=\x07 \x1b[2J"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "go")
        await pilot.press("alt+up", "c")
        assert "\x1b" not in app.clipboard and "\x07" not in app.clipboard
        assert app.clipboard == "done ␛]52;c;aGk=␇ ␛[2J"


async def test_alt_up_with_no_messages_says_so(home: Path) -> None:
    app = make_app(home, provider="demo")
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.text = ""
        box.focus()
        await pilot.press("alt+up")
        assert isinstance(app.focused, ChatInput)
