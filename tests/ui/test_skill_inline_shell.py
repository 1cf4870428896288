"""`/<skill-name>` with skills.inline_shell: the snippets run first, asking as the terminal asks."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, skill_text, wait_until, write_skill

from hermes_tui.ui.screens.modals import ApprovalScreen

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_a_snippet_that_needs_approval_asks_and_a_refusal_is_marked(
    home: Path, llm: FakeLLM, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = f"Now: !`echo inline-ok`\nHome: !`ls {home}/skills`\n"
    write_skill(home / "skills", "snippets", text=skill_text("snippets", body=body))
    llm.script(Reply(text="Done."))
    app = make_app(home, llm.openai_url, skills={"inline_shell": True})
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "/snippets go"
        await pilot.press("enter")
        await wait_until(lambda: isinstance(app.screen, ApprovalScreen))
        assert app.turn_running  # nothing else starts while the snippets run
        await pilot.press("escape")  # deny
        await wait_until(lambda: llm.requests and not app.turn_running)
        sent = llm.requests[-1].last_user_text
        assert "Now: inline-ok" in sent and "Home: [inline-shell error: not run" in sent
