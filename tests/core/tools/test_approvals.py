"""The one approval protocol (core/tools/approvals.py), judged by what ran: a session answer
grants exactly what the request named, the grant is held by the conversation, and a link
planted later or a different sudo line is asked about again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import ApprovalRequest, Approvals, McpGrant, PathGrant
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

needs_bwrap = pytest.mark.skipif(not probe("auto").active, reason="no bubblewrap sandbox here")


class Human:
    """Answers from a script, and remembers every question it was put."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> str:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else "deny"


def _terminal(work: Path, human: Human, mode: str = "sandboxed", **settings):
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(**settings)))
    context = ToolContext(
        cwd=work,
        workdir=work,
        approvals=Approvals(human),
        approval_mode=mode,  # type: ignore[arg-type]
    )
    return registry, context


def _run(registry, context, command: str) -> dict:
    return registry.call("terminal", {"command": command, "timeout": 30}, context)


def test_a_session_answer_is_kept_and_answers_the_same_request_again() -> None:
    human = Human("session")
    approvals = Approvals(human)
    request = ApprovalRequest("write_file /srv/notes.md", "files", ("outside",), None)
    granted = ApprovalRequest(
        "mcp gh.create_issue {}", "mcp", ("asks before every call",), McpGrant("gh", "create_issue")
    )
    assert approvals.ask(request) and approvals.held() == []  # once-only: kept nothing
    human.answers = ["session"]
    assert approvals.ask(granted)
    again = ApprovalRequest('mcp gh.create_issue {"title": "b"}', "mcp", ("…",), granted.grant)
    assert approvals.ask(again) and len(human.asked) == 2  # not asked again
    other = ApprovalRequest("mcp gh.delete_repo {}", "mcp", ("…",), McpGrant("gh", "delete_repo"))
    assert not approvals.ask(other) and len(human.asked) == 3
    assert approvals.held() == [McpGrant("gh", "create_issue")]


def test_a_face_that_fails_to_ask_has_not_said_yes() -> None:
    def broken(_request: ApprovalRequest) -> str:
        raise RuntimeError("the dialog crashed")

    request = ApprovalRequest("x", "mcp", ("y",), McpGrant("a", "b"))
    assert not Approvals(broken).ask(request) and not Approvals().ask(request)


def test_a_path_grant_names_the_real_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    approvals = Approvals(Human("session"))
    assert approvals.ask(
        ApprovalRequest(
            "read", "files", ("outside",), PathGrant("read_file", str(tmp_path / "alias"))
        )
    )
    assert approvals.held() == [PathGrant("read_file", str(real))]
    assert approvals.holds(PathGrant("read_file", str(real)))


def test_files_outside_the_roots_ask_once_per_real_path_and_tool(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "a.txt").write_text("alpha\n")
    (outside / "b.txt").write_text("beta\n")
    human = Human("session")
    registry = ToolRegistry(make_file_tools())
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(human))
    read = lambda path: registry.call("read_file", {"path": str(path)}, context)  # noqa: E731
    assert "alpha" in read(outside / "a.txt")["content"]
    assert "alpha" in read(outside / "a.txt")["content"] and len(human.asked) == 1
    assert "grants" not in human.asked[0].what and human.asked[0].grants == (
        f"read_file on {outside / 'a.txt'}"
    )
    refused = read(outside / "b.txt")  # another file: asked again, and refused
    assert refused["denied"] and "beta" not in str(refused) and len(human.asked) == 2
    written = registry.call(
        "write_file", {"path": str(outside / "a.txt"), "content": "changed\n"}, context
    )
    assert written["denied"] and (outside / "a.txt").read_text() == "alpha\n"


@needs_bwrap
def test_a_link_planted_after_a_path_grant_does_not_widen_it(tmp_path: Path) -> None:
    work, out = tmp_path / "work", tmp_path / "out"
    scratch, precious = out / "scratch", out / "precious"
    for folder in (work, scratch, precious):
        folder.mkdir(parents=True)
    (scratch / "old.log").write_text("old\n")
    (precious / "data.txt").write_text("keep me\n")
    human = Human("session")
    registry, context = _terminal(work, human, writable_roots=(out,))
    # The user allows deleting under out/scratch for the session...
    assert _run(registry, context, f"rm -rf {scratch}/old.log")["success"]
    assert not (scratch / "old.log").exists() and len(human.asked) == 1
    assert human.asked[0].grants == f"rm on {scratch}/old.log"
    (scratch / "tmp").mkdir()
    human.answers = ["session"]
    assert _run(registry, context, f"rm -rf {scratch}")["success"]  # the folder itself
    scratch.mkdir()
    (scratch / "new.log").write_text("new\n")
    assert _run(registry, context, f"rm -rf {scratch}/new.log")["success"]
    assert len(human.asked) == 2  # under the granted folder: not asked again
    # ...then a link inside it is planted towards a folder the user never allowed.
    (scratch / "link").symlink_to(precious)
    refused = _run(registry, context, f"rm -rf {scratch}/link/data.txt")
    assert refused["denied"] and len(human.asked) == 3
    assert (precious / "data.txt").read_text() == "keep me\n"
    # The same grant still covers a real path under it.
    (scratch / "real.log").write_text("x\n")
    assert _run(registry, context, f"rm -rf {scratch}/real.log")["success"]
    assert len(human.asked) == 3 and not (scratch / "real.log").exists()


@pytest.mark.parametrize("mode", ["sandboxed", "strict"])
def test_a_sudo_grant_covers_that_exact_command_line_only(tmp_path: Path, mode: str) -> None:
    work = tmp_path / "work"
    (work / "bin").mkdir(parents=True)
    sudo = work / "bin" / "sudo"  # a stand-in that runs its arguments, as sudo would as root
    sudo.write_text('#!/bin/sh\nexec "$@"\n')
    sudo.chmod(0o755)
    environ = {"PATH": f"{work / 'bin'}:{os.environ['PATH']}", "HOME": str(tmp_path)}
    human = Human("session")
    registry, context = _terminal(work, human, mode, environ=environ)
    assert _run(registry, context, "sudo touch made-a")["success"]
    assert (work / "made-a").exists() and len(human.asked) == 1
    assert "sudo touch made-a" in str(human.asked[0].grants)
    (work / "made-a").unlink()
    assert _run(registry, context, "sudo touch made-a")["success"]  # the same line: granted
    assert (work / "made-a").exists() and len(human.asked) == 1
    for other in ("sudo touch made-b", "sudo touch made-a made-b", "sudo rm -f made-a"):
        refused = _run(registry, context, other)
        assert refused["denied"], other
    assert len(human.asked) == 4
    assert (work / "made-a").exists() and not (work / "made-b").exists()
