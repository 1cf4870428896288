"""`hermes-tui mcp list | test` and the doctor's MCP lines, as a user runs them (through cli.main
in this process, output captured at the file descriptors; the MCP servers are processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import run_main

FAKE = str(Path(__file__).resolve().parent / "fakes" / "mcp_server.py")


@pytest.fixture
def run(capfd: pytest.CaptureFixture[str]):
    def hermes(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, *args)

    return hermes


def configure(home: Path) -> None:
    servers = {
        "tools": {"command": sys.executable, "args": [FAKE], "tools": {"exclude": ["die"]}},
        "slow": {"command": sys.executable, "args": [FAKE, "slow-start"], "connect_timeout": 1},
    }
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))


def test_mcp_list_reports_each_server_and_doctor_shows_the_stderr_tail(home: Path, run) -> None:
    configure(home)
    done = run("mcp", "list", "--json", home=home)
    assert done.returncode == 1  # one server failed
    rows = {row["name"]: row for row in json.loads(done.stdout)["servers"]}
    assert rows["tools"]["status"] == "ready"
    assert rows["tools"]["tool_names"] == [
        "mcp__tools__echo",
        "mcp__tools__boom",
        "mcp__tools__sleepy",
        "mcp__tools__links",
    ]
    assert rows["slow"]["status"] == "failed"
    assert rows["slow"]["error"] == "did not start within 1 s"

    doctor = run("doctor", home=home)
    assert "[ok  ] mcp tools: stdio, 5 tools" in doctor.stdout
    assert "[FAIL] mcp slow: did not start within 1 s" in doctor.stdout
    assert "stderr: fake-tools starting in slow-start mode" in doctor.stdout


def test_mcp_test_starts_one_server_and_prints_its_schemas(home: Path, run) -> None:
    configure(home)
    done = run("mcp", "test", "tools", home=home)
    assert done.returncode == 0, done.stderr
    assert "✓ tools  [stdio, ready, 5 tools]" in done.stdout
    assert "mcp__tools__sleepy\n        seconds*: number" in done.stdout
    assert "slow" not in done.stdout
    missing = run("mcp", "test", "nope", home=home)
    assert missing.returncode == 2
    assert "no MCP server named 'nope' (configured: slow, tools)" in missing.stderr


def test_without_servers_mcp_list_says_how_to_add_one(home: Path, run) -> None:
    done = run("mcp", "list", home=home)
    assert done.returncode == 0 and "add `mcp_servers:` to config.yaml" in done.stdout


def test_mcp_list_says_which_tools_sessions_leave_out_and_why(home: Path, run) -> None:
    """A tool whose description the scanner refuses is not offered to the model (A7-11); the
    listing names it as left out instead of among the server's tools without a word."""
    servers = {"docs": {"command": sys.executable, "args": [FAKE, "docs"]}}
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))
    done = run("mcp", "list", home=home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    [forecast] = [line for line in lines if "mcp__docs__forecast" in line]
    assert "(left out of sessions: reads as instructions to the model" in forecast
    assert "    mcp__docs__echo" in lines  # the others are listed as before


def test_doctor_warns_about_a_server_given_the_whole_home_or_root(home: Path, run) -> None:
    """attack9's A9-18: a filesystem server "to see my files" reads and writes there outside
    the sandbox."""
    servers = {
        "wide": {"command": sys.executable, "args": [FAKE, "where", "/"]},
        "narrow": {"command": sys.executable, "args": [FAKE, "where", str(home)]},
    }
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))
    doctor = run("doctor", home=home)
    assert "[warn] mcp wide: is given /: it reads and writes everything there" in doctor.stdout
    assert "mcp narrow: is given" not in doctor.stdout
