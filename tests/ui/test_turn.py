"""The turn controller (ui/turn.py): a turn's cancel event, its session and its approvals."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until

from hermes_tui.ui.screens.modals import ApprovalScreen
from hermes_tui.ui.widgets.chat import AssistantMessage, ErrorBlock

SIZE = (100, 30)
REPLY = "A long answer. " * 400


async def ask_to_read(app, pilot) -> None:
    """Send a message whose turn asks to read a file outside the workspace; wait (bounded)
    until the approval dialog is on screen."""
    app.query_one("#chat-input").text = "read it"
    await pilot.press("enter")
    try:
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen))
    except AssertionError:
        raise AssertionError("no approval dialog came") from None


async def test_esc_pressed_before_the_worker_starts_cancels_the_turn(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text=REPLY, chunk=7))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.turn.start("go")
        app.action_cancel_turn()  # what esc runs, before the turn's thread ran a line
        await asyncio.wait_for(app.workers.wait_for_complete(), timeout=20)
        await pilot.pause()
        assert not app.turn_running
        errors = [str(block.content) for block in app.query(ErrorBlock)]
        assert any("Interrupted" in text for text in errors), errors
        shown = "".join(reply.text for reply in app.query(AssistantMessage))
        assert shown != REPLY.strip()  # the reply was not streamed to its end


async def test_a_cancel_answers_the_waiting_approval_with_deny(home: Path, llm: FakeLLM) -> None:
    llm.script(
        Reply(tool_calls=[("read_file", {"path": "/etc/hostname"})]),
        Reply(text="done"),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await ask_to_read(app, pilot)
        app.turn.stop()  # ctrl+c from elsewhere, while the question is open
        await asyncio.wait_for(app.workers.wait_for_complete(), timeout=20)
        assert not app.turn_running


async def test_a_step_that_lands_after_the_chat_is_gone_is_dropped(
    home: Path, llm: FakeLLM
) -> None:
    """Seen under load while the app closed: a reply's Grew after its chat left the DOM."""
    from hermes_tui.ui.widgets.chat import ChatView

    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        released: list[int] = []
        app.turn.forwarder.drawn = released.append
        await app.query_one(ChatView).remove()
        await pilot.pause()
        app.post_message(AssistantMessage.Grew(AssistantMessage()))  # raised NoMatches before
        await pilot.pause()
        assert released == [0]  # the provider's thread is not left waiting for a screen


async def test_events_that_land_after_the_main_screen_is_gone_are_dropped(home: Path) -> None:
    """Seen under load while a test's app shut down: a batch of events delivered after the
    status bar had left the DOM raised NoMatches out of the app's message loop."""
    from hermes_tui.core import events as ev
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await app.query_one(NudgeBar).remove()
        await pilot.pause()
        app.turn.forwarder(ev.TextDelta("late"))
        await app.turn.deliver()  # raised NoMatches before
        assert app.turn.forwarder.take() == []  # taken, not left for a later batch


async def test_an_app_that_ends_with_a_question_open_frees_the_turn(
    home: Path, llm: FakeLLM
) -> None:
    """Not only quit: an app that ends by any road answers its open question "deny", so the
    turn's thread ends (it waited for ever and hung the test run's shutdown)."""
    import threading
    import time

    llm.script(Reply(tool_calls=[("read_file", {"path": "/etc/hostname"})]), Reply(text="done"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await ask_to_read(app, pilot)
        turn_threads = [t for t in threading.enumerate() if t.name.startswith("asyncio_")]
    deadline = time.monotonic() + 10  # bounded
    while any(t.is_alive() for t in turn_threads) and app.turn._asking:
        assert time.monotonic() < deadline, "the turn still waits for an answer"
        time.sleep(0.05)
    assert not app.turn._asking
