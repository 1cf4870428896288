"""Hermes' skill features kept and honoured: frontmatter keys stay where Hermes reads them,
`platforms` gates a skill, required environment variables say what is missing, template
variables and skills.config reach the model (issue 28, Deliver 2 and 3)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.skills.requirements import runs_here
from hermes_tui.core.skills.runtime import SkillRuntimeSettings
from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.core.tools.skills import make_skill_tools

OTHER_OS = "windows" if not sys.platform.startswith("win") else "linux"

HERMES_SKILL = """---
name: notion-sync
description: Sync pages with Notion.
version: 1.2.0
author: someone
platforms: [{platforms}]
prerequisites:
  commands: [curl]
required_environment_variables:
  - name: NOTION_TOKEN
    prompt: Your Notion integration token
    help: https://www.notion.so/my-integrations
metadata:
  hermes:
    tags:
    - notes
---

# Steps

1. Run ${{HERMES_SKILL_DIR}}/scripts/sync.sh for session ${{HERMES_SESSION_ID}}.
"""


def _frontmatter(path: Path) -> dict:
    text = path.read_text()
    return yaml.safe_load(text.split("---\n", 2)[1])


def _library(home: Path, platforms: str = "linux, macos, windows") -> SkillLibrary:
    library = SkillLibrary(home / "skills")
    folder = home / "skills" / "productivity" / "notion-sync"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(HERMES_SKILL.format(platforms=platforms))
    return library


def _tools(library: SkillLibrary, **settings) -> dict:
    return {tool.name: tool for tool in make_skill_tools(library, SkillRuntimeSettings(**settings))}


def test_editing_a_hermes_skill_keeps_its_keys_at_the_top(home: Path) -> None:
    library = _library(home)
    library.patch("notion-sync", "1. Run", "1. First run", origin="user")
    after = _frontmatter(library.require("notion-sync").skill_md)
    for key in (
        "version",
        "author",
        "platforms",
        "prerequisites",
        "required_environment_variables",
    ):
        assert key in after, key
    assert "platforms" not in after["metadata"]["hermes"]
    assert after["required_environment_variables"][0]["name"] == "NOTION_TOKEN"
    # The author's flow-style list was not reshaped: nothing of theirs was rewritten.
    assert (
        "platforms: [linux, macos, windows]" in library.require("notion-sync").skill_md.read_text()
    )


def test_a_new_skill_still_keeps_non_spec_keys_under_metadata(home: Path) -> None:
    library = SkillLibrary(home / "skills")
    library.create(
        "fresh", "---\nname: fresh\ndescription: New.\nplatforms: [linux]\n---\n\nBody.\n"
    )
    after = _frontmatter(library.require("fresh").skill_md)
    assert "platforms" not in after and after["metadata"]["hermes"]["platforms"] == ["linux"]


def test_an_edit_adding_a_new_non_spec_key_moves_only_that_key(home: Path) -> None:
    library = _library(home)
    text = library.require("notion-sync").skill_md.read_text()
    library.edit("notion-sync", text.replace("author: someone", "author: someone\nowner: me"))
    after = _frontmatter(library.require("notion-sync").skill_md)
    assert after["author"] == "someone" and after["metadata"]["hermes"]["owner"] == "me"


def test_a_skill_for_another_os_is_left_out_of_the_index_and_list(home: Path) -> None:
    library = _library(home, platforms=OTHER_OS)
    skill = library.require("notion-sync")
    assert not runs_here(skill.document.frontmatter)
    assert "notion-sync" not in library.index(6000)
    listed = _tools(library)["skills_list"].handler({}, ToolContext())
    assert all(item["name"] != "notion-sync" for item in listed["skills"])
    viewed = _tools(library)["skill_view"].handler({"name": "notion-sync"}, ToolContext())
    assert "not this platform" in viewed["unsupported"]


def test_a_missing_required_variable_is_named_with_how_to_set_it(home: Path) -> None:
    library = _library(home)
    view = _tools(library, env_file=home / ".env")["skill_view"].handler(
        {"name": "notion-sync"}, ToolContext()
    )
    assert view["setup_needed"] is True
    assert view["missing_environment_variables"] == ["NOTION_TOKEN"]
    assert str(home / ".env") in view["setup_note"] and "my-integrations" in view["setup_note"]
    ready = _tools(library, environ={"NOTION_TOKEN": "x"})["skill_view"].handler(
        {"name": "notion-sync"}, ToolContext()
    )
    assert ready["setup_needed"] is False and "missing_environment_variables" not in ready


def test_template_variables_and_skill_config_reach_the_model(home: Path) -> None:
    library = _library(home)
    tools = _tools(library, skill_config={"notion-sync": {"workspace": "acme", "dry_run": True}})
    view = tools["skill_view"].handler({"name": "notion-sync"}, ToolContext(session_id="s-42"))
    folder = library.require("notion-sync").directory
    assert f"{folder}/scripts/sync.sh for session s-42" in view["content"]
    assert "skills.config.notion-sync" in view["content"] and "- workspace: acme" in view["content"]


@pytest.mark.parametrize("value", ["nope", {"notion-sync": ["a"]}])
def test_a_malformed_skill_config_is_a_config_error(home: Path, value) -> None:
    from hermes_tui.config import ConfigError, load_config

    (home / "config.yaml").write_text(yaml.safe_dump({"skills": {"config": value}}))
    with pytest.raises(ConfigError, match="skills.config"):
        load_config(home, None, {})


def test_name_slash_skill_md_is_the_main_file_as_in_hermes(home: Path) -> None:
    library = _library(home)
    library.patch(
        "notion-sync", "1. Run", "1. Then run", file_path="notion-sync/SKILL.md", origin="user"
    )
    assert "1. Then run" in library.require("notion-sync").skill_md.read_text()
    view = library.view("notion-sync", "notion-sync/SKILL.md", record=False)
    assert "1. Then run" in view.content and view.file_path is None and view.frontmatter
