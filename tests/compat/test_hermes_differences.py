"""Behaviours where hermes-tui differs from Hermes Agent on purpose (README, "Differences from
Hermes"), each as Hermes' expectation marked strict xfail: if we ever start to behave like
Hermes, the mark fails and the README must change with it (issue 28, Deliver 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import skill_text, write_skill

from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.core.tools.skills import make_skill_tools


@pytest.mark.xfail(
    strict=True,
    reason="deliberate difference (README: duplicate names): the first found keeps the name and "
    "the other is addressed by its path, where Hermes' skill_view refuses as ambiguous",
)
def test_hermes_refuses_an_ambiguous_duplicate_name(home: Path) -> None:
    write_skill(home / "skills" / "ops", "deploy", text=skill_text("deploy"))
    write_skill(home / "skills" / "web", "deploy", text=skill_text("deploy"))
    view = {t.name: t for t in make_skill_tools(SkillLibrary(home / "skills"))}["skill_view"]
    result = view.handler({"name": "deploy"}, ToolContext())
    assert result["success"] is False and "Ambiguous" in result["error"]


@pytest.mark.xfail(
    strict=True,
    reason="deliberate difference (README: inline shell): a snippet runs as a terminal tool call "
    "of the conversation, in its working directory (the sandbox's workspace), where Hermes runs "
    "it on the host in the skill's folder",
)
def test_hermes_runs_inline_shell_in_the_skills_folder(home: Path, tmp_path: Path) -> None:
    from helpers import open_runtime

    write_skill(home / "skills", "where", text=skill_text("where", body="At: !`pwd`\n"))
    runtime = open_runtime(home, "http://127.0.0.1:9/v1", skills={"inline_shell": True})
    context = ToolContext(cwd=tmp_path, workdir=tmp_path, approval_mode="strict")
    viewed = runtime.tool_registry().call("skill_view", {"name": "where"}, context)
    assert f"At: {home / 'skills' / 'where'}" in viewed["content"]
