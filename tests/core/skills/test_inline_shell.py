"""Hermes' inline shell in skills (!`command`): off unless skills.inline_shell is true, and then
run through the terminal tool, its policy, approval mode and approvals (issue 28, Deliver 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime, run_main, skill_text, write_config, write_skill

from hermes_tui.core.skills.runtime import expand_inline_shell
from hermes_tui.core.tools.registry import ToolContext


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


BODY = (
    "# Steps\n\nBranch: !`echo inline-ok`\n\nClean: !`touch {marker}`\n"
    "Home: !`ls {home}/skills`\n"
    "Again: !`echo inline-ok`\n"
)


def _skill(home: Path, marker: Path) -> None:
    text = skill_text("snippets", body=BODY.format(marker=marker, home=home))
    write_skill(home / "skills", "snippets", text=text)


def test_snippets_are_replaced_by_the_runners_answer_each_command_once() -> None:
    ran: list[str] = []

    def run(command: str) -> dict:
        ran.append(command)
        if command == "false":
            return {"success": True, "output": "", "exit_code": 1}
        if command.startswith("rm"):
            return {"success": False, "error": "not run: \x1b[31mneeds approval\n"}
        return {"success": True, "output": "x" * 5000, "exit_code": 0}

    text = expand_inline_shell("a !`echo` b !`echo` c !`false` d !`rm -rf /`", run)
    assert ran == ["echo", "false", "rm -rf /"]
    assert text.count("x" * 4000) == 2 and "x" * 4001 not in text
    assert "c [inline-shell error: exit 1] d [inline-shell error: not run:" in text


def test_off_by_default_the_snippets_stay_as_written(home: Path, llm: FakeLLM, tmp_path) -> None:
    marker = tmp_path / "marker"
    _skill(home, marker)
    runtime = open_runtime(home, llm.openai_url)
    registry = runtime.tool_registry()
    viewed = registry.call("skill_view", {"name": "snippets"}, ToolContext(cwd=tmp_path))
    assert "!`echo inline-ok`" in viewed["content"]
    text = runtime.skill_invocation("snippets", "go", None, (registry, ToolContext(cwd=tmp_path)))
    assert "!`echo inline-ok`" in text and not marker.exists()


def test_on_they_run_through_the_terminal_policy(home: Path, llm: FakeLLM, tmp_path) -> None:
    marker = tmp_path / "marker"
    _skill(home, marker)
    runtime = open_runtime(home, llm.openai_url, skills={"inline_shell": True})
    registry = runtime.tool_registry()
    # No one to approve (deny_all), strict mode: read-only commands run, the rest is refused.
    context = ToolContext(cwd=tmp_path, workdir=tmp_path, approval_mode="strict")
    viewed = registry.call("skill_view", {"name": "snippets"}, context)
    assert "Branch: inline-ok" in viewed["content"]
    assert "Clean: [inline-shell error: not run" in viewed["content"]
    assert "Home: [inline-shell error: not run" in viewed["content"]
    assert not marker.exists()


def test_chat_s_runs_the_snippets_of_a_preloaded_skill(
    home: Path, llm: FakeLLM, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "marker"
    _skill(home, marker)
    write_config(home, llm.openai_url, skills={"inline_shell": True})
    llm.script(Reply(text="Done."))
    done = run_main(
        capsys, home, "chat", "-s", "snippets", "-q", "go", cwd=tmp_path, OPENAI_API_KEY="k"
    )
    assert done.returncode == 0, done.stderr
    sent = llm.requests[-1].last_user_text
    # Reaching the hermes home asks in every mode; chat -q without --yolo refuses it.
    assert "Branch: inline-ok" in sent and "Home: [inline-shell error: not run" in sent
