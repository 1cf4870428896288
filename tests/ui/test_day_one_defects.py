"""What a newcomer hit on day one (issue 26, defects 1-6): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until
from textual.widgets import Button

from hermes_tui.ui.screens.mcp import McpScreen
from hermes_tui.ui.screens.modals import ApprovalScreen
from hermes_tui.ui.widgets.chat import AssistantMessage, ChatView, ErrorBlock, ToolRow
from hermes_tui.ui.widgets.input import ChatInput

SMALL = (80, 24)


def _record_toasts(app) -> list[tuple[str, str]]:
    notes: list[tuple[str, str]] = []
    original = app.notify

    def notify(message, **kw):
        notes.append((str(message), kw.get("severity", "information")))
        original(message, **kw)

    app.notify = notify
    return notes


async def _type_and_send(app, pilot, text: str) -> None:
    app.query_one(ChatInput).text = text
    await pilot.press("enter")
    await pilot.pause()


def _visible_in(chat: ChatView, widget) -> bool:
    """The whole of `widget` is inside the chat's scrolled view."""
    top = chat.scroll_y
    bottom = top + chat.scrollable_content_region.height
    region = widget.virtual_region
    return region.y >= top - 0.5 and region.bottom <= bottom + 0.5


async def _comes_into_view(chat: ChatView, widget) -> None:
    """The view reaches the whole of `widget` (bounded): it scrolls once the chat is laid
    out, which a loaded machine does later than a fixed pause allowed for."""
    try:
        await wait_until(lambda: _visible_in(chat, widget), 20)
    except AssertionError:
        where = (chat.scroll_y, chat.max_scroll_y, widget.virtual_region)
        raise AssertionError(f"never in view: {where}") from None


# ---- 1. a slash command never ends the app ---------------------------------------------------


async def test_mcp_reload_typed_in_the_box_opens_the_screen_and_reloads(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("escape")  # the welcome screen: offline works
        notes = _record_toasts(app)
        await _type_and_send(app, pilot, "/mcp reload")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, McpScreen)
        assert "No MCP servers are configured" in str(app.screen.query_one("#mcp-status").render())
        assert any("restarted from config.yaml" in text for text, _ in notes), notes
        # Again while the screen is open: the open screen reloads, no second one is stacked.
        screens = len(app.screen_stack)
        app.screen.action_reload()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.screen_stack) == screens
    assert app.return_code in (None, 0)


async def test_an_error_in_a_slash_command_is_logged_and_shown_not_fatal(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("escape")
        notes = _record_toasts(app)

        def broken() -> None:
            raise RuntimeError("the help text went missing")

        app.action_help = broken  # a fault inside a command, as a bug would be
        await _type_and_send(app, pilot, "/help")
        assert any(
            severity == "error" and "/help failed" in text and "errors.log" in text
            for text, severity in notes
        ), notes
        # The app is still usable: the next command works.
        await _type_and_send(app, pilot, "/mcp")
        assert isinstance(app.screen, McpScreen)
    log = (home / "logs" / "errors.log").read_text(encoding="utf-8")
    assert "RuntimeError: the help text went missing" in log and "/help" in log
    assert app.return_code in (None, 0)


# ---- 2. a resumed session opens on its newest message -----------------------------------------


async def test_resuming_a_session_with_long_replies_opens_on_the_newest_message(
    home: Path, llm: FakeLLM
) -> None:
    from hermes_tui.core.messages import Message

    app = make_app(home, llm.openai_url)
    store = app.runtime.sessions
    session_id = store.create(provider="openai", model="fake-model", system_prompt="x").id
    paragraph = "A line of a long answer that wraps across the chat column. " * 12
    for question in ("one", "two", "three", "four"):
        store.append(session_id, Message("user", question))
        long = "\n\n".join(f"{n}. {paragraph}" for n in range(8))
        store.append(session_id, Message("assistant", long))
    store.append(session_id, Message("user", "five"))
    store.append(session_id, Message("assistant", "THE NEWEST ANSWER."))
    async with app.run_test(size=SMALL):
        app.resume(session_id)
        await app.workers.wait_for_complete()
        # Four long replies drawn in steps: 31 s alone at load 17, past 30 s beside three more
        # workers (the wait failed so); a wait that is met returns at once.
        await wait_until(lambda: all(m.settled for m in app.query(AssistantMessage)), 90)
        chat = app.query_one(ChatView)
        newest = app.query(AssistantMessage).last()
        assert newest.text == "THE NEWEST ANSWER."
        await _comes_into_view(chat, newest)
        assert chat.max_scroll_y > 50, "the history is taller than the screen"


# ---- 3. the approval dialog shows every choice at 80x24 ---------------------------------------


async def test_the_approval_dialog_shows_every_choice_at_80_by_24(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("escape")
        for prefixes in (("rm on /srv/projects/customer-data/archive",), ()):
            answers: list[str] = []
            app.push_screen(
                ApprovalScreen(
                    "rm -rf /srv/projects/customer-data/archive && " + "echo done; " * 40,
                    "recursively deletes /srv/projects/customer-data/archive, outside the "
                    "working directory; " * 3,
                    prefixes,
                ),
                answers.append,
            )
            await pilot.pause()
            dialog = app.screen
            screen_region = dialog.region
            buttons = list(dialog.query(Button))
            offered = {"once", "session", "deny"} if prefixes else {"once", "deny"}
            assert {b.id for b in buttons} == offered
            for button in buttons:
                shown = button.region.intersection(dialog.query_one("Vertical").region)
                assert shown == button.region and screen_region.contains_region(shown), (
                    button.id,
                    button.region,
                )
                label = str(button.label)
                assert label.endswith(")") and len(label) + 2 <= button.content_region.width + 2
            await pilot.press("y")
            await pilot.pause()
            assert answers == ["once"]


# ---- 4. the demo's prepared task is replaced by what the user types ----------------------------


async def test_typing_over_the_demos_prepared_task_replaces_it(home: Path) -> None:
    from hermes_tui.ui.screens.welcome import WelcomeScreen

    app = make_app(home, provider="demo")
    async with app.run_test(size=SMALL) as pilot:
        box = app.query_one(ChatInput)
        await wait_until(lambda: box.text != "")
        assert box.selected_text == box.text, "the prepared task is selected"
        await pilot.press(*"/model")
        assert box.text == "/model"
        await pilot.press("escape")  # the hints close
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen), "a line starting with / is a command"
        assert not app.query(AssistantMessage) and app.session is None


# ---- 5. the interruption notice is on screen -------------------------------------------------


async def test_the_interrupted_notice_is_visible_after_esc_mid_reply(
    home: Path, llm: FakeLLM
) -> None:
    text = "\n\n".join(f"Paragraph {n}: " + "words that keep coming " * 8 for n in range(400))
    llm.script(Reply(text=text, chars_per_second=6000, chunk=40))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SMALL) as pilot:
        await _type_and_send(app, pilot, "tell me everything")
        chat = app.query_one(ChatView)
        await wait_until(lambda: chat.max_scroll_y > 60, 30)
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await wait_until(lambda: all(m.settled for m in app.query(AssistantMessage)), 90)
        await wait_until(lambda: bool(app.query(ErrorBlock)), 20)
        notice = app.query(ErrorBlock).last()
        assert "Interrupted" in str(notice.content)
        await _comes_into_view(chat, notice)


# ---- 6. a click on a tool row expands it; typing still goes to the box -------------------------


async def test_clicking_a_tool_row_expands_it_and_typing_reaches_the_box(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(
        Reply(text="Checking.", tool_calls=[("terminal", {"command": "echo hi"})]),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await _type_and_send(app, pilot, "run it")
        await app.workers.wait_for_complete()
        await pilot.pause()
        row = app.query_one(ToolRow)
        assert row.collapsed
        await pilot.click(row.query_one("CollapsibleTitle"))
        await pilot.pause()
        assert not row.collapsed, "a click expands the row"
        box = app.query_one(ChatInput)
        assert app.focused is box
        await pilot.press(*"cat")
        await pilot.pause()
        assert box.text == "cat" and not row.collapsed
