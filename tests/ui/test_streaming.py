"""Streaming stays cheap: deltas are batched, finished replies are drawn once and left alone.

Mechanism, not timing: the figures a user feels (key-to-screen latency, CPU) are in bench/tui.py.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until
from textual.screen import Screen
from textual.scrollbar import ScrollBar

from hermes_tui.core import events as ev
from hermes_tui.core.redaction import SHAPE_LEADS
from hermes_tui.core.text import neutralise
from hermes_tui.ui import markdown_lines
from hermes_tui.ui.markdown_lines import markdown_style
from hermes_tui.ui.turn import EventForwarder
from hermes_tui.ui.widgets.chat import AssistantMessage, ChatView, ErrorBlock, RenderedMarkdown

SIZE = (100, 30)


def long_reply(sections: int) -> str:
    return "".join(
        f"## Part {i}\n\nThe build reads **its configuration** from `pyproject.toml`, then runs "
        f"the checks in order.\n\n- install with `pip install -e .`\n- run `pytest -x`\n\n"
        f"```python\ndef step_{i}() -> int:\n    return {i}\n```\n\n"
        for i in range(sections)
    )


async def settle(pilot, message: AssistantMessage) -> None:
    """Wait until the reply is drawn once (bounded: a reply that never settles fails the test).

    Polled without `pilot.pause`, which makes every widget of the screen answer a callback and
    forces a frame each time: the app draws its steps on its own timers meanwhile."""
    try:
        await wait_until(lambda: message.settled, timeout=60)
    except AssertionError:
        raise AssertionError(f"the reply never settled ({len(message.text)} characters)") from None


async def reply_drawn(
    pilot, text: str, *, question: str = "hi", interrupted: bool = False
) -> AssistantMessage:
    """`text` streamed at once as the answer to `question`, the turn ended, the reply drawn."""
    app = pilot.app
    chat = app.query_one(ChatView)
    await chat.add_user(question)
    await chat.stream(text)
    await chat.turn_finished(interrupted=interrupted)
    message = app.query(AssistantMessage).last()
    await settle(pilot, message)
    return message


async def half_drawn(pilot, text: str) -> tuple[ChatView, AssistantMessage]:
    """The first half of `text` streamed and drawn, the turn still running (bounded wait)."""
    chat = pilot.app.query_one(ChatView)
    await chat.add_user("long one please")
    half = len(text) // 2
    await chat.stream(text[:half])
    message = pilot.app.query_one(AssistantMessage)
    try:
        await wait_until(lambda: message._fed >= half, timeout=60)
    except AssertionError:
        raise AssertionError("the first half was never drawn") from None
    await wait_until(lambda: message._shown_fed >= half)  # on screen, not only fed
    await pilot.pause(0.2)
    return chat, message


async def test_deltas_from_a_thread_wake_the_app_once_and_reach_the_chat_as_one_text(
    home: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await app.query_one(ChatView).add_user("hello")
        before = app.forwarder.wakeups
        text = long_reply(16)
        deltas = [text[i : i + 7] for i in range(0, len(text), 7)]
        producer = threading.Thread(
            target=lambda: [app.forwarder(ev.TextDelta(delta)) for delta in deltas]
        )
        producer.start()
        producer.join()  # every delta is queued before the app runs again
        app.forwarder(ev.TurnFinished())
        await pilot.pause()
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        assert app.forwarder.wakeups - before == 1
        assert message.text == text
        assert message.updates < len(deltas) / 10


async def test_a_long_streamed_reply_updates_the_screen_far_less_often_than_it_has_deltas(
    home: Path, llm: FakeLLM
) -> None:
    text = long_reply(12)
    llm.script(Reply(text=text, chunk=7))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        before = app.forwarder.wakeups
        app.query_one("#chat-input").text = "explain the build"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        deltas = len(text) / 7
        assert message.text == text
        assert app.forwarder.wakeups - before < deltas / 10
        assert message.updates < deltas / 10


async def test_a_finished_reply_is_not_drawn_again_while_the_next_streams(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text=long_reply(10), chunk=7), Reply(text=long_reply(10), chunk=7))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "first"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        first = app.query_one(AssistantMessage)
        await settle(pilot, first)
        rendered = first.query_one(RenderedMarkdown)
        lines, settled = rendered.lines, list(rendered.lines.settled)
        assert len(first.children) == 1 and not lines.live  # one widget of finished lines
        laid_out: list[int] = []
        drawn: list[int] = []
        measure, draw = rendered.get_content_height, rendered.render_line
        rendered.get_content_height = lambda *args: laid_out.append(1) or measure(*args)
        rendered.render_line = lambda y: drawn.append(y) or draw(y)
        for _ in range(100):  # bounded: a loaded machine may still be painting its last frame
            drawn.clear(), laid_out.clear()
            await pilot.pause(0.1)
            if not drawn and not laid_out:
                break

        app.query_one("#chat-input").text = "second"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        second = app.query(AssistantMessage).last()
        await settle(pilot, second)

        assert second is not first and second.updates > 1
        assert laid_out == [] and drawn == []  # scrolled by, from the screen's cache
        assert rendered.lines is lines and all(
            a is b for a, b in zip(lines.settled, settled, strict=True)
        )


async def test_each_step_draws_only_the_tail_of_a_long_reply(
    home: Path, llm: FakeLLM, monkeypatch
) -> None:
    """Drawing costs what the last few blocks cost, not the whole reply so far: over a whole
    stream, the text drawn adds up to a small multiple of the reply, not its square."""
    # Steps of at most 400 characters, however the stream bunches up on a loaded machine (a
    # step may take twice the last one's text): what a step draws is then its own text and
    # the last few blocks, never a tenth of the reply.
    monkeypatch.setattr(AssistantMessage, "FEED_RANGE", (80, 400))
    text = long_reply(40)
    drawn: list[int] = []
    real = markdown_lines.render
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.query_one(ChatView)
        await chat.add_user("hi")
        markdown_lines.render = lambda source, *args: (
            drawn.append(len(source)) or real(source, *args)
        )
        try:
            for start in range(0, len(text), 200):  # 200 characters a step, as a stream is
                await chat.stream(text[start : start + 200])
                await pilot.pause(AssistantMessage.STEP_INTERVAL)
            await chat.turn_finished(interrupted=False)
            message = app.query_one(AssistantMessage)
            await settle(pilot, message)
        finally:
            markdown_lines.render = real
        assert message.updates > 20
        assert max(drawn) < len(text) / 10
        assert sum(drawn) < 4 * len(text)


async def test_a_reply_drawn_in_steps_looks_exactly_as_its_whole_text_drawn_at_once(
    home: Path, llm: FakeLLM
) -> None:
    text = (
        "# Title\n\nSome **bold** and `code`, a [link](https://example.com).\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n---\n\n"
        "1. one\n2. two\n   - nested\n\n```python\nx = 1\n```\n"
    ) + long_reply(6)
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.query_one(ChatView)
        await chat.add_user("show me")
        for start in range(0, len(text), 37):
            await chat.stream(text[start : start + 37])
            await pilot.pause(0.01)
        await chat.turn_finished(interrupted=False)
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        body = message.query_one(RenderedMarkdown)
        expected = markdown_lines.render(text, body.content_size.width, markdown_style(app))
        assert [list(strip) for strip in body.strips] == [list(strip) for strip in expected]
        lines = [strip.text for strip in body.strips]
        assert any("Title" in line for line in lines) and any("quoted" in line for line in lines)


async def test_a_restarted_stream_replaces_what_was_shown(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.query_one(ChatView)
        await chat.add_user("hi")
        await chat.stream(long_reply(6))
        await pilot.pause(0.3)
        await chat.reset_stream()
        await chat.stream("Fresh answer.")
        await chat.turn_finished(interrupted=False)
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        lines = [strip.text.strip() for strip in message.query_one(RenderedMarkdown).strips]
        assert message.text == "Fresh answer." and [line for line in lines if line] == [
            "Fresh answer."
        ]


async def test_an_interrupted_reply_keeps_its_text_and_is_marked(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        message = await reply_drawn(pilot, "Half of the ans", interrupted=True)
        assert message.has_class("-interrupted") and message.text == "Half of the ans"
        assert "Half of the ans" in message.query_one(RenderedMarkdown).strips[0].text
        assert "Interrupted" in str(app.query(ErrorBlock).last().content)


async def test_a_new_width_draws_a_settled_reply_again(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        message = await reply_drawn(pilot, "word " * 60)
        narrow = len(message.query_one(RenderedMarkdown).strips)
        await pilot.resize_terminal(140, 30)
        await pilot.pause(AssistantMessage.REDRAW_DELAY + 0.2)
        await settle(pilot, message)
        wide = message.query_one(RenderedMarkdown)
        assert wide.rendered_width == wide.content_size.width and len(wide.strips) < narrow


async def test_a_burst_drawn_after_its_turn_ended_still_leaves_the_chat_at_its_end(
    home: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        # Arrives at once: drawn in steps after the turn ends.
        await reply_drawn(pilot, long_reply(12))
        await pilot.pause(0.2)
        chat = app.query_one(ChatView)
        assert chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y


async def test_keys_that_arrive_together_are_applied_in_the_order_they_were_typed(
    home: Path, llm: FakeLLM
) -> None:
    """A busy app takes keys in bursts. Textual runs an editing key's binding (backspace, the
    arrows) only after the key has bubbled up through the DOM, so a letter typed just after it
    was inserted first and then deleted instead: during a fast stream a typed character vanished.
    """
    from textual import events

    from hermes_tui.ui.widgets.input import ChatInput

    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.focus()
        burst = ["a", "b", "backspace", "c", "left", "x", "end", "d", "backspace", "backspace", "e"]
        for key in burst:  # all queued before the app runs again, as a busy app sees them
            character = key if len(key) == 1 else None
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert box.text == "axe"


async def test_a_link_in_a_reply_opens_when_clicked_and_its_text_can_be_selected(
    home: Path, llm: FakeLLM
) -> None:
    from textual.geometry import Offset
    from textual.selection import Selection

    app = make_app(home, llm.openai_url)
    opened: list[str] = []
    app.open_url = lambda url, **kwargs: opened.append(url)
    async with app.run_test(size=SIZE) as pilot:
        message = await reply_drawn(
            pilot,
            "Read [the guide](https://example.com/guide) first.\n\nThen act.",
            question="where?",
        )
        body = message.query_one(RenderedMarkdown)
        row = next(y for y, strip in enumerate(body.strips) if "guide" in strip.text)
        column = body.strips[row].text.index("guide")
        # Content starts one column in (the reply's padding).
        await pilot.click(body, offset=Offset(column + 1, row))
        await pilot.pause()
        assert opened == ["https://example.com/guide"]
        selected = body.get_selection(Selection(None, None))  # all of it
        assert selected is not None and "Read the guide first." in selected[0]


async def test_a_reader_who_scrolls_up_keeps_their_place_while_the_reply_grows(
    home: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        text = long_reply(30)
        half = len(text) // 2
        chat, message = await half_drawn(pilot, text)
        assert chat.following and chat.scroll_y == chat.max_scroll_y > 10
        chat.scroll_to(y=chat.scroll_y - 15, animate=False, immediate=True)  # the wheel, up
        await pilot.pause(0.1)
        kept = chat.scroll_y
        assert kept < chat.max_scroll_y and not chat.following
        await chat.stream(text[half:])
        await chat.turn_finished(interrupted=False)
        await settle(pilot, message)
        await pilot.pause(0.2)
        assert chat.scroll_y == kept < chat.max_scroll_y - 10  # not pulled down
        chat.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert chat.following  # back at the end: it follows again


async def test_scrolling_up_by_keys_cancels_a_follow_that_has_not_happened_yet(
    home: Path, llm: FakeLLM
) -> None:
    """A step whose Grew came after its layout leaves the follow for the next layout; a reader
    who scrolls up meanwhile (keys, the scrollbar: not only the wheel) keeps their place."""
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        chat, message = await half_drawn(pilot, long_reply(30))
        chat._stick = True  # a step's follow, pending until the next layout
        await pilot.press("escape")  # out of the box: the chat takes the keys
        chat.focus()
        await pilot.press("pageup")
        # Page Up scrolls with an animation: where it ends is the reader's place (on a loaded
        # machine 0.1 s caught it midway once).
        await wait_until(lambda: not app.animator.is_being_animated(chat, "scroll_y"))
        await pilot.pause(0.1)
        kept = chat.scroll_y
        assert kept < chat.max_scroll_y - 10 and not chat.following
        chat.refresh(layout=True)  # the next layout: it followed the step before
        await pilot.pause(0.2)
        assert chat.scroll_y == kept


async def test_crlf_split_by_a_step_shows_no_carriage_return(home: Path) -> None:
    # Each step neutralises its own slice: a "\r\n" cut between two steps shows "␍".
    app = make_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        chat = app.query_one(ChatView)
        await chat.add_user("hi")
        text = "x" * 399 + "\r\nsecond line\r\n"  # the first step is 400 characters
        await chat.stream(text)
        await chat.turn_finished(False)
        message = app.query(AssistantMessage).last()
        await settle(pilot, message)
        width = message.body.content_size.width
        expected = [
            s.text for s in markdown_lines.render(neutralise(text), width, markdown_style(app))
        ]
        assert [s.text for s in message.body.strips] == expected


async def test_a_following_step_is_one_frame_and_the_scrollbar_is_drawn_in_it(
    home: Path, llm: FakeLLM, monkeypatch
) -> None:
    """The scrollbar's own repaint request would cost a second frame at every step; the frame
    that lays the grown chat out draws it. What it drew last must match where the view ended."""
    updates: list[object] = []
    drawn: list[tuple[float, int, int]] = []
    on_update, render_lines = Screen._on_update, ScrollBar.render_lines

    async def counting_update(self, message) -> None:
        updates.append(message.widget)
        await on_update(self, message)

    def recording_render(self, crop):
        if self.vertical:
            drawn.append((self.position, self.window_virtual_size, self.window_size))
        return render_lines(self, crop)

    monkeypatch.setattr(Screen, "_on_update", counting_update)
    monkeypatch.setattr(ScrollBar, "render_lines", recording_render)
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.query_one(ChatView)
        await chat.add_user("hi")
        await pilot.pause(0.1)
        bar = chat.vertical_scrollbar
        text = long_reply(30)
        for start in range(0, len(text), 300):
            await chat.stream(text[start : start + 300])
            await pilot.pause(AssistantMessage.STEP_INTERVAL)
            if start == 1500:  # the scrollbar has appeared (its own frame, once)
                # On a loaded machine the layout that makes the chat overflow may still be
                # coming: wait for it (bounded), then count only what follows.
                await wait_until(lambda: chat.max_scroll_y > 0)
                await pilot.pause(AssistantMessage.STEP_INTERVAL)
                updates.clear()
        await chat.turn_finished(interrupted=False)
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        await pilot.pause(0.2)
        assert message.updates > 10 and chat.scroll_y == chat.max_scroll_y > 50
        assert bar not in updates  # never a frame of its own
        assert drawn[-1] == (chat.scroll_y, chat.virtual_size.height, bar.window_size)


class _Woken:
    """Stands in for the app: counts the wake-ups the forwarder posts."""

    def __init__(self) -> None:
        self.posted = 0

    def post_message(self, _message: object) -> None:
        self.posted += 1


def _producer(forwarder: EventForwarder, deltas: int) -> threading.Thread:
    thread = threading.Thread(
        target=lambda: [forwarder(ev.TextDelta("x" * 100)) for _ in range(deltas)], daemon=True
    )
    thread.start()
    return thread


def _held_back(forwarder: EventForwarder, producer: threading.Thread) -> bool:
    """Whether the producer's thread came to wait for the screen (and waits still), within
    10 s: on a loaded machine it may not have run its first deltas for a while."""
    deadline = time.monotonic() + 10
    while not forwarder.waits and producer.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    return producer.is_alive() and forwarder.waits == 1


def test_the_provider_thread_waits_while_the_screen_is_far_behind_and_reads_on_when_it_draws() -> (
    None
):
    forwarder = EventForwarder()
    forwarder.app = _Woken()
    forwarder.STALL = 60.0  # a screen that is slow, not stuck
    producer = _producer(forwarder, 60)  # 6,000 characters against AHEAD = 4,000
    assert _held_back(forwarder, producer)
    # held back once 4,000 characters were ahead: the delta that crossed it went through
    assert sum(len(e.text) for e in forwarder.take()) == forwarder.AHEAD + 100
    forwarder.drawn(3500)  # the app took them and drew 500
    producer.join(timeout=1.0)
    assert producer.is_alive()  # 3,500 + what came since is over 4,000 again
    forwarder.drawn(0)
    producer.join(timeout=10)
    assert not producer.is_alive()
    assert sum(len(e.text) for e in forwarder.take()) == 6000 - 4100


def test_a_screen_that_draws_nothing_is_waited_for_once_and_a_cancel_releases_at_once() -> None:
    forwarder = EventForwarder()
    forwarder.app = _Woken()
    forwarder.STALL = 0.05
    stuck = _producer(forwarder, 100)
    stuck.join(timeout=10)
    assert not stuck.is_alive() and forwarder.waits == 1  # then read on without waiting
    assert sum(len(e.text) for e in forwarder.take()) == 10_000

    forwarder = EventForwarder()
    forwarder.app = _Woken()
    forwarder.STALL = 60.0
    cancelled = _producer(forwarder, 60)
    assert _held_back(forwarder, cancelled)
    forwarder.release()
    cancelled.join(timeout=10)
    assert not cancelled.is_alive()


async def test_a_fast_stream_is_read_at_most_a_few_steps_ahead_of_the_screen(
    home: Path, llm: FakeLLM
) -> None:
    text = long_reply(15)  # about 3,500 characters, as fast as the server sends
    llm.script(Reply(text=text, chunk=7))
    app = make_app(home, llm.openai_url)
    app.forwarder.STALL = 60.0  # however loaded the machine, the screen is waited for
    # A fifth of the reply may be read ahead (the real bound is 4,000 characters: the same
    # protocol, for a reply that costs a quarter of the deltas to stream).
    app.forwarder.AHEAD = 700
    behind: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        chat = app.query_one(ChatView)
        real = chat.stream

        async def stream(fragment: str) -> None:
            await real(fragment)
            behind.append(chat.current.undrawn)

        chat.stream = stream
        app.query_one("#chat-input").text = "explain the build"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        message = app.query_one(AssistantMessage)
        await settle(pilot, message)
        assert message.text == text
        assert app.forwarder.waits > 0
        # Never the whole reply at once: a delta of 7 over the bound, plus the tail the stream's
        # redaction held back from the delta before (what could begin a key, "-----BEGIN " at most).
        held = max(len(lead) for lead, _, _ in SHAPE_LEADS)
        assert max(behind) <= app.forwarder.AHEAD + 7 + held
        assert max(behind) > 0


async def test_a_streaming_reply_drawn_again_for_a_new_width_does_not_collapse_meanwhile(
    home: Path, llm: FakeLLM
) -> None:
    """Until the new lines hold as much of the reply as the old ones did, the old ones stay."""
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        text = long_reply(30)
        half = len(text) // 2
        chat, message = await half_drawn(pilot, text)
        body = message.body
        before = len(body.lines)
        seen: list[int] = []  # the body's height at every step
        show = body.show
        body.show = lambda lines, first, height: (
            show(lines, first, height),
            seen.append(len(lines)),
        )
        await pilot.resize_terminal(SIZE[0] + 20, SIZE[1])  # wider: fewer lines once drawn again
        await pilot.pause(AssistantMessage.REDRAW_DELAY + 0.1)
        await chat.stream(text[half:])
        await chat.turn_finished(interrupted=False)
        await settle(pilot, message)
        width = body.content_size.width
        expected = [
            s.text for s in markdown_lines.render(neutralise(text), width, markdown_style(app))
        ]
        assert [s.text for s in body.strips] == expected
        assert body.lines.width == width != SIZE[0]
        # The new width's lines replaced the old ones only once they held at least as much.
        assert min(seen) >= before * 0.8, (before, seen[:5])


def test_a_release_lasts_until_the_next_turn_which_also_forgets_the_last_ones_backlog() -> None:
    forwarder = EventForwarder()
    forwarder.app = _Woken()
    forwarder.STALL = 60.0
    forwarder.release()  # esc, ctrl+c, quitting
    forwarder.drawn(9000)  # the old reply still draws: that does not hold the thread again
    free = _producer(forwarder, 60)
    free.join(timeout=10)
    assert not free.is_alive() and forwarder.waits == 0
    forwarder.turn_started()  # the next turn: paced again, from nothing undrawn
    forwarder.take()
    producer = _producer(forwarder, 60)
    assert _held_back(forwarder, producer)
    forwarder.release()
    producer.join(timeout=10)
    assert not producer.is_alive()


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_cancelling_a_turn_frees_a_provider_thread_held_back_by_the_screen(
    key: str, home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text=long_reply(200), chunk=7))
    app = make_app(home, llm.openai_url)
    app.forwarder.STALL = 60.0  # only the cancel can free it in time
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "go"
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.05)
            if app.forwarder.waits:
                break
        assert app.forwarder.waits
        for message in app.query(AssistantMessage):  # the screen stops drawing
            if message._step is not None:
                message._step.pause()
        await pilot.press(key)
        await asyncio.wait_for(app.workers.wait_for_complete(), timeout=20)
        assert not app.turn_running or app.turn.cancel.is_set()
