"""/rewind in the app: the turns newest first with a diff preview, files and conversation put
back, a file changed since the agent's edit asked about first; esc esc on an empty box opens it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, wait_until

from hermes_tui.ui.screens.modals import ConfirmScreen
from hermes_tui.ui.screens.rewind import NOT_TRACKED, RewindScreen
from hermes_tui.ui.widgets.diff import DiffBlock
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws
NOTES = "# Notes\n\nfirst line\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES)
    (folder / "config.txt").write_text("port = 80\n")
    monkeypatch.chdir(folder)
    return folder


def script_two_turns(llm: FakeLLM) -> None:
    llm.script(
        Reply(
            tool_calls=[
                ("write_file", {"path": "app.py", "content": "print('v1')\n"}),
                ("patch", {"path": "notes.md", "old_string": "first", "new_string": "1st"}),
            ]
        ),
        Reply(text="Turn one done."),
        Reply(tool_calls=[("write_file", {"path": "config.txt", "content": "port = 8080\n"})]),
        Reply(text="Turn two done."),
    )


async def _rewind_to_first_turn(app, pilot) -> RewindScreen:
    app.query_one(ChatInput).text = "/rewind"
    await pilot.press("enter")
    await wait_until(lambda: isinstance(app.screen, RewindScreen))
    screen = app.screen
    await pilot.press("down")  # newest first: the second row is turn 1
    await wait_until(lambda: screen.plan is not None and screen.plan.turn.number == 1)
    await pilot.pause()
    return screen


@pytest.mark.parametrize("overwrite", [True, False])
async def test_rewind_restores_files_and_conversation_and_asks_about_a_hand_edit(
    home: Path, work: Path, llm: FakeLLM, overwrite: bool
) -> None:
    script_two_turns(llm)
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "start the app")
        await send(app, pilot, "configure it")
        old_session = app.session.id
        (work / "notes.md").write_text("my own edit\n")
        screen = await _rewind_to_first_turn(app, pilot)
        shown = "\n".join(str(block.diff) for block in screen.query(DiffBlock))
        assert "+first line" in shown and "-print('v1')" in shown
        text = " ".join(str(s.render()) for s in screen.query("Static"))
        assert "changed since the agent's edit" in text and NOT_TRACKED in text
        await pilot.press("b")
        await wait_until(lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y" if overwrite else "n")
        await wait_until(lambda: app.query_one(ChatInput).text == "start the app")
        assert not (work / "app.py").exists()
        assert (work / "config.txt").read_text() == "port = 80\n"
        expected = NOTES if overwrite else "my own edit\n"
        assert (work / "notes.md").read_text() == expected
        assert app.session.id != old_session
        said = [item.text for item in app.session.transcript() if hasattr(item, "text")]
        assert "Turn one done." not in said and "start the app" not in said


async def test_files_only_keeps_the_conversation(home: Path, work: Path, llm: FakeLLM) -> None:
    script_two_turns(llm)
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "start the app")
        await send(app, pilot, "configure it")
        session_id = app.session.id
        await _rewind_to_first_turn(app, pilot)
        await pilot.press("f")
        await wait_until(lambda: not (work / "app.py").exists())
        assert (work / "notes.md").read_text() == NOTES
        assert app.session.id == session_id and app.query_one(ChatInput).text == ""


async def test_escape_twice_on_an_empty_box_opens_the_dialog(
    home: Path, work: Path, llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two presses a loaded machine delivers more than 0.8 s apart are still a double escape here:
    # this test is about what the keys do, not how fast a person types them.
    monkeypatch.setattr("hermes_tui.ui.rewind.DOUBLE_ESCAPE", 60.0)
    llm.script(
        Reply(tool_calls=[("write_file", {"path": "app.py", "content": "x = 1\n"})]),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, RewindScreen), "nothing to rewind yet"
        await send(app, pilot, "make app.py")
        app.query_one(ChatInput).focus()
        await pilot.press("escape", "escape")
        await wait_until(lambda: isinstance(app.screen, RewindScreen))
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, RewindScreen))
        app.query_one(ChatInput).text = "draft"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen), "a box with text is not rewound"


async def test_a_folder_swapped_for_a_link_is_shown_refused_and_the_file_outside_kept(
    home: Path, work: Path, llm: FakeLLM, tmp_path: Path
) -> None:
    """A3-16: after the agent's edits a command swaps `sub` for a link to the user's home; the
    dialog says the file will not be restored and why, the rewind asks nothing and writes
    nothing there."""
    outside = tmp_path / "user-home"
    outside.mkdir()
    (outside / ".profile").write_text("ORIGINAL\n")
    llm.script(
        Reply(tool_calls=[("write_file", {"path": "sub/.profile", "content": "EVIL\n"})]),
        Reply(text="Turn one done."),
        Reply(tool_calls=[("write_file", {"path": "sub/.profile", "content": "ORIGINAL\n"})]),
        Reply(text="Turn two done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "start the app")
        await send(app, pilot, "configure it")
        (work / "sub").rename(work / "sub.bak")
        (work / "sub").symlink_to(outside)
        app.query_one(ChatInput).text = "/rewind"
        await pilot.press("enter")
        await wait_until(lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        await wait_until(lambda: screen.plan is not None and screen.plan.turn.number == 2)
        await pilot.pause()
        text = " ".join(str(s.render()) for s in screen.query("Static"))
        assert f"{work / 'sub'} is now a symbolic link to {outside}" in text
        await pilot.press("f")
        await wait_until(lambda: any("Not restored" in str(n.message) for n in app._notifications))
        assert not isinstance(app.screen, ConfirmScreen), "nothing to ask: it is refused"
        assert (outside / ".profile").read_text() == "ORIGINAL\n"


@pytest.mark.parametrize("yes", [True, False])
async def test_a_file_that_runs_later_is_written_back_only_when_the_user_says_so(
    home: Path, work: Path, llm: FakeLLM, yes: bool
) -> None:
    """A4-3: what the rewind puts back is judged as the files tools judge a write: a config in
    a folder that became a git directory since (git runs what it names) is asked about first."""
    planted = "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = touch /tmp/x; false\n"
    benign = "[core]\n\tbare = false\n"
    llm.script(
        Reply(tool_calls=[("write_file", {"path": "lib/config", "content": planted})]),
        Reply(text="One."),
        Reply(tool_calls=[("write_file", {"path": "lib/config", "content": benign})]),
        Reply(text="Two."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "write it")
        await send(app, pilot, "fix it")
        for mark in ("objects", "refs"):
            (work / "lib" / mark).mkdir()
        (work / "lib" / "HEAD").write_text("ref: refs/heads/main\n")
        app.query_one(ChatInput).text = "/rewind"
        await pilot.press("enter")
        await wait_until(lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        await wait_until(lambda: screen.plan is not None and screen.plan.turn.number == 2)
        await pilot.pause()
        text = " ".join(str(s.render()) for s in screen.query("Static"))
        assert "runs later outside the sandbox" in text
        await pilot.press("f")
        await wait_until(lambda: isinstance(app.screen, ConfirmScreen))
        assert "git directory" in str(app.screen.question)
        await pilot.press("y" if yes else "n")
        await wait_until(lambda: not isinstance(app.screen, ConfirmScreen))
        await pilot.pause()
        assert (work / "lib" / "config").read_text() == (planted if yes else benign)
