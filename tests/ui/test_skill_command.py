"""`/<skill-name> [request]` in the message box loads the skill into a turn (issue 28)."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, skill_text, write_skill

from hermes_tui.ui.widgets.chat import UserMessage

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_a_skill_name_as_a_command_sends_the_skill_with_the_request(
    home: Path, llm: FakeLLM
) -> None:
    write_skill(
        home / "skills",
        "release-notes",
        text=skill_text("release-notes", body="# Steps\n\n1. Read ${HERMES_SKILL_DIR}/NOTES.\n"),
    )
    llm.script(Reply(text="Drafted."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/release-notes for v2.1")
        assert [str(u.content) for u in app.query(UserMessage)] == ["/release-notes for v2.1"]
        sent = llm.requests[-1].last_user_text
        folder = home / "skills" / "release-notes"
        assert 'loaded the skill "release-notes"' in sent
        assert f"Read {folder}/NOTES." in sent and sent.endswith("for v2.1")


async def test_an_unknown_command_that_is_no_skill_only_warns(home: Path, llm: FakeLLM) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/no-such-thing please")
        assert not llm.requests and not list(app.query(UserMessage))
