"""An MCP call whose arguments name a path the sandbox hides from commands (a notes or
filesystem server given `~`: `~/.ssh`, another project's `.env`, the hermes home's `.env`) is
asked of the user first, each time; a refusal runs nothing and returns nothing of the file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.mcp import McpManager
from hermes_tui.core.tools.mcp_config import parse_servers
from hermes_tui.core.tools.registry import ToolContext

FAKE = str(Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py")
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- Zk9vQmFyU2VjcmV0S2V5"


def test_a_call_naming_a_hidden_path_is_asked_and_a_refusal_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, work, hermes = tmp_path / "user", tmp_path / "user" / "proj", tmp_path / "hermes"
    for folder in (user / ".ssh", user / "other", work, hermes):
        folder.mkdir(parents=True)
    (user / ".ssh" / "id_ed25519").write_text(KEY)
    (user / "other" / ".env").write_text("OTHER_TOKEN=abc123secret\n")
    (hermes / ".env").write_text("OPENAI_API_KEY=sk-hermes\n")
    (tmp_path / "srv" / "other").mkdir(parents=True)  # a project outside the home (/srv, /work)
    (tmp_path / "srv" / "other" / ".env.local").write_text("SRV_TOKEN=abc123secret\n")
    (work / "README.md").write_text("readme\n")
    (work / ".env").write_text("LOCAL=1\n")
    monkeypatch.setenv("HOME", str(user))
    servers = {"notes": {"command": sys.executable, "args": [FAKE, "notes"]}}
    manager = McpManager(parse_servers(servers, {}), home=hermes)
    manager.start()
    asked: list[str] = []
    answer = {"value": "deny"}

    def ask(request) -> str:
        asked.append(request.reason)
        assert request.grant is None  # once only: a secret is named every time
        return answer["value"]

    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(ask))
    try:
        (read,) = [t for t in manager.freeze() if t.name == "mcp__notes__read_note"]
        refused = [
            read.handler({"path": path}, context)
            for path in (
                "~/.ssh/id_ed25519",
                f"file://{user}/.ssh/id_ed25519",
                str(user / "other" / ".env"),
                f"{work}/../.ssh/id_ed25519",
                str(hermes / ".env"),
                str(tmp_path / "srv" / "other" / ".env.local"),
                # relative: the server starts in `/`
                str(user / ".ssh" / "id_ed25519").lstrip("/"),
            )
        ]
        ordinary = read.handler({"path": str(work / "README.md")}, context)
        own_env = read.handler({"path": str(work / ".env")}, context)
        answer["value"] = "once"
        allowed = read.handler({"path": str(user / ".ssh" / "id_ed25519")}, context)
    finally:
        manager.stop()

    assert all(r["success"] is False and "did not allow" in r["error"] for r in refused), refused
    assert not any(KEY in str(r) or "abc123secret" in str(r) for r in refused)
    assert len(asked) == 8 and "which the sandbox hides from commands" in asked[0]
    assert ordinary["content"] == "readme\n" and own_env["content"] == "LOCAL=1\n"
    assert allowed["content"] == KEY  # the user said yes


def test_a_call_naming_the_homes_startup_files_is_asked_and_a_refusal_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """attack9's A9-18: a filesystem server rooted at ~ wrote ~/.gitconfig's core.fsmonitor
    unasked, and the user's next git status anywhere ran it. The home's dot entries and ~/bin
    (what the sandbox keeps read-only to a command started in ~) are asked about, as written or
    where a link there leads; a project inside a dot folder is the working directory's."""
    user = tmp_path / "user"
    work = user / ".config" / "nvim"  # the session's project lies in a dot folder
    (user / "dotfiles").mkdir(parents=True)
    work.mkdir(parents=True)
    (user / "dotfiles" / "bashrc").write_text("# mine\n")
    (user / ".bashrc").symlink_to("dotfiles/bashrc")
    monkeypatch.setenv("HOME", str(user))
    servers = {"fs": {"command": sys.executable, "args": [FAKE, "files"]}}
    manager = McpManager(parse_servers(servers, {}), home=tmp_path / "hermes")
    manager.start()
    asked: list[str] = []
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(lambda r: asked.append(r.reason) or "deny")
    )
    planted = '[core]\n\tfsmonitor = "touch /tmp/x; false"\n'
    try:
        (write,) = [t for t in manager.freeze() if t.name == "mcp__fs__write_file"]
        refused = [
            write.handler({"path": path, "content": planted}, context)
            for path in (
                "~/.gitconfig",
                str(user / ".bashrc"),
                str(user / "bin" / "git"),
                # A9-13: hermes-tui's own home, wherever it lies (a skill there is in every prompt)
                str(tmp_path / "hermes" / "skills" / "x" / "SKILL.md"),
                str(tmp_path / "hermes"),
            )
        ]
        notes = write.handler({"path": str(user / "notes.txt"), "content": "n"}, context)
        project = write.handler({"path": str(work / "init.lua"), "content": "x"}, context)
    finally:
        manager.stop()

    assert all(r["success"] is False and "did not allow" in r["error"] for r in refused), refused
    assert len(asked) == 5 and "startup files" in asked[0] and "own home" in asked[3]
    assert not (tmp_path / "hermes" / "skills").exists()
    assert not (user / ".gitconfig").exists() and not (user / "bin").exists()
    assert (user / "dotfiles" / "bashrc").read_text() == "# mine\n"
    assert notes["success"] is not False and project["success"] is not False, (notes, project)
