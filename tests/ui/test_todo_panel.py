"""The agent's todo list as a checklist above the message box: shown while items are open,
gone when all are done, back when the session is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, wait_until

from hermes_tui.ui.widgets.todo import TodoPanel

SIZE = (100, 30)
PLAN = [
    {"content": "Read the failing test", "status": "completed"},
    {"content": "Fix the \x1b[31mparser", "status": "in_progress"},
    {"content": "Run the suite", "status": "pending"},
]


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _shown(app) -> str:
    return str(app.query_one(TodoPanel).render())


async def test_open_items_show_above_the_box_and_a_finished_list_hides(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(tool_calls=[("todo", {"todos": PLAN})]), Reply(text="Working on it."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(TodoPanel)
        assert not panel.display, "no list yet: nothing above the box"
        await send(app, pilot, "fix the parser")
        await wait_until(lambda: panel.display)
        shown = _shown(app)
        assert "Todo 1/3" in shown and "▸ Fix the" in shown and "○ Run the suite" in shown
        assert "\x1b" not in shown
        # Above the message box, in the chat column.
        assert panel.region.bottom <= app.query_one("#chat-input").region.y
        done = [{**item, "status": "completed"} for item in PLAN]
        llm.script(Reply(tool_calls=[("todo", {"todos": done})]), Reply(text="All done."))
        await send(app, pilot, "finish")
        await wait_until(lambda: not panel.display)


async def test_a_resumed_session_shows_its_list_and_new_clears_it(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(tool_calls=[("todo", {"todos": PLAN})]), Reply(text="Planned."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "plan it")
        session_id = app.session.id
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.resume(session_id)
        await app.workers.wait_for_complete()
        panel = app.query_one(TodoPanel)
        await wait_until(lambda: panel.display)
        assert "Todo 1/3" in _shown(app)
        await pilot.press("ctrl+n")
        await wait_until(lambda: not panel.display)
