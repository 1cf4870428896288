"""The skills toolset as the model calls it: JSON in, JSON out, errors that say what to do."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.skills import make_skill_tools

SKILL = "---\nname: {name}\ndescription: Deploy the app.\n---\n\n# Steps\n\n1. Build.\n2. Push.\n"


def _registry(home: Path) -> tuple[ToolRegistry, SkillLibrary]:
    library = SkillLibrary(home / "skills")
    return ToolRegistry(make_skill_tools(library)), library


def test_schemas_name_the_actions_and_required_fields(home: Path) -> None:
    registry, _ = _registry(home)
    schemas = {s["function"]["name"]: s["function"] for s in registry.schemas()}
    assert set(schemas) == {"skills_list", "skill_view", "skill_manage"}
    manage = schemas["skill_manage"]["parameters"]
    assert manage["properties"]["action"]["enum"] == [
        "create",
        "patch",
        "edit",
        "delete",
        "write_file",
        "remove_file",
    ]
    assert manage["required"] == ["action", "name"]
    assert schemas["skill_view"]["parameters"]["required"] == ["name"]
    json.dumps(registry.schemas())


def test_create_view_patch_round_trip_through_the_tools(home: Path) -> None:
    registry, library = _registry(home)
    context = ToolContext(origin="review")
    created = registry.call(
        "skill_manage",
        {
            "action": "create",
            "name": "ship",
            "category": "ops",
            "content": SKILL.format(name="ship"),
        },
        context,
    )
    assert created["success"], created
    listed = registry.call("skills_list", {"category": "ops"}, context)
    assert [s["name"] for s in listed["skills"]] == ["ship"]
    viewed = registry.call("skill_view", {"name": "ship"}, context)
    assert viewed["content"].startswith("# Steps") and "ship" in context.viewed_skills
    patched = registry.call(
        "skill_manage",
        {
            "action": "patch",
            "name": "ship",
            "old_string": "2. Push.",
            "new_string": "2. Push.\n3. Verify.",
        },
        context,
    )
    assert patched["success"] and patched["match_strategy"] == "exact"
    assert "3. Verify." in library.require("ship").skill_md.read_text()


def test_failures_are_results_with_a_next_step(home: Path) -> None:
    registry, _ = _registry(home)
    context = ToolContext()
    missing = registry.call("skill_view", {"name": "nope"}, context)
    assert missing["success"] is False and "skills_list" in missing["error"]
    bad_json = registry.call("skill_manage", '{"action": "create", "name": ', context)
    assert bad_json["success"] is False and "not valid JSON" in bad_json["error"]
    no_args = registry.call("skill_manage", {"action": "create"}, context)
    assert "missing required field `name`" in no_args["error"]
    unknown = registry.call("skill_manage", {"action": "rename", "name": "x"}, context)
    assert "field `action`: expected one of create, patch" in unknown["error"]
    assert "got 'rename'" in unknown["error"]
