"""The app facing what real servers send: reused tool-call ids, errors inside streams, reasoning."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send
from textual.widgets._collapsible import CollapsibleTitle

from hermes_tui.ui.widgets.chat import AssistantMessage, ErrorBlock, ToolRow
from hermes_tui.ui.widgets.reasoning import ReasoningBlock

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_two_turns_whose_tool_calls_carry_the_same_id_are_both_shown(
    home: Path, llm: FakeLLM
) -> None:
    same = ("call_0",)  # servers number calls per reply, so ids repeat across turns
    llm.script(
        Reply(tool_calls=[("terminal", {"command": "echo one"})], tool_call_ids=same),
        Reply(text="First done."),
        Reply(tool_calls=[("terminal", {"command": "echo two"})], tool_call_ids=same),
        Reply(text="Second done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "run one")
        await send(app, pilot, "run two")
        assert app.is_running
        rows = list(app.query(ToolRow))
        assert [r.has_class("-ok") for r in rows] == [True, True]
        assert "echo one" in str(rows[0].title) and "echo two" in str(rows[1].title)
        await pilot.press("f1")  # the Trace, opened after both calls, lists them
        await pilot.pause()
        table = app.query_one("#trace-table")
        assert table.row_count == 2
        results = [str(table.get_row_at(i)[-1]) for i in range(2)]  # the result column
        assert all(result.startswith("✓") for result in results), results
        assert [m.text for m in app.query(AssistantMessage)][-1] == "Second done."


async def test_an_error_frame_mid_stream_is_shown_and_the_partial_text_marked(
    home: Path, llm: FakeLLM
) -> None:
    broken = Reply(text="a partial answer that breaks off", fault="error_frame")
    llm.script(*[broken] * 3)  # the first try and both retries (max_retries: 2 in the test config)
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "hello")
        error = str(app.query(ErrorBlock).last().content)
        assert "upstream said overloaded_error" in error and "send the message again" in error
        partial = app.query_one(AssistantMessage)
        assert partial.text.startswith("a partial") and partial.has_class("-interrupted")
        assert not app.turn_running
    stored = [m.message for m in app.runtime.sessions.messages(app.session.id)]
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].content.endswith("[the reply was cut off by a provider error]")


async def test_reasoning_is_shown_collapsed_and_dimmed_apart_from_the_answer(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(reasoning="The user says hi; [b]greet[/b] back.", text="Hello!"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "hi")
        block = app.query_one(ReasoningBlock)
        assert block.collapsed and block.done and "Thought (6 words)" in str(block.title)
        assert block.text == "The user says hi; [b]greet[/b] back."
        assert block.query_one(CollapsibleTitle).styles.text_style.italic, "set apart, dimmed"
        assert [m.text for m in app.query(AssistantMessage)] == ["Hello!"]
        children = list(app.query_one("#chat").children)
        assert children.index(block) < children.index(app.query_one(AssistantMessage))
        block.collapsed = False
        await pilot.pause()
        assert str(block.body.content) == "The user says hi; [b]greet[/b] back."
