"""The terminal's approval dialog: the reason in full, and "always allow this prefix" for a session."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until
from textual.widgets import Button

from hermes_tui.ui.screens.modals import ApprovalScreen

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def _next_dialog(app, pilot, after: ApprovalScreen | None = None) -> ApprovalScreen:
    await wait_until(
        lambda: (
            isinstance(app.screen, ApprovalScreen)
            and app.screen is not after
            and bool(app.screen.query(".reason"))
        ),
        timeout=30,
    )
    await pilot.pause()
    return app.screen


def _tool_results(llm: FakeLLM) -> list[str]:
    messages = llm.requests[-1].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


async def test_allowing_for_the_session_covers_the_approved_target_only(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    gone_a, gone_b = tmp_path / "outside-a", tmp_path / "outside-b"
    llm.script(
        Reply(tool_calls=[("terminal", {"command": f"rm -rf {gone_a}"})]),
        Reply(tool_calls=[("terminal", {"command": f"rm -rf {gone_a}/sub"})]),
        Reply(tool_calls=[("terminal", {"command": f"rm -rf {gone_b}"})]),
        Reply(tool_calls=[("terminal", {"command": '"$HERMES_NOT_SET" --version'})]),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "clean up"
        await pilot.press("enter")
        first = await _next_dialog(app, pilot)
        reason = str(first.query_one(".reason").content)
        assert f"recursively deletes {gone_a}, outside the working directory" in reason
        assert reason.endswith(".") and "…" not in reason.split(":", 1)[1].rstrip(".")
        scope = str(first.query_one(".scope").content)
        assert f"always allow rm on {gone_a} this session" in scope
        assert str(first.query_one("#session", Button).label) == "This session (a)"
        await pilot.press("a")
        # Inside the approved folder runs without a dialog; another folder asks again.
        third = await _next_dialog(app, pilot, after=first)
        assert str(gone_b) in str(third.query_one(".reason").content)
        await pilot.press("n")
        # The next one cannot be judged, so it asks, and offers no session answer.
        fourth = await _next_dialog(app, pilot, after=third)
        assert "$HERMES_NOT_SET" in str(fourth.query_one(".command").content)
        assert "cannot tell what this runs" in str(fourth.query_one(".reason").content)
        assert not fourth.query("#session")
        await pilot.press("a")  # no session answer to give: nothing happens
        assert app.screen is fourth
        await pilot.press("n")
        await app.workers.wait_for_complete()
    results = [json.loads(text) for text in _tool_results(llm)]
    assert [r.get("denied", False) for r in results] == [False, False, True, True]
    assert "cannot tell what this runs" in results[3]["error"]


async def test_a_session_answer_is_kept_by_the_core_session_and_names_the_file(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("alpha\n")
    (outside / "b.txt").write_text("beta\n")
    llm.script(
        Reply(tool_calls=[("read_file", {"path": str(outside / "a.txt")})]),
        Reply(tool_calls=[("read_file", {"path": str(outside / "a.txt")})]),
        Reply(tool_calls=[("read_file", {"path": str(outside / "b.txt")})]),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "read my notes"
        await pilot.press("enter")
        first = await _next_dialog(app, pilot)
        assert first.query_one("#session", Button)  # offered, with what it grants said above
        scope = str(first.query_one(".scope").content)
        assert f"read_file on {outside / 'a.txt'}" in scope
        await pilot.press("a")
        # The same file again is not asked about; another file is.
        second = await _next_dialog(app, pilot, after=first)
        assert str(outside / "b.txt") in str(second.query_one(".command").content)
        await pilot.press("n")
        await app.workers.wait_for_complete()
        from hermes_tui.core.tools.approvals import PathGrant

        assert app.turn.session.approvals.held() == [PathGrant("read_file", str(outside / "a.txt"))]
    results = _tool_results(llm)
    assert "alpha" in results[0] and "alpha" in results[1] and "beta" not in results[2]
