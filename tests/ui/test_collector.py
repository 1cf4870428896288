"""Full garbage collections wait for quiet moments (ui/collector.py).

Mechanism only: what it buys (no 150-900 ms pauses while a reply streams) is in bench/tui.py.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until

from hermes_tui.ui.collector import FULL_EVERY, LAST_RESORT, Collector
from hermes_tui.ui.widgets.chat import AssistantMessage

SIZE = (100, 30)


@pytest.fixture
def collector():
    collector = Collector()
    yield collector
    collector.stop()  # whatever a test did, the test process gets its collector back


def test_start_freezes_what_exists_and_leaves_full_collections_as_a_last_resort(
    collector: Collector,
) -> None:
    before = gc.get_threshold()
    collector.start()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (before[0], before[1], LAST_RESORT)
    collector.stop()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_a_quiet_moment_collects_the_cycles_made_since_start(collector: Collector) -> None:
    class Node:
        pass

    collector.start()
    for _ in range(1000):  # garbage that only the cyclic collector can free
        node = Node()
        node.me = node
    del node
    assert any(type(o) is Node for o in gc.get_objects())
    collector.settled()
    assert not any(type(o) is Node for o in gc.get_objects())
    assert collector.full_collections == 1


def test_what_survives_a_quiet_moment_is_frozen_and_every_tenth_walks_it_again(
    collector: Collector,
) -> None:
    class Node:
        pass

    def alive_anywhere() -> bool:  # get_objects() leaves frozen objects out
        gc.unfreeze()
        try:
            return any(type(o) is Node for o in gc.get_objects())
        finally:
            gc.freeze()

    collector.start()
    kept = Node()
    kept.me = kept
    collector.settled()
    assert not any(type(o) is Node for o in gc.get_objects())  # frozen: not walked again
    del kept  # garbage now, in a cycle: only a collection that walks it can free it
    for _ in range(FULL_EVERY - 2):
        collector.settled()
    assert alive_anywhere()
    collector.settled()  # the tenth walks everything again
    assert not alive_anywhere()


def test_a_collector_that_never_started_does_nothing(collector: Collector) -> None:
    before = gc.get_threshold()
    collector.settled()
    collector.stop()
    assert collector.full_collections == 0
    assert gc.get_threshold() == before


async def draw_a_reply(app, pilot, collector: Collector, *, typing: bool) -> AssistantMessage:
    """Send a message and wait until the turn is over and its reply drawn (typing meanwhile);
    no full collection may happen before."""
    app.query_one("#chat-input").text = "explain"
    await pilot.press("enter")
    replies = app.query(AssistantMessage)
    for _ in range(600):
        if not app.turn_running and replies and replies.first().settled:
            break
        assert collector.full_collections == 0  # never while a reply is being drawn
        if typing:
            await pilot.press("x")
        await pilot.pause(0.02)
        replies = app.query(AssistantMessage)
    reply = replies.first()
    assert reply.settled and reply.text == TEXT
    return reply


async def wait_for_collection(pilot, collector: Collector) -> None:
    try:
        await wait_until(lambda: collector.full_collections)
    except AssertionError:
        raise AssertionError("no full collection") from None


TEXT = "".join(f"## Part {i}\n\nSome **text** for part {i}.\n\n- a\n- b\n\n" for i in range(30))


def app_with(collector: Collector, home: Path, llm: FakeLLM, *, pause: float, deadline: float):
    """The app with `collector`, a reply scripted, and its pause and deadline (seconds)."""
    llm.script(Reply(text=TEXT, chunk=7))
    app = make_app(home, llm.openai_url)
    app.housekeeping.collector = collector
    app.housekeeping.COLLECT_AFTER_PAUSE, app.housekeeping.COLLECT_DEADLINE = pause, deadline
    return app


async def test_the_app_collects_once_a_reply_is_drawn_and_the_user_has_paused(
    home: Path, llm: FakeLLM, collector: Collector
) -> None:
    app = app_with(collector, home, llm, pause=0.2, deadline=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_freeze_count() > 0  # started behind the first screen
        await draw_a_reply(app, pilot, collector, typing=False)
        await wait_for_collection(pilot, collector)
        assert collector.full_collections == 1


async def test_while_the_user_types_the_collection_waits_until_its_deadline(
    home: Path, llm: FakeLLM, collector: Collector
) -> None:
    app = app_with(collector, home, llm, pause=60, deadline=2.0)  # the user never pauses enough
    async with app.run_test(size=SIZE) as pilot:
        await draw_a_reply(app, pilot, collector, typing=True)
        assert collector.full_collections == 0  # drawn, but the user is typing
        await wait_for_collection(pilot, collector)  # garbage must not pile up: the deadline
        assert collector.full_collections == 1
