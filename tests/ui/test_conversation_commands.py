"""/retry /undo /title /clear /queue /background: slash commands that change the conversation
(issue 28 item 7, issue 26 New 3)."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, wait_until

from hermes_tui.core.text import neutralise
from hermes_tui.ui.widgets.chat import AssistantMessage, NoteBlock, UserMessage

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def _users(app) -> list[str]:
    return [str(u.content) for u in app.query(UserMessage)]


def _replies(app) -> list[str]:
    return [m.text for m in app.query(AssistantMessage)]


async def test_retry_sends_the_last_message_again_and_drops_its_reply(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="One."), Reply(text="Two."), Reply(text="Two, again."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first")
        await send(app, pilot, "second")
        await send(app, pilot, "/retry")
        await wait_until(lambda: len(llm.requests) == 3 and not app.turn_running)
        await pilot.pause()
        # The model saw "second" once: the dropped exchange is not in the retried request.
        sent = [m for m in llm.requests[-1].body["messages"] if m["role"] != "system"]
        assert [(m["role"], m["content"]) for m in sent] == [
            ("user", "first"),
            ("assistant", "One."),
            ("user", "second"),
        ]
        assert _users(app) == ["first", "second"]
        assert _replies(app) == ["One.", "Two, again."]
        stored = app.runtime.sessions.messages(app.session.id)
        assert [s.message.content for s in stored] == ["first", "One.", "second", "Two, again."]


async def test_undo_removes_the_last_exchange_from_model_store_and_screen(
    home: Path, llm: FakeLLM
) -> None:
    target = home / "work.txt"
    target.write_text("kept\n")
    llm.script(Reply(text="One."), Reply(text="Two."), Reply(text="Three."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first")
        await send(app, pilot, "second")
        await send(app, pilot, "/undo")
        assert _users(app) == ["first"] and _replies(app) == ["One."]
        stored = app.runtime.sessions.messages(app.session.id)
        assert [s.message.content for s in stored] == ["first", "One."]
        await send(app, pilot, "third")
        sent = [m["content"] for m in llm.requests[-1].body["messages"] if m["role"] != "system"]
        assert sent == ["first", "One.", "third"]
        assert target.read_text() == "kept\n"  # files are not touched


async def test_undo_with_nothing_said_changes_nothing(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/undo")
        await send(app, pilot, "/retry")
        assert not llm.requests and app.session is None


async def test_title_names_the_session_in_the_title_bar_and_the_store(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Hi."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/title Deploy \x1b[31mwork\x1b[0m   notes")
        await send(app, pilot, "hello")
        info = app.runtime.sessions.get(app.session.id)
        assert info.title == "Deploy \x1b[31mwork\x1b[0m notes"
        # The title bar shows it with its escapes neutralised (hostile text is never drawn raw).
        assert "\x1b" not in app.title and app.title.endswith(neutralise(info.title))
        await send(app, pilot, "/title Renamed")
        assert app.runtime.sessions.get(app.session.id).title == "Renamed"
        assert app.title == "hermes-tui — Renamed"


async def test_clear_starts_a_new_conversation(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="One."), Reply(text="Fresh."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first")
        first = app.session.id
        await send(app, pilot, "/clear")
        assert app.session is None and not _users(app)
        await send(app, pilot, "again")
        assert app.session.id != first
        sent = [m["content"] for m in llm.requests[-1].body["messages"] if m["role"] != "system"]
        assert sent == ["again"]


async def test_queue_sends_the_message_when_the_turn_ends(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Slow " * 20, chars_per_second=60), Reply(text="Queued answer."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "long one"
        await pilot.press("enter")
        await wait_until(lambda: app.turn_running)
        app.query_one("#chat-input").text = "/queue and then this"
        await pilot.press("enter")
        await pilot.pause()
        assert len(llm.requests) <= 1 and list(app.slash_state.queued) == ["and then this"]
        await wait_until(lambda: len(llm.requests) == 2 and not app.turn_running, timeout=20)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _users(app) == ["long one", "and then this"]
        assert llm.requests[-1].last_user_text == "and then this"
        assert not app.slash_state.queued


async def test_stopping_the_turn_gives_queued_messages_back_unsent(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Slow " * 40, chars_per_second=40), Reply(text="Never asked."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#chat-input")
        box.text = "long one"
        await pilot.press("enter")
        await wait_until(lambda: app.turn_running)
        for queued in ("/queue first after", "/queue second after"):
            box.text = queued
            await pilot.press("enter")
            await pilot.pause()
        box.text = "half typed"
        await pilot.press("escape")
        await wait_until(lambda: not app.turn_running, timeout=20)
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        # Nothing more went to the model; the queued text is back in the box, oldest first,
        # above what was being typed, and the user is told.
        assert len(llm.requests) == 1 and _users(app) == ["long one"]
        assert box.text == "first after\n\nsecond after\n\nhalf typed"
        assert not app.slash_state.queued
        assert any("2 queued messages put back" in str(n.message) for n in app._notifications)


async def test_background_runs_apart_and_announces_its_answer(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Background result: 42."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/background count the files")
        await wait_until(lambda: list(app.query(NoteBlock)))
        note = str(app.query_one(NoteBlock).content)
        assert "Background task 1" in note and "Background result: 42." in note
        # Not the conversation on screen: nothing was drawn as a turn, no session adopted.
        assert not _users(app) and app.session is None
        titles = [s.title for s in app.runtime.sessions.list()]
        assert titles == ["[background] count the files"]
