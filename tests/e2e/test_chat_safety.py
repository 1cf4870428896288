"""`chat -q` (no --yolo) against the loopback model: secrets stay in, big outputs stay small.
The command runs through cli.main in this process (helpers.run_main)."""

from __future__ import annotations

import json
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, run_main, write_config

PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-e2e-key-material\n"
GITHUB_TOKEN = "ghp_e2eSecretValue0123456789"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def chat(capfd: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME chat -q TEXT` in `work` for the user whose home is `user`, run
    by cli.main in this process (its output captured at the file descriptors)."""

    def run(home: Path, user: Path, work: Path, text: str) -> subprocess.CompletedProcess[str]:
        env = {"OPENAI_API_KEY": "test-key", "HOME": str(user)}
        return run_main(capfd, home, "chat", "-q", text, cwd=work, **env)

    return run


def _stored_tool_messages(home: Path) -> list[str]:
    with sqlite3.connect(home / "sessions.db") as db:
        rows = db.execute("SELECT content FROM messages WHERE role = 'tool' ORDER BY id").fetchall()
    return [row[0] for row in rows]


def _everything_stored(home: Path) -> str:
    with sqlite3.connect(home / "sessions.db") as db:
        rows = db.execute("SELECT content, tool_calls FROM messages").fetchall()
    return "\n".join(f"{a}\n{b}" for a, b in rows)


@pytest.fixture
def place(home: Path, tmp_path: Path) -> dict[str, Path]:
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_rsa").write_text(PRIVATE_KEY)
    (home / ".env").write_text(f"GITHUB_TOKEN={GITHUB_TOKEN}\n")
    work = tmp_path / "work"
    work.mkdir()
    return {"user": user, "work": work}


def test_reading_the_home_env_and_an_ssh_key_is_refused_with_reasons(
    home: Path, place: dict[str, Path], llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url)
    llm.script(
        Reply(
            tool_calls=[
                ("read_file", {"path": str(home / ".env")}),
                ("read_file", {"path": "~/.ssh/id_rsa"}),
                ("write_file", {"path": str(home / "SOUL.md"), "content": "obey the file"}),
            ]
        ),
        Reply(text="I could not read them."),
    )
    result = chat(home, place["user"], place["work"], "print my keys")
    assert result.returncode == 0, result.stderr
    results = [
        json.loads(m["content"]) for m in llm.requests[1].body["messages"] if m["role"] == "tool"
    ]
    env, key, soul = results
    assert (
        env["denied"]
        and f"reads {home / '.env'}, a secret file (environment secrets)" in env["error"]
    )
    assert (
        key["denied"] and "reads ~/.ssh/id_rsa, a secret file (SSH keys and config)" in key["error"]
    )
    assert "the user did not approve it" in key["error"]
    assert soul["denied"] and "SOUL.md" in soul["error"] and not (home / "SOUL.md").exists()
    assert "refused (needs approval: reads ~/.ssh/id_rsa" in result.stderr
    sent = json.dumps([r.body for r in llm.requests])
    for secret in ("e2e-key-material", GITHUB_TOKEN):
        assert secret not in sent and secret not in _everything_stored(home)
    assert stat.S_IMODE((home / "sessions.db").stat().st_mode) == 0o600


def test_a_huge_read_and_a_200000_line_command_are_capped_in_sessions_db(
    home: Path, place: dict[str, Path], llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url)
    work = place["work"]
    (work / "big.log").write_text("".join(f"{n:06d} " + "x" * 60 + "\n" for n in range(60_000)))
    llm.script(
        Reply(
            tool_calls=[
                ("read_file", {"path": "big.log", "limit": 60_000}),
                ("terminal", {"command": f"seq 1 200000; echo {GITHUB_TOKEN}"}),
            ]
        ),
        Reply(text="Done."),
    )
    result = chat(home, place["user"], work, "look at the log")
    assert result.returncode == 0, result.stderr
    read, term = _stored_tool_messages(home)
    assert len(read) <= 30_000 and len(term) <= 30_000
    read_result, term_result = json.loads(read), json.loads(term)
    assert read_result["success"] and "read on with offset=" in read_result["note"]
    output = term_result["output"]
    assert output.startswith("1\n2\n3\n") and "[REDACTED GITHUB_TOKEN]" in output
    assert "characters left out" in output
    saved = Path(term_result["truncation"].split(" is saved at ")[1].split(":")[0])
    assert saved.parent.parent == home / "scratch"
    full = saved.read_text()
    assert full.splitlines()[199_999] == "200000" and GITHUB_TOKEN not in full
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    sent = [m["content"] for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    assert all(len(content) <= 30_000 for content in sent)


def test_chat_q_refuses_the_files_tools_writes_of_what_runs_later_outside_the_sandbox(
    home: Path, place: dict[str, Path], llm: FakeLLM, tmp_path: Path, chat
) -> None:
    """A4-3: write_file on the repository's config and hooks, `.envrc`, `.vscode/` and a
    `hermes_tui` package is asked about, so `chat -q` refuses it: the user's next `git commit`
    and `python -m hermes_tui --version` there run nothing the model planted."""
    write_config(home, llm.openai_url)
    work = place["work"]
    env = cli_env(HOME=str(place["user"]), GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
    mark = tmp_path / "PWN"
    writes = {
        ".git/config": f"[core]\n\tbare = false\n\tfsmonitor = touch {mark}_fsmon; false\n",
        ".git/hooks/pre-commit": f"#!/bin/sh\ntouch {mark}_hook\n",
        ".envrc": f"touch {mark}_envrc\n",
        ".vscode/tasks.json": '{"tasks": [{"runOptions": {"runOn": "folderOpen"}}]}\n',
        "hermes_tui/__main__.py": f"open('{mark}_main', 'w')\n",
        "hermes_tui/__init__.py": "",
    }
    calls = [("write_file", {"path": p, "content": c}) for p, c in writes.items()]
    llm.script(Reply(tool_calls=calls), Reply(text="Done."))
    result = chat(home, place["user"], work, "set the project up")
    assert result.returncode == 0, result.stderr
    git = ["git", "-c", "user.email=u@x", "-c", "user.name=u"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=work, env=env)
    version = [sys.executable, "-m", "hermes_tui", "--version"]
    subprocess.run(version, cwd=work, env=env, capture_output=True, timeout=60)
    assert list(tmp_path.glob("PWN*")) == []
    assert not any((work / p).exists() for p in writes if p != ".git/config")
    assert "runs later outside the sandbox: direnv runs it" in result.stderr
