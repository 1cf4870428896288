"""Input basics (issue 26, new item 3): ctrl+c clears the box, ctrl+r searches past messages in
place, and `!command` runs through the terminal tool with its output kept as context."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, wait_until

from hermes_tui.core.messages import Message
from hermes_tui.ui.screens.modals import ApprovalScreen
from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_ctrl_c_clears_a_written_message_then_cancels_then_quits(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Waiting.", tool_calls=[("terminal", {"command": "sleep 30"})]))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.text = "half a thought"
        await pilot.press("ctrl+c")
        assert box.text == "" and app.is_running
        await pilot.press("up")
        assert box.text == "half a thought", "a cleared message comes back with up"
        box.text = "wait a while"
        await pilot.press("enter")
        await wait_until(lambda: app.query(ToolRow))
        box.text = "next question"
        await pilot.press("ctrl+c")  # first the box
        assert box.text == "" and app.turn_running and not app.turn.cancel.is_set()
        await pilot.press("ctrl+c")  # then the turn
        assert app.turn.cancel.is_set()
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+c")  # then, twice, the app
    assert app.return_code in (None, 0)


async def test_ctrl_r_searches_past_messages_in_the_box(home: Path) -> None:
    app = make_app(home)
    store = app.runtime.sessions
    old = store.create(provider="openai", model="m", system_prompt="x").id
    for text in ("deploy to staging", "write the release notes", "deploy to production"):
        store.append(old, Message("user", text))
        store.append(old, Message("assistant", "ok"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        box = app.query_one(ChatInput)
        box.text = "draft"
        await pilot.press("ctrl+r", *"deploy")
        assert box.text == "deploy to production" and "search: deploy" in str(box.border_title)
        await pilot.press("ctrl+r")
        assert box.text == "deploy to staging", "ctrl+r again: an older match"
        await pilot.press("escape")
        assert box.text == "draft" and not box.border_title, "esc puts the draft back"
        await pilot.press("ctrl+r", *"notes", "enter")
        assert box.text == "write the release notes" and box.search is None
        assert app.session is None, "enter takes the match into the box; it is not sent"
        await pilot.press("ctrl+r", *"zzz")
        assert "no match: zzz" in str(box.border_title)


async def test_a_bang_command_runs_in_the_terminal_tool_and_goes_with_the_next_message(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="It printed a greeting."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "!echo hello-from-the-shell")
        row = app.query_one(ToolRow)
        assert not row.collapsed and "hello-from-the-shell" in (row.output or "")
        assert str(row.title).startswith("✓ terminal echo hello-from-the-shell")
        assert not llm.requests, "the command alone asks the model nothing"
        await send(app, pilot, "what did it print?")
        sent = [m for m in llm.requests[-1].body["messages"] if m["role"] == "user"][-1]
        assert "$ echo hello-from-the-shell" in sent["content"]
        assert "hello-from-the-shell\n" in sent["content"]
        assert sent["content"].startswith("what did it print?\n\n")
        assert app.title.startswith("hermes-tui — what did it print?"), "typed text names it"


async def test_a_bang_command_asks_as_the_agents_commands_do(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    target = tmp_path / "outside-the-workdir"
    target.mkdir()
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(ChatInput).text = f"!rm -rf {target}"
        await pilot.press("enter")
        # Pushed is not yet composed: wait for the question itself.
        await wait_until(
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query(".command")
        )
        assert str(target) in str(app.screen.query_one(".command").content)
        assert "You want to run:" in str(app.screen.query_one("Static").content)
        await pilot.press("n")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.exists(), "denied: nothing ran"
        assert str(app.query_one(ToolRow).title).startswith("✗ terminal rm -rf")
