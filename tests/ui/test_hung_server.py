"""The app against a server that stops answering: a live "waiting for the server (Ns)" in the
nudge bar, and Esc or Ctrl-C ending the turn at once with what streamed kept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until

from hermes_tui.ui.widgets.chat import AssistantMessage, ErrorBlock
from hermes_tui.ui.widgets.nudge_bar import NudgeBar

SIZE = (100, 30)  # small: a frame costs by the cells it draws
BOUND = 10.0  # seconds; the old behaviour waited 120 s per attempt
REPLY = "The first half of this reply arrives, and then the server hangs for good."


async def _until(pilot, predicate, what: str) -> None:
    try:
        await wait_until(predicate, timeout=BOUND)
    except AssertionError:
        raise AssertionError(f"timed out waiting for {what}") from None


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_cancel_with_the_server_hung_mid_stream_keeps_what_streamed(
    home: Path, llm: FakeLLM, key: str
) -> None:
    llm.script(Reply(text=REPLY, fault="hang_mid_stream"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "tell me"
        await pilot.press("enter")
        bar = app.query_one(NudgeBar)
        # A second of silence after the text the client read: the bar says so, live.
        await _until(pilot, lambda: bar.waiting >= 1, "the waiting indicator")
        assert "waiting for the server (" in str(bar.render())
        pressed = time.monotonic()
        await pilot.press(key)
        await _until(pilot, lambda: not app.turn_running, "the turn to end")
        await _until(pilot, lambda: bool(llm.hang_closed), "the connection to close")
        assert llm.hang_closed[0] - pressed < BOUND  # bench/cancel.py measures it
        assert bar.waiting == 0 and "waiting for the server" not in str(bar.render())
        streamed = app.query(AssistantMessage).last().text
        assert streamed and REPLY.startswith(streamed)
        assert "Interrupted" in str(app.query(ErrorBlock).last().content)
    assert len(llm.requests) == 1  # never retried
    stored = app.runtime.sessions.messages(app.session.id)
    assert stored[-1].message.content == streamed + "\n\n[interrupted by the user]"


async def test_escape_with_the_server_hung_before_the_headers_ends_the_turn(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(fault="hang"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "tell me"
        await pilot.press("enter")
        await _until(pilot, llm.hanging.is_set, "the server to hang")
        await pilot.press("escape")
        await _until(pilot, lambda: not app.turn_running, "the turn to end")
        await _until(pilot, lambda: bool(llm.hang_closed), "the connection to close")
    assert len(llm.requests) == 1
