"""ATTACK.md A4-9 (its open half) and A4-29 by outcome: config.yaml holds tokens where MCP
servers' READMEs tell users to put them (after `--api-key` in `args`, in the `url`'s query, a
password in a DATABASE_URL under a plain env name) and Hermes' own `model.api_key`; `.env`
holds a secret that begins with `/`. A command prints them all (a copy, a server's log): what
the fake provider receives next and what sessions.db keeps hold labels only, and an ordinary
path and URL in the same output come through unchanged."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

ARG_KEY, QUERY_KEY, DB_PASSWORD = "Bx9qLm2ZtR7wPk4s", "Ur4kTq8zWn2vLx6p", "Pq7wRt2xLm9zKs4v"
MODEL_KEY, SLASHED = "Hk7vLq2ZtR9wPx4sMn8B", "/Zk9aB3+Qw/eRt7uIoPl2Xc"
# attack5's A5-5: mcp-remote's --header, a Basic header, a URL whose path is the token.
HEADER_KEY, BASIC = "Hd4ayc80OGda4BO1", "ZGVwbG95OlJiNGF5YzgwT0dkYTRCTw=="
PATH_TOKEN = "ODk2ZGQ1YTEtZWJkMi00YjQ1LWE3"
SECRETS = (ARG_KEY, QUERY_KEY, DB_PASSWORD, MODEL_KEY, SLASHED, HEADER_KEY, BASIC, PATH_TOKEN)


def test_config_yaml_and_dotenv_secrets_reach_neither_provider_nor_sessions_db(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    ordinary = "see /usr/share/X11/xkb and https://example.com/docs"
    (project / "printed.txt").write_text("\n".join([*SECRETS, ordinary]) + "\n")
    (home / ".env").write_text(f"HMAC_KEY={SLASHED}\n")
    with FakeLLM() as llm:
        write_config(home, llm.openai_url, memory={"nudge_interval": 0})
        config = yaml.safe_load((home / "config.yaml").read_text())
        config["model"]["api_key"] = MODEL_KEY  # Hermes' key, not ours: ignored, still secret
        config["mcp_servers"] = {
            "search": {"command": "search-mcp", "args": ["--api-key", ARG_KEY], "enabled": False},
            "remote": {"url": f"https://mcp.example.com/sse?apikey={QUERY_KEY}", "enabled": False},
            "bridge": {
                "command": "npx",
                "args": [
                    "mcp-remote",
                    "https://mcp.example.com/sse",
                    "--header",
                    f"X-API-Key: {HEADER_KEY}",
                    "--header",
                    f"Authorization:Basic {BASIC}",
                ],
                "enabled": False,
            },
            "zapier": {
                "url": f"https://mcp.zapier.com/api/mcp/s/{PATH_TOKEN}/mcp",
                "enabled": False,
            },
            "db": {
                "command": "db-mcp",
                "env": {"DATABASE_URL": f"postgres://app:{DB_PASSWORD}@db/app"},
                "enabled": False,
            },
        }
        (home / "config.yaml").write_text(yaml.safe_dump(config))
        llm.script(
            Reply(tool_calls=[("terminal", {"command": "cat printed.txt"})]), Reply(text="ok")
        )
        done = run_main(capfd, home, "chat", "-q", "print", "--yolo", cwd=project)
        assert done.returncode == 0, done.stderr
        tool = next(m for m in llm.requests[1].body["messages"] if m["role"] == "tool")
        sent = json.dumps([r.body for r in llm.requests], ensure_ascii=False)
    output = json.loads(tool["content"])["output"]
    stored = "\n".join(sqlite3.connect(home / "sessions.db").iterdump())
    for secret in SECRETS:
        for where, text in (("provider", sent), ("sessions.db", stored), ("stdout", done.stdout)):
            assert secret not in text, (secret, where)
    assert output.count("[REDACTED") == len(SECRETS), output
    assert ordinary in output


def test_a_hermes_homes_auth_tokens_are_known_secrets(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A7-15: a Hermes Agent home's credential pool (auth.json) is out of the sandbox's sight;
    a copy of its tokens elsewhere (a backup, a log) is redacted like .env's values."""
    access, refresh = "Ha7AccessTokQw9Lz2Tx7Kv4Nm3Rb", "Ha7RefreshTokPz8Wq3Lx6Kt2Vn9Mb"
    pool = {"openai-codex": [{"access_token": access, "refresh_token": refresh}]}
    (home / "auth.json").write_text(json.dumps({"version": 1, "credential_pool": pool}))
    project = tmp_path / "project"
    project.mkdir()
    (project / "copy.txt").write_text(f"{access}\n{refresh}\nauth_mode chatgpt\n")
    with FakeLLM() as llm:
        write_config(home, llm.openai_url, memory={"nudge_interval": 0})
        llm.script(Reply(tool_calls=[("terminal", {"command": "cat copy.txt"})]), Reply(text="ok"))
        done = run_main(capfd, home, "chat", "-q", "print", "--yolo", cwd=project)
        assert done.returncode == 0, done.stderr
        sent = json.dumps([r.body for r in llm.requests], ensure_ascii=False)
    assert access not in sent and refresh not in sent
    assert "auth_mode chatgpt" in sent  # the rest of the output comes through
