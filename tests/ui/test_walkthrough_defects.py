"""What a newcomer found running the README in tmux (round 3): each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, wait_until

from hermes_tui.ui.widgets.chat import NoteBlock

SIZE = (120, 40)


def _screen_text(app) -> str:
    """The screen's characters as drawn (from Textual's own SVG screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def _notes(app) -> list[str]:
    return [str(n.content) for n in app.query(NoteBlock)]


# ---- /tools says what todo does ---------------------------------------------------------------


async def test_tools_does_not_call_the_todo_list_read_only(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/tools")
        lines = _notes(app)[-1].splitlines()
        todo = next(line for line in lines if line.startswith("✓ todo "))
        assert "read-only" not in todo  # it writes the conversation's checklist
        assert "changes only this conversation" in todo
        assert "✓ read_file (files, read-only)" in lines


# ---- /model is the model switcher, not the welcome -------------------------------------------


async def test_model_opens_a_switcher_titled_as_such_not_the_welcome(home: Path) -> None:
    from hermes_tui.ui.screens.welcome import WelcomeScreen

    app = make_app(home)  # no provider: the app opens on the welcome
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.pause()
        assert "Welcome to hermes-tui" in _screen_text(app)
        await pilot.press("escape")
        await send(app, pilot, "/model")
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.pause()
        drawn = _screen_text(app)
        assert "Model and provider" in drawn and "Welcome" not in drawn


# ---- ctrl+o: one line per session --------------------------------------------------------------


async def test_a_long_session_title_is_cut_to_one_line_with_an_ellipsis(home: Path) -> None:
    from hermes_tui.ui.screens.modals import SessionItem, SessionsScreen

    app = make_app(home)
    store = app.runtime.sessions
    long_title = "Refactor the parser " + "and the lexer " * 20 + "THE-END"
    info = store.create(provider="openai", model="m", system_prompt="")
    store.update(info.id, title=long_title)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # the welcome
        await pilot.press("ctrl+o")
        await wait_until(
            lambda: isinstance(app.screen, SessionsScreen) and app.screen.query(SessionItem)
        )
        await pilot.pause()
        line = app.screen.query_one(SessionItem).query_one("Static")
        assert line.size.height == 1
        shown = line.render_line(0).text.rstrip()
        assert shown.endswith("…") and "THE-END" not in shown
        assert shown.startswith(f"{info.id}     0 msgs  Refactor the parser and the lexer")


# ---- tool rows and diffs say when they were cut -----------------------------------------------


async def test_a_tool_rows_title_ends_with_an_ellipsis_where_cut(
    home: Path, tmp_path: Path, llm: FakeLLM, monkeypatch
) -> None:
    from hermes_tui.ui.widgets.chat import ToolRow
    from hermes_tui.ui.widgets.tool_row import CollapsibleTitle

    monkeypatch.chdir(tmp_path)
    long_path = "a_rather_long_folder_name/" * 4 + "module.py"
    llm.script(Reply(tool_calls=[("read_file", {"path": long_path})]), Reply(text="Done."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(app, pilot, "read it")
        title = app.query_one(ToolRow).query_one(CollapsibleTitle)
        await pilot.pause()
        shown = title.render_line(0).text.rstrip()
        assert title.size.height == 1 and shown.endswith("…"), shown


async def test_a_diff_preview_shows_a_long_line_whole(home: Path) -> None:
    from hermes_tui.ui.screens.editor import DiffPreview

    before = "# Steps\n\n1. Do it.\n"
    after = before + "2. " + "then check the output carefully " * 5 + "LAST-WORDS-HERE\n"
    app = make_app(home)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("escape")
        app.push_screen(DiffPreview("Save SKILL.md?", before, after, False))
        await wait_until(lambda: isinstance(app.screen, DiffPreview))
        await pilot.pause()
        await pilot.pause()
        text = _screen_text(app)
        drawn = "".join(ch for ch in text if ch.isalnum() or ch == "-")  # wrapped lines joined
        assert "LAST-WORDS-HERE" in drawn, text[text.find("Save SKILL") :]


# ---- /undo gives the message back -------------------------------------------------------------


async def test_undo_puts_the_message_back_in_the_box_without_its_attached_files(
    home: Path, tmp_path: Path, llm: FakeLLM, monkeypatch
) -> None:
    from hermes_tui.ui.widgets.input import ChatInput

    work = tmp_path / "project"
    work.mkdir()
    (work / "notes.txt").write_text("ATTACHED-CONTENT\n")
    monkeypatch.chdir(work)
    llm.script(Reply(text="One."), Reply(text="Two."), Reply(text="Two, better."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "first")
        await send(app, pilot, "summarise @notes.txt\nin two lines")
        assert "ATTACHED-CONTENT" in llm.requests[-1].body["messages"][-1]["content"]
        await send(app, pilot, "/undo")
        box = app.query_one(ChatInput)
        assert box.text == "summarise @notes.txt\nin two lines"
        assert app.focused is box and box.cursor_location == box.document.end
        await pilot.press("enter")  # sent again as it was: the file attached anew
        await app.workers.wait_for_complete()
        sent = [m["content"] for m in llm.requests[-1].body["messages"] if m["role"] == "user"]
        assert sent[0] == "first" and len(sent) == 2
        assert sent[1].startswith("summarise @notes.txt") and sent[1].count("ATTACHED-CONTENT") == 1


# ---- @ completion never offers the app's own home ---------------------------------------------


async def test_at_completion_in_the_demo_lists_its_workspace_not_its_home(home: Path) -> None:
    from hermes_tui.core.llm.demo import ensure_sandbox
    from hermes_tui.ui.widgets.input import ChatInput
    from hermes_tui.ui.widgets.mentions import MentionHints

    app = make_app(home, provider="demo")
    demo_home = app.runtime.home
    assert demo_home.parent == home / "demo"  # inside the demo's workspace
    ensure_sandbox(home / "demo")
    (demo_home / "memories").mkdir(parents=True, exist_ok=True)
    (demo_home / "memories" / "MEMORY.md").write_text("a fact\n")
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.focus()
        box.text = ""
        await pilot.press("@")
        hints = app.query_one(MentionHints)
        await wait_until(lambda: hints.files is not None and hints.matches)
        assert "app/main.py" in hints.files.paths
        assert not [path for path in hints.files.paths if path.startswith("home/")]
        await pilot.press(*"MEMORY")
        await pilot.pause()
        assert not hints.matches or all("memories" not in path for path in hints.matches)


# ---- !command needs no model --------------------------------------------------------------------


async def test_a_shell_command_runs_with_no_provider_configured(
    home: Path, tmp_path: Path, monkeypatch
) -> None:
    from hermes_tui.ui.widgets.chat import ErrorBlock, ToolRow

    work = tmp_path / "project"
    work.mkdir()
    (work / "hello.txt").write_text("hi\n")
    monkeypatch.chdir(work)
    app = make_app(home)  # no provider
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # the welcome
        await send(app, pilot, "!ls; echo made-by-$((40 + 2))")
        await wait_until(lambda: not app.turn_running)
        await pilot.pause()
        assert not app.query(ErrorBlock), [str(e.content) for e in app.query(ErrorBlock)]
        row = app.query_one(ToolRow)
        assert row.has_class("-ok") and "hello.txt" in row.output and "made-by-42" in row.output
        # A message to the model still says what is missing, and nothing of it is stored.
        await send(app, pilot, "what did ls say?")
        await wait_until(lambda: not app.turn_running and app.query(ErrorBlock))
        assert "no LLM provider is configured" in str(app.query_one(ErrorBlock).content)
        stored = app.runtime.sessions.messages(app.session.id)
        assert all("what did ls say" not in s.message.content for s in stored)


# ---- the approval mode survives a narrow status bar -------------------------------------------


async def test_a_narrow_status_bar_keeps_the_mode_and_drops_the_rest_first(home: Path) -> None:
    from hermes_tui.core.events import UsageUpdated
    from hermes_tui.core.pricing import UsageTotals
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    app = make_app(home)
    async with app.run_test(size=(50, 30)) as pilot:
        await pilot.press("escape")
        bar = app.query_one(NudgeBar)
        bar.usage = UsageUpdated("s", "gpt-4o", UsageTotals(48_200, 3_100), 0.084, UsageTotals())
        for width in (50, 40, 30, 20):
            await pilot.resize_terminal(width, 30)
            for mode in ("sandboxed", "strict", "plan", "yolo"):
                bar.mode = mode
                for waiting in (0, 12):
                    bar.waiting = waiting
                    await pilot.pause()
                    text = str(bar.render())
                    assert text.split(" │ ")[0] == mode, (width, text)
                    assert len(text) <= width - 2 or text == mode, (width, text)
                    if waiting and width >= 30:
                        assert "waiting" in text and "12s" in text, (width, text)
        await pilot.resize_terminal(50, 30)
        bar.mode, bar.waiting = "sandboxed", 0
        await pilot.pause()
        assert str(bar.render()) == "sandboxed │ mem 0/10 │ skills 0/10"  # spend, ctx went first


# ---- /theme + tab completes theme names ---------------------------------------------------------


async def test_tab_after_theme_takes_a_theme_name_and_the_next_on_each_tab(home: Path) -> None:
    from hermes_tui.ui.widgets.input import ChatInput, SlashHints

    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        box, hints = app.query_one(ChatInput), app.query_one(SlashHints)
        themes = sorted(app.available_themes)
        await pilot.press(*"/theme ", "tab")
        assert box.text == f"/theme {themes[0]}"
        await pilot.press("tab")
        await pilot.pause()
        assert box.text == f"/theme {themes[1]}"
        assert hints.option_count == len(themes) and hints.highlighted == 1  # all still listed
        await pilot.press("backspace", *"3", "tab")  # typed over: tab completes what is typed
        assert box.text.startswith("/theme ") and box.text != f"/theme {themes[2]}"
        box.text = ""
        await pilot.press(*"/theme hermes-l", "tab")
        assert box.text == "/theme hermes-light"
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "hermes-light"
        await pilot.press(*"/re", "tab")  # commands cycle the same way
        first = box.text
        await pilot.press("tab")
        assert first.startswith("/re") and box.text.startswith("/re") and box.text != first


# ---- skill history says when, as a person reads it --------------------------------------------


async def test_skill_history_shows_local_time_and_age_not_the_file_stamp(
    home: Path, monkeypatch
) -> None:
    import re
    import time

    from helpers import skill_text
    from textual.widgets import OptionList

    from hermes_tui.ui.screens.editor import HistoryScreen
    from hermes_tui.ui.text import local_time, stamp_time

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # +05:30: a local time unlike the UTC stamp
    time.tzset()
    try:
        app = make_app(home)
        library = app.runtime.skills
        library.create("ship", skill_text("ship"), category="ops", origin="user")
        library.edit("ship", skill_text("ship", body="# Steps\n\n1. Ship it.\n"), origin="user")
        [version] = library.history.versions("ship")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("escape")
            app.push_screen(HistoryScreen(library, "ship"))
            await pilot.pause()
            shown = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert version.stamp not in shown and not re.search(r"\d{8}T\d{6}", shown)
        assert shown.startswith(local_time(version.time).split(" · ")[0] + " · ")
        assert "s ago" in shown, shown
        local = time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp_time(version.stamp)))
        assert shown.startswith(local)  # the stamp's UTC moment, in local time
        assert local_time(1_000, now=1_000 + 3 * 3600).endswith("· 3 h ago")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


# ---- command output and errors do not look like the user's messages ---------------------------


async def test_notes_and_errors_are_framed_and_titled_unlike_the_users_messages(
    home: Path,
) -> None:
    from hermes_tui.ui.widgets.chat import ChatView, ErrorBlock, UserMessage

    app = make_app(home)  # no provider: a message ends in an error
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await send(app, pilot, "hello")
        await wait_until(lambda: not app.turn_running and app.query(ErrorBlock))
        await send(app, pilot, "/tools")
        await pilot.pause()
        user = app.query_one(UserMessage)
        error = app.query_one(ErrorBlock)
        note = app.query(NoteBlock).last()

        assert user.styles.border_left[0] == "thick" and not user.styles.border_top[0]
        assert note.styles.border_top[0] == "round" and note.border_title == "/tools"
        assert error.styles.border_top[0] == "round" and error.border_title == "error"
        colours = {w: w.styles.border_left[1] for w in (user, note, error)}
        assert len(set(colours.values())) == 3, colours
        # A turn the user stopped is not an error: titled so, in the warning colour.
        chat = app.query_one(ChatView)
        await chat.turn_finished(interrupted=True)
        await pilot.pause()
        stopped = app.query(ErrorBlock).last()
        assert stopped.border_title == "interrupted"
        assert stopped.styles.border_left[1] not in colours.values()
        # Pruned from the DOM and drawn again, each keeps what it was.
        from hermes_tui.ui.widgets.chat import rebuild, snapshot

        for widget in (note, error, stopped):
            again = rebuild(snapshot(widget))
            assert type(again) is type(widget) and again.border_title == widget.border_title
            assert str(again.content) == str(widget.content)


# ---- a long message shows folded; the model gets it all --------------------------------------


async def test_a_long_paste_shows_folded_expands_on_enter_and_is_sent_whole(
    home: Path, llm: FakeLLM
) -> None:
    from hermes_tui.ui.widgets.chat import ChatView, UserMessage
    from hermes_tui.ui.widgets.input import ChatInput

    llm.script(Reply(text="Read it."), Reply(text="Short."))
    pasted = "\n".join(f"line {n}" for n in range(1, 3001))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        box.focus()
        await pilot.pause()
        app.screen.post_message(__import__("textual.events").events.Paste(pasted))
        await wait_until(lambda: "[Pasted 3,000 lines" in box.text)
        await pilot.press(*" check this", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        sent = llm.requests[-1].body["messages"][-1]["content"]
        assert "line 1\n" in sent and "line 3000" in sent  # the model gets every line
        message = app.query_one(UserMessage)
        shown = str(message.content)
        assert message.size.height < 12 and "line 7\n" not in shown and "line 3000" not in shown
        assert shown.startswith("line 1\nline 2") and "… 2,994 more lines" in shown
        message.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "line 3000" in str(message.content) and message.size.height > 3000
        # A click folds it again: on its first line, brought into view (unfolded it is 3,000
        # lines tall, and where the view stands after the unfold depends on the machine's pace).
        app.query_one(ChatView).scroll_to_widget(message, top=True, animate=False)
        await pilot.pause()
        await pilot.click(UserMessage)
        await pilot.pause()
        assert "line 3000" not in str(message.content)
        message.action_copy_message()
        assert app.clipboard.count("\n") >= 2999  # `c` copies all of it
        # A short message is shown whole; after a resume the long one is folded again.
        box.focus()
        await send(app, pilot, "short one")
        assert str(app.query(UserMessage).last().content) == "short one"
        session = app.session.id
        await app.action_new_session_view()
        await app.query_one(ChatView).load_history(app.session.transcript())
        await pilot.pause()
        assert "2,994 more lines" in str(app.query(UserMessage).first().content), session


async def test_a_long_skill_name_in_the_tree_ends_with_an_ellipsis(home: Path) -> None:
    from helpers import write_skill

    from hermes_tui.ui.widgets.skills_pane import SkillTree

    name = "summarise-the-release-notes-for-every-service-we-ship"
    write_skill(home / "skills", name, category="ops")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("f3")
        tree = app.query_one(SkillTree)
        await wait_until(lambda: tree.size.width > 0 and tree.last_line >= 1)
        await pilot.pause()
        drawn = [tree.render_line(y).text.rstrip() for y in range(tree.size.height)]
        [line] = [line for line in drawn if "summarise-the" in line]
        assert line.endswith("…") and not line.endswith("ship"), drawn
        assert tree.virtual_size.width <= tree.scrollable_content_region.width  # no sideways scroll


async def test_a_review_changes_heading_wraps_in_the_narrow_pane_instead_of_being_cut(
    home: Path,
) -> None:
    import time

    from helpers import skill_text

    from hermes_tui.core.agent.review import ReviewRecord
    from hermes_tui.core.events import ReviewChange
    from hermes_tui.ui.widgets.reviews_pane import ChangeView

    app = make_app(home)
    name = "deprecated-calls-report-for-every-service"
    change = ReviewChange("skill", name, "create", None, skill_text(name))
    app.runtime.reviews.save(
        ReviewRecord(
            "r1",
            "s1",
            "skills",
            time.time(),
            time.time(),
            "done",
            "made",
            "Saved.",
            changes=[change],
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("f4")
        await wait_until(lambda: app.query(ChangeView))
        await pilot.pause()
        heading = app.query_one(ChangeView).query_one("Label")
        drawn = "".join(heading.render_line(y).text.strip() for y in range(heading.size.height))
        assert heading.size.height > 1 and drawn.endswith(f"{name}: create"), drawn


async def test_undo_of_a_long_paste_gives_it_back_collapsed(home: Path, llm: FakeLLM) -> None:
    from hermes_tui.ui.widgets.input import ChatInput

    llm.script(Reply(text="One."), Reply(text="One again."))
    long = "look at this log\n" + "\n".join(f"row {n}" for n in range(500))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, long)
        box = app.query_one(ChatInput)
        await send(app, pilot, "/undo")
        assert box.text == "[Pasted 501 lines #1]" and box.expanded() == long
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert llm.requests[-1].body["messages"][-1]["content"] == long
