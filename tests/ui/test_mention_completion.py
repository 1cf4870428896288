"""@-mentions in the message box: fuzzy completion of the working directory's files, and the
mentioned files sent to the model (or refused, by the files tools' policy)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app

from hermes_tui.ui.widgets.chat import UserMessage
from hermes_tui.ui.widgets.input import ChatInput
from hermes_tui.ui.widgets.mentions import MentionHints

SIZE = (100, 30)  # small: a frame costs by the cells it draws


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "parser.py").write_text("def parse(text):\n    return text.split()\n")
    (folder / "README.md").write_text("# Project\n")
    (folder / ".env").write_text("API_KEY=sk-secret\n")
    monkeypatch.chdir(folder)
    return folder


async def _type(pilot, text: str) -> None:
    for character in text:
        await pilot.press("space" if character == " " else character)


async def test_at_completes_a_file_fuzzily_and_sending_attaches_it(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="It splits on whitespace."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "explain @prsr")
        await app.workers.wait_for_complete()  # the file list is built in a worker
        await pilot.pause()
        hints = app.query_one(MentionHints)
        assert hints.visible and hints.matches[0] == "src/parser.py"
        await pilot.press("tab")
        box = app.query_one(ChatInput)
        assert box.text == "explain @src/parser.py " and not hints.visible
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [m.text for m in app.query(UserMessage)] == ["explain @src/parser.py"]
    sent = llm.requests[0].body["messages"][-1]["content"]
    assert sent.startswith('explain @src/parser.py\n\n<attached_file path="src/parser.py">')
    assert "def parse(text):" in sent and sent.endswith("</attached_file>")


async def test_a_secret_file_is_refused_and_nothing_is_sent(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        original = app.notify
        app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
        box = app.query_one(ChatInput)
        box.text = "what is in @.env"
        await pilot.press("escape")  # the hints go away; the box keeps the text
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert box.text == "what is in @.env"  # back in the box, for the user to change
        assert not app.query(UserMessage) and not llm.requests
        assert any("a secret file (environment secrets)" in n and "Not sent" in n for n in notes)


async def test_escape_hides_the_hints_and_up_down_choose_among_them(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "@")
        await app.workers.wait_for_complete()
        await pilot.pause()
        hints = app.query_one(MentionHints)
        assert hints.matches == ["README.md", "src/parser.py"]  # .env is a secret: never offered
        await pilot.press("down")
        assert hints.chosen() == "src/parser.py"
        await pilot.press("escape")
        assert not hints.visible


async def test_an_attached_file_reaches_the_model_with_its_secrets_redacted(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    secret = "Zq9-mention-secret-8842-kept"
    (home / ".env").write_text(f"DEPLOY_TOKEN={secret}\n", encoding="utf-8")
    (workdir / "src" / "settings.py").write_text(f'TOKEN = "{secret}"\n', encoding="utf-8")
    llm.script(Reply(text="Looks fine."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(ChatInput).text = "check @src/settings.py"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    body = llm.requests[0].raw.decode("utf-8")
    assert 'TOKEN = \\"[REDACTED DEPLOY_TOKEN]\\"' in body
    assert secret not in body and secret[::-1] not in body
    assert (workdir / "src" / "settings.py").read_text(encoding="utf-8").count(secret) == 1
