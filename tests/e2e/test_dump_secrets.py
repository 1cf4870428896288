"""ATTACK4 A4-5 by outcome: a file in the project holds a `.env` secret, and the model dumps it
with the everyday tools' default output (od, xxd, hexdump, basenc, a program printing its
bytes). What the provider receives next, and what sessions.db keeps, hold none of the dumps'
lines, only the label; a dump of a binary without the secret reaches the provider whole. The
chat runs through cli.main in this process (its output captured at the file descriptors), the
dumps as the terminal tool's processes."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

KEY = "Vr7kumquatSecret55aa19xq"
COMMANDS = [
    "od -c secret.txt",
    "od -An -tx1 secret.txt",
    "od -x secret.txt",
    "od -An -tu1 secret.txt",
    "xxd -i secret.txt",
    "xxd -b secret.txt",
    "xxd -c 4 secret.txt",
    "hexdump secret.txt",
    "basenc --base32hex secret.txt",
    "basenc --z85 secret.txt",
    "basenc --base2msbf secret.txt",
    'python3 -c \'print(list(open("secret.txt", "rb").read()))\'',
]


def installed(command: str) -> bool:
    return shutil.which(command.split()[0]) is not None


def test_dumps_of_a_known_secret_reach_neither_the_provider_nor_sessions_db(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "secret.txt").write_text(KEY)  # 24 bytes: z85 takes whole groups of four
    (project / "blob.bin").write_bytes(Path(shutil.which("ls") or "/bin/ls").read_bytes()[:512])
    (home / ".env").write_text(f"DB_TOKEN={KEY}\n")
    commands = [command for command in COMMANDS if installed(command)]
    ordinary = "od -x blob.bin" if installed("od") else "python3 -c 'print(1)'"
    # What each command prints, its offsets and numbers as the provider would get them.
    printed = [
        subprocess.run(c, shell=True, cwd=project, capture_output=True, text=True).stdout
        for c in [*commands, ordinary]
    ]
    with FakeLLM() as llm:
        write_config(llm_home := home, llm.openai_url, memory={"nudge_interval": 0})
        llm.script(
            Reply(tool_calls=[("terminal", {"command": c}) for c in [*commands, ordinary]]),
            Reply(text="done"),
        )
        done = run_main(capfd, llm_home, "chat", "-q", "dump it", "--yolo", cwd=project)
        assert done.returncode == 0, done.stderr
        tools = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    assert len(tools) == len(commands) + 1
    stored = "\n".join(sqlite3.connect(home / "sessions.db").iterdump())
    sent = json.dumps(llm.requests[1].body, ensure_ascii=False)
    for command, output, message in zip(commands, printed, tools, strict=False):
        got = json.loads(message["content"]).get("output", message["content"])
        assert "[REDACTED DB_TOKEN]" in got, (command, got)
        # No line of the dump (its offset aside) reached the provider or the disk.
        for line in output.splitlines():
            data = line.split(None, 1)[-1].strip() if line[:1].isdigit() else line.strip()
            if len(data) >= 12 and "unsigned" not in data:
                assert data not in sent and data not in stored, (command, data)
    whole = json.loads(tools[-1]["content"]).get("output", tools[-1]["content"])
    assert whole.strip() == printed[-1].strip()  # an ordinary dump comes through as it was


HALVES = [
    "head -c 12 secret.txt | xxd -p",
    "tail -c +13 secret.txt | xxd -p",
    "head -c 12 secret.txt | base64",
    "tail -c +13 secret.txt | base64",
    "head -c 12 secret.txt | base32",
    "tail -c +13 secret.txt | base32",
    "head -c 12 secret.txt | rev",
    "base64 -w0 secret.txt | cut -c 1-16",
    "base64 -w0 secret.txt | cut -c 17-32",
]


def test_halves_of_a_known_secret_each_encoded_reach_neither_the_provider_nor_sessions_db(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """attack4's A4-5 addendum: two commands each print half, in hex, base64, base32 or
    reversed; the whole value so printed was redacted, each half was not."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "secret.txt").write_text(KEY)
    (home / ".env").write_text(f"DB_TOKEN={KEY}\n")
    commands = [c for c in HALVES if all(installed(p.split()[0]) for p in c.split("|"))]
    printed = [
        subprocess.run(c, shell=True, cwd=project, capture_output=True, text=True).stdout.strip()
        for c in commands
    ]
    with FakeLLM() as llm:
        write_config(home, llm.openai_url, memory={"nudge_interval": 0})
        llm.script(
            Reply(tool_calls=[("terminal", {"command": c}) for c in commands]), Reply(text="ok")
        )
        done = run_main(capfd, home, "chat", "-q", "print it", "--yolo", cwd=project)
        assert done.returncode == 0, done.stderr
        sent = json.dumps(llm.requests[1].body, ensure_ascii=False)
    stored = "\n".join(sqlite3.connect(home / "sessions.db").iterdump())
    assert len(commands) >= 4
    for command, output in zip(commands, printed, strict=True):
        assert len(output) >= 8 and output not in sent and output not in stored, (command, output)
