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
