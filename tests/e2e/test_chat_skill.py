"""`chat -s NAME` loads a skill into the one-shot turn (issue 28, Deliver 3)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, skill_text, write_config, write_skill


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def chat(capfd: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME chat ARGS…` with a key, through cli.main in this process."""

    def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, "chat", *args, OPENAI_API_KEY="test-key")

    return run


def test_chat_s_sends_the_skill_and_the_session_id(home: Path, llm: FakeLLM, chat) -> None:
    write_config(home, llm.openai_url, skills={"config": {"deploy-api": {"region": "eu-west-1"}}})
    write_skill(
        home / "skills",
        "deploy-api",
        text=skill_text("deploy-api", body="Tag the release ${HERMES_SESSION_ID}.\n"),
    )
    llm.script(Reply(text="Deployed."))
    result = chat(home, "-q", "ship it", "-s", "deploy-api")
    assert result.returncode == 0, result.stderr
    session_id = result.stderr.strip().splitlines()[-1].removeprefix("session: ")
    sent = llm.requests[-1].last_user_text
    assert f"Tag the release {session_id}." in sent
    assert "- region: eu-west-1" in sent and sent.endswith("ship it")


def test_chat_s_with_an_unknown_skill_is_a_usage_error(home: Path, llm: FakeLLM, chat) -> None:
    write_config(home, llm.openai_url)
    result = chat(home, "-q", "ship it", "-s", "nope")
    assert result.returncode == 2 and "no skill named 'nope'" in result.stderr
    assert not llm.requests


def test_doctor_names_a_skill_whose_variables_are_unset(
    home: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    text = (
        "---\nname: notion-sync\ndescription: Sync.\nrequired_environment_variables:\n"
        "- NOTION_TOKEN\n---\n\nBody.\n"
    )
    write_skill(home / "skills", "notion-sync", text=text)
    doctor = run_main(capfd, home, "doctor")
    assert "notion-sync needs NOTION_TOKEN" in doctor.stdout
    (home / ".env").write_text("NOTION_TOKEN=abc\n")
    doctor = run_main(capfd, home, "doctor")
    assert "notion-sync needs" not in doctor.stdout


def test_chat_s_titles_the_session_by_the_query_not_the_skill(
    home: Path, llm: FakeLLM, capsys
) -> None:
    from helpers import run_main

    from hermes_tui.core.sessions import SessionStore

    write_config(home, llm.openai_url)
    write_skill(home / "skills", "deploy-api", text=skill_text("deploy-api", body="Tag it.\n"))
    llm.script(Reply(text="Deployed."))
    result = run_main(capsys, home, "chat", "-q", "ship it", "-s", "deploy-api", OPENAI_API_KEY="k")
    assert result.returncode == 0, result.stderr
    assert "Tag it." in llm.requests[-1].last_user_text
    [info] = SessionStore(home / "sessions.db").list()
    assert info.title == "ship it"
