"""Keys a newcomer meets first (issue 16 follow-ups): pane keys, tab, alt+p, the new-skill dialog.

Keys are pressed with Pilot; where a terminal sends something Pilot would not (alt+p as
`ESC p` from tmux, a paste with carriage returns), the bytes go through the app's own input
(ui/textual_compat.py: TerminalInput, over Textual's parser).
"""

from __future__ import annotations

from pathlib import Path

from helpers import make_app, write_skill

from hermes_tui.ui.screens.editor import SkillEditor
from hermes_tui.ui.textual_compat import TerminalInput
from hermes_tui.ui.widgets.input import ChatInput
from hermes_tui.ui.widgets.memory_pane import EntryEditor
from hermes_tui.ui.widgets.skills_pane import SkillsPane

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def terminal_sends(app, data: str) -> None:
    """`data` as the terminal writes it, read as the app reads it and delivered like real input."""
    terminal = TerminalInput()
    for event in [*terminal.feed(data.encode()), *terminal.feed(b"", final=True)]:
        app.post_message(event)


async def test_a_pane_key_focuses_the_pane_so_its_keys_work_and_esc_returns(home: Path) -> None:
    write_skill(home / "skills", "ship", "ops")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # leave the welcome screen: offline works
        box = app.query_one(ChatInput)
        assert app.focused is box
        await pilot.press("f3")
        await pilot.pause()
        assert app.focused is app.query_one("#skills-tree")
        assert app.query_one(SkillsPane).selected is not None, "the first skill is chosen"
        await pilot.press("n")  # the pane's key, not a letter in the message box
        await pilot.pause()
        assert isinstance(app.screen, SkillEditor) and box.text == ""
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")  # from the pane back to the message box
        await pilot.pause()
        assert app.focused is box
        await pilot.press("f2")
        await pilot.pause()
        assert app.focused is app.query_one("#memory-memory ListView")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, EntryEditor)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f2")  # the same key again: back to the message box
        await pilot.pause()
        assert app.focused is box and app.query_one("#side").active == "memory"
        for key, target in (("f1", "#trace-table"), ("f4", "#review-list")):
            await pilot.press(key)
            await pilot.pause()
            assert app.focused is app.query_one(target), key


async def test_the_new_skill_dialog_starts_in_the_name_field(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, SkillEditor)
        assert app.focused is editor.query_one("#new-name")
        await pilot.press(*"deploy")
        await pilot.pause()
        assert "\nname: deploy\n" in editor.query_one("#skill-text").text


async def test_tab_in_a_slash_command_completes_and_never_leaves_the_box(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        box = app.query_one(ChatInput)
        await pilot.press(*"/the", "tab")
        assert box.text == "/theme " and app.focused is box
        await pilot.press(*"textual-d", "tab")
        assert box.text == "/theme textual-dark" and app.focused is box
        box.text = "/theme nord"
        box.move_cursor(box.document.end)
        await pilot.press("tab")  # nothing to complete: the tab stays in the box
        assert app.focused is box and box.text == "/theme nord"
        box.text = "/s"
        box.move_cursor(box.document.end)
        await pilot.press("tab")  # /sessions or /skills: the hints show both, tab takes each
        await pilot.pause()
        hints = app.query_one("#slash-hints")
        assert app.focused is box and box.text == "/sessions"
        assert [str(hints.get_option_at_index(i).prompt) for i in range(hints.option_count)] == [
            "/sessions  browse and search past sessions",
            "/skills  show the skills browser",
        ]
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is box and box.text == "/skills" and hints.highlighted == 1
        box.text = "/theme textual-"
        await pilot.pause()
        assert "/theme textual-light" in [
            str(hints.get_option_at_index(i).prompt) for i in range(hints.option_count)
        ]
        box.text = "hello"
        box.move_cursor(box.document.end)
        await pilot.press("tab")  # ordinary text: tab moves on, as in every form
        assert app.focused is not box


async def test_alt_p_sent_as_esc_p_expands_a_paste_sent_with_carriage_returns(
    home: Path,
) -> None:
    app = make_app(home)
    lines = [f"log line {i}" for i in range(30)]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        box = app.query_one(ChatInput)
        # What tmux writes for a bracketed paste: line breaks as carriage returns.
        terminal_sends(app, "\x1b[200~" + "\r".join(lines) + "\x1b[201~")
        await pilot.pause()
        assert box.text == "[Pasted 30 lines #1]"
        terminal_sends(app, "\x1bp")  # alt+p from a terminal that sends Alt as ESC
        await pilot.pause()
        assert box.text == "\n".join(lines)


async def test_a_toast_never_covers_the_message_box_or_the_nudge_bar(home: Path) -> None:
    from textual.widgets._toast import Toast

    app = make_app(home)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("escape")
        box = app.query_one(ChatInput)
        box.text = "\n".join(["a line of a longer message"] * 8)  # the box at its tallest
        app.notify("A long notification " * 12, title="Review finished", timeout=30)
        await pilot.pause()
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        assert toasts
        for toast in toasts:
            for widget in (box, app.query_one("#nudge-bar")):
                assert not toast.region.overlaps(widget.region), widget


async def test_esc_in_the_skill_editors_body_closes_it(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, SkillEditor)
        assert app.focused is editor.query_one("#skill-text")
        await pilot.press("escape")  # unchanged: closes at once
        await pilot.pause()
        assert not isinstance(app.screen, SkillEditor)
        assert app.focused is app.query_one("#skills-tree")
