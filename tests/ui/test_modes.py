"""The approval mode in the app: the status bar shows it, shift+tab and /mode switch it, the
switch is saved to config.yaml and judged from the next tool call; plan mode refuses every
change with "plan mode" and the chat shows the refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until

from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.nudge_bar import NudgeBar

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def _saved_mode(home: Path) -> str | None:
    data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8")) or {}
    return (data.get("terminal") or {}).get("mode")


def _bar(app) -> str:
    return str(app.query_one(NudgeBar).render())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("the plan\n")
    monkeypatch.chdir(folder)
    return folder


async def test_shift_tab_cycles_the_modes_shows_and_saves_each(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(NudgeBar)
        await wait_until(lambda: bar.mode != "")
        start = bar.mode  # sandboxed where bwrap works, strict where it cannot
        assert _bar(app).startswith(start)
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append(bar.mode)
            assert _bar(app).startswith(bar.mode)
            assert _saved_mode(home) == bar.mode
        # The cycle never lands on yolo; three presses come back to where it started.
        assert sorted(seen) == ["plan", "sandboxed", "strict"] and seen[-1] == start
        assert app.runtime.approval_mode() == start  # a new conversation opens in it too
        # In a dialog shift+tab moves the focus back instead.
        app.action_help()
        await pilot.pause()
        await pilot.press("shift+tab")
        assert bar.mode == start


async def test_mode_command_sets_any_mode_and_refuses_an_unknown_one(
    home: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#chat-input")
        box.text = "/mode yolo"
        await pilot.press("enter")
        await pilot.pause()
        assert app.query_one(NudgeBar).mode == "yolo" and _saved_mode(home) == "yolo"
        assert _bar(app).startswith("yolo")
        box.text = "/mode reckless"
        await pilot.press("enter")
        await pilot.pause()
        assert app.query_one(NudgeBar).mode == "yolo" and _saved_mode(home) == "yolo"
        assert any("no approval mode 'reckless'" in n.message for n in app._notifications)
    # The saved mode is the one the next start opens with.
    from hermes_tui.runtime import Runtime

    assert Runtime.open(home, environ={"OPENAI_API_KEY": "k"}).approval_mode() == "yolo"


async def test_plan_mode_refuses_every_change_until_the_user_leaves_it(
    home: Path, project: Path, llm: FakeLLM
) -> None:
    llm.script(
        Reply(tool_calls=[("read_file", {"path": "notes.txt"})]),
        Reply(tool_calls=[("write_file", {"path": "plan.md", "content": "step 1\n"})]),
        Reply(tool_calls=[("terminal", {"command": "touch made.txt"})]),
        Reply(tool_calls=[("terminal", {"command": "cat notes.txt"})]),
        Reply(tool_calls=[("memory", {"action": "add", "target": "memory", "content": "x"})]),
        Reply(text="Here is the plan: write plan.md, then touch made.txt."),
        # After the user leaves plan mode, in the same conversation:
        Reply(tool_calls=[("write_file", {"path": "plan.md", "content": "step 1\n"})]),
        Reply(text="Written."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one("#chat-input")
        box.text = "/mode plan"
        await pilot.press("enter")
        await pilot.pause()
        assert _bar(app).startswith("plan")
        box.text = "plan the change"
        await pilot.press("enter")
        await wait_until(lambda: not app.turn_running and len(llm.requests) >= 6, timeout=30)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not (project / "plan.md").exists() and not (project / "made.txt").exists()
        assert app.runtime.memory.entries("memory") == []
        results = [
            json.loads(m["content"])
            for m in llm.requests[5].body["messages"]
            if m["role"] == "tool"
        ]
        read, write, touch, cat, memory = results
        assert "the plan" in read["content"] and "the plan" in cat["output"]
        for refused in (write, touch, memory):
            assert refused["denied"] and refused["error"].startswith("plan mode"), refused
        # The chat shows each refusal on its tool row.
        rows = [str(row.title) for row in app.query(ToolRow)]
        assert sum("plan mode" in row for row in rows) == 3, rows
        # Leaving plan mode (shift+tab: plan → sandboxed) holds from the next tool call.
        await pilot.press("shift+tab")
        assert app.session.approval_mode == "sandboxed" and _saved_mode(home) == "sandboxed"
        box.text = "go ahead"
        await pilot.press("enter")
        await wait_until(lambda: (project / "plan.md").exists(), timeout=30)
        await app.workers.wait_for_complete()
    assert (project / "plan.md").read_text() == "step 1\n"
