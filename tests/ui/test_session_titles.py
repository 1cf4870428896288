"""Messages with pastes: the session is named after the typed words, not the paste or an attached
file; typing after a collapsed paste goes after it."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app
from textual import events

from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws
REPORT = "\n".join(f"step {i}: gather the numbers, then write a report." for i in range(30))


async def test_a_message_with_a_paste_is_named_after_the_typed_words(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Done."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.insert("summarise this ")
        app.post_message(events.Paste(REPORT))
        await pilot.pause()
        assert box.text == "summarise this [Pasted 30 lines #1]"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert llm.requests[0].last_user_text == f"summarise this {REPORT}"
        assert app.runtime.sessions.get(app.session.id).title == "summarise this"


async def test_a_message_that_is_only_a_paste_is_named_after_its_first_line(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Done."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(ChatInput).focus()
        app.post_message(events.Paste(REPORT))
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = app.runtime.sessions.get(app.session.id).title
        assert title == "step 0: gather the numbers, then write a report."


async def test_typing_after_a_collapsed_paste_goes_after_it(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        box = app.query_one(ChatInput)
        box.text = "a task written for you"
        box.select_all()  # as a pre-filled task is
        app.post_message(events.Paste(REPORT))
        await pilot.pause()
        await pilot.press(*" why?")
        assert box.text == "[Pasted 30 lines #1] why?"
        assert box.expanded() == f"{REPORT} why?"
