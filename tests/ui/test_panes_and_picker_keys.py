"""Memory pane and model picker from the keyboard (issue 26, defect 7): each failed before."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM
from helpers import make_app
from textual.widgets import ListView, OptionList

from hermes_tui.ui.screens.modals import ConfirmScreen
from hermes_tui.ui.screens.welcome import WelcomeScreen
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def _record_toasts(app) -> list[str]:
    notes: list[str] = []
    original = app.notify
    app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
    return notes


async def test_memory_pane_highlights_asks_before_deleting_and_restores_at_once(
    home: Path,
) -> None:
    app = make_app(home)
    memory = app.runtime.memory
    memory.add("memory", "first fact", origin="user")
    memory.add("memory", "second fact", origin="user")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        notes = _record_toasts(app)
        await pilot.press("f2")
        await pilot.pause()
        entries = app.query_one("#memory-memory ListView", ListView)
        assert app.focused is entries and entries.index == 0, "the first entry is highlighted"
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), "d asks first"
        assert "first fact" in str(app.screen.query_one("Static").content)
        await pilot.press("n")
        await pilot.pause()
        assert memory.entries("memory") == ["first fact", "second fact"], "no keeps it"
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert memory.entries("memory") == ["second fact"]
        assert any("Deleted from MEMORY.md" in n and "u restores" in n for n in notes), notes
        # The archive: u opens it, and u again restores the newest entry without a Down first.
        await pilot.press("u")
        await pilot.pause()
        archive = app.query_one("#archive-list", ListView)
        assert not app.query_one("#archive").collapsed and app.focused is archive
        assert archive.index == 0
        await pilot.press("u")
        await pilot.pause()
        assert sorted(memory.entries("memory")) == ["first fact", "second fact"]
        assert any(n.startswith("Restored") for n in notes), notes


async def test_model_picker_highlights_a_listed_model_and_every_tab_stop_shows_focus(
    home: Path, llm: FakeLLM
) -> None:
    llm.models = ["qwen2.5-coder", "llama3.1", "fake-model"]
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.query_one(ChatInput)
        box.text = "/model"
        await pilot.press("enter")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, WelcomeScreen)
        await pilot.click("#list-models")
        await app.workers.wait_for_complete()
        await pilot.pause()
        listing = picker.query_one("#model-list", OptionList)
        assert listing.highlighted is not None, "an entry is highlighted"
        assert str(listing.get_option_at_index(listing.highlighted).prompt) == "fake-model"
        # Every Tab stop is a field that shows it has the focus.
        picker.query_one("#provider").focus()
        await pilot.pause()
        seen = []
        for _ in range(12):
            focused = app.focused
            assert focused is not None and focused.screen is picker
            assert focused.can_focus and focused.id, focused
            seen.append(focused.id)
            await pilot.press("tab")
            await pilot.pause()
        assert "model-list" in seen and not any(i is None for i in seen)
