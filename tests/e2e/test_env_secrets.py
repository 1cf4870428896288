"""ATTACK.md A4-24, A4-29 by outcome: the user's environment holds secrets under names without
KEY/TOKEN/SECRET/PASSWORD (a database URL with its password, a webhook, a Sentry DSN, GITHUB_PAT,
a session cookie, …) and the model runs `env`. The command's environment has none of them (the
sandbox's scrub and the redaction use one recogniser, core/redaction/recognise.py), what the
fake provider receives next and what sessions.db keeps hold none of their values, and the
ordinary variables (PATH, HOME, LANG, TERM, XDG_*, a plain URL) reach the command unchanged. A
variable the user passes through (terminal.env_passthrough) reaches the command and is still
redacted. The chat runs through cli.main in this process, `env` as the terminal tool's process."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

# name -> (value, the secret part a leak would show: the value itself or what it carries)
SECRETS = {
    "DATABASE_URL": ("postgres://app:Pq7wRt2xLm9zKs4v@db.example.net/app", "Pq7wRt2xLm9zKs4v"),
    "MONGODB_URI": ("mongodb+srv://app:Mg7wLq2xRt9zKp4v@c0.example.net/db", "Mg7wLq2xRt9zKp4v"),
    "REDIS_ADDR": ("redis://:Rd5kLq8wMz3xTv7p@cache:6379/0", "Rd5kLq8wMz3xTv7p"),
    "SLACK_HOOK": (
        "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/Wh8kQz2LmX7tR9vNp4Ys6Bc1",
        "Wh8kQz2LmX7tR9vNp4Ys6Bc1",
    ),
    "SENTRY_DSN": (
        "https://9f8e7d6c5b4a39281706f5e4d3c2b1a0@o123456.ingest.sentry.io/1234567",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    "SEARCH_ENDPOINT": (
        "https://api.search.example/v1?apikey=Ur4kTq8zWn2vLx6p",
        "Ur4kTq8zWn2vLx6p",
    ),
    "GITHUB_PAT": ("Gp9qLm2ZtR7wPk4sXy8Vb3Nc", "Gp9qLm2ZtR7wPk4sXy8Vb3Nc"),
    "STRIPE_SK": ("St7kQ9wLz4Xt8Rv5Mp3Bq6Hy", "St7kQ9wLz4Xt8Rv5Mp3Bq6Hy"),
    "AUTH_HEADER": ("Ah8Lq3Wz7Tk2Xv9Rm5NpQs4", "Ah8Lq3Wz7Tk2Xv9Rm5NpQs4"),
    "NPM_CONFIG__AUTH": ("bnBtOnNlY3JldDEyMzQ1Njc4OTA=", "bnBtOnNlY3JldDEyMzQ1Njc4OTA="),
    "SESSION_COOKIE": ("Sc4Mw8Qz2Lt6Xk9Vp3BnRt7", "Sc4Mw8Qz2Lt6Xk9Vp3BnRt7"),
    "AOC_SESSION": ("53616c7465645f5fa3b9c1d2e4f60718", "53616c7465645f5fa3b9c1d2e4f60718"),
    "ENCRYPTION_SALT": ("Es5Nk2Qw8Lz3Xt7Rv9Mp4Bq", "Es5Nk2Qw8Lz3Xt7Rv9Mp4Bq"),
    "TWILIO_SID": ("AC1234567890abcdef1234567890abcd", "AC1234567890abcdef1234567890abcd"),
    "APP_PRIVATE_PEM_B64": ("UHJpdjhLZXk5UXc0THo3WHQyUnY=", "UHJpdjhLZXk5UXc0THo3WHQyUnY="),
    "MYSQL_PWD": ("My7pQw2Lz9Xk4Rt", "My7pQw2Lz9Xk4Rt"),
    # A4-29: a secret that begins like a path (about one base64 secret in 64 starts with `/`).
    "AWS_SECRET_ACCESS_KEY": ("/Zk9aB3+Qw/eRt7uIoPl2Xc", "/Zk9aB3+Qw/eRt7uIoPl2Xc"),
    "SIGNING_SECRET": ("~/sEcrZq9xWv3mLp", "~/sEcrZq9xWv3mLp"),
    # attack5 (A5-1, A5-2, A5-7): more names, and credentials inside values.
    "SSHPASS": ("Zqa4ayc80OGda4BO1oV0", "Zqa4ayc80OGda4BO1oV0"),
    "SLASH_URL": ("postgresql://app:Zk9a/B3Qw7eRt7uIo@db/app", "Zk9a/B3Qw7eRt7uIo"),
    "ODBC": ("Driver={ODBC 18};Server=db;UID=sa;PWD=Od4ayc80OGda4BO;", "Od4ayc80OGda4BO"),
    "SPRING_APPLICATION_JSON": (
        '{"spring.datasource.password": "Sp4ayc80OGda4BO"}',
        "Sp4ayc80OGda4BO",
    ),
    # A5-3: base64 of `user:pw` (a registry's basic auth).
    "REGISTRY_BASIC": ("ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw==", "ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw=="),
}
# What every shell has: reaches the command as it is.
ORDINARY = {
    "LANG": "C.UTF-8",
    "TERM": "xterm-256color",
    "EDITOR": "vim",
    "XDG_SESSION_TYPE": "wayland",
    "XDG_SESSION_ID": "2",
    "XDG_CONFIG_HOME": "/home/someone/.config",
    "DESKTOP_SESSION": "ubuntu",
    "GIT_AUTHOR_NAME": "Jane Doe",
    "GIT_AUTHOR_EMAIL": "jane@example.com",
    "HOMEPAGE_URL": "https://example.com",
    "PIP_INDEX_URL": "https://pypi.org/simple",
    "JAVA_HOME": "/usr/lib/jvm/java-17-openjdk-amd64",
    "TOKENIZERS_PARALLELISM": "false",
    "NEXTAUTH_URL": "http://localhost:3000",
}


def _chat(home: Path, project: Path, capfd: pytest.CaptureFixture[str], **terminal: object):
    with FakeLLM() as llm:
        write_config(home, llm.openai_url, memory={"nudge_interval": 0}, terminal=terminal)
        llm.script(
            Reply(tool_calls=[("terminal", {"command": "env; cat db.txt"})]),
            Reply(text="done"),
        )
        env = {name: value for name, (value, _) in SECRETS.items()} | ORDINARY
        done = run_main(capfd, home, "chat", "-q", "show env", "--yolo", cwd=project, **env)
        assert done.returncode == 0, done.stderr
        tool = next(m for m in llm.requests[1].body["messages"] if m["role"] == "tool")
        sent = json.dumps([r.body for r in llm.requests], ensure_ascii=False)
    output = json.loads(tool["content"]).get("output", "")
    stored = "\n".join(sqlite3.connect(home / "sessions.db").iterdump())
    return output, sent, stored, done


def test_env_shows_no_secret_and_keeps_ordinary_variables(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # A file holding the database URL's password alone (a copy, a script's print): known too.
    (project / "db.txt").write_text("password: Pq7wRt2xLm9zKs4v\n")
    output, sent, stored, done = _chat(home, project, capfd)
    lines = output.splitlines()
    for name, (value, part) in SECRETS.items():
        # The command's environment does not have it...
        assert not any(line.startswith(f"{name}=") for line in lines), (name, output)
        # ... and no road out carries it.
        for where, text in (("provider", sent), ("sessions.db", stored), ("stdout", done.stdout)):
            assert value not in text and part not in text, (name, where)
    assert "password: [REDACTED DATABASE_URL" in output
    for name, value in ORDINARY.items():
        assert f"{name}={value}" in lines, (name, output)


def test_a_passed_through_secret_reaches_the_command_and_stays_redacted(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "db.txt").write_text("nothing\n")
    output, sent, stored, _ = _chat(
        home, project, capfd, env_passthrough=["DATABASE_URL", "GITHUB_PAT"]
    )
    lines = output.splitlines()
    assert "DATABASE_URL=[REDACTED DATABASE_URL]" in lines, output
    assert "GITHUB_PAT=[REDACTED GITHUB_PAT]" in lines, output
    assert not any(line.startswith("SENTRY_DSN=") for line in lines)
    for value, part in SECRETS.values():
        assert value not in sent and part not in sent and part not in stored


def test_git_config_from_the_environment_keeps_git_working(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A5-4: GIT_CONFIG_KEY_0 (a key's name) scrubbed while GIT_CONFIG_COUNT stayed made every
    sandboxed git fail ("unable to parse command-line config")."""
    project = tmp_path / "project"
    project.mkdir()
    git = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
    with FakeLLM() as llm:
        write_config(home, llm.openai_url, memory={"nudge_interval": 0})
        command = "git init -q r && git -C r status && git config --get safe.directory"
        llm.script(Reply(tool_calls=[("terminal", {"command": command})]), Reply(text="ok"))
        done = run_main(capfd, home, "chat", "-q", "git", "--yolo", cwd=project, **git)
        assert done.returncode == 0, done.stderr
        tool = next(m for m in llm.requests[1].body["messages"] if m["role"] == "tool")
    result = json.loads(tool["content"])
    assert result.get("exit_code") == 0, result
    assert "On branch" in result["output"] and result["output"].rstrip().endswith("*")
