"""The quick yes for plain tool calls never says yes where JSON Schema says no."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from hermes_tui.core.tools.plain_schema import certainly_valid
from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry

FLAT = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "a name"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "force": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "level": {"type": "integer", "enum": [1, 2]},
    },
    "required": ["name"],
    "additionalProperties": False,
}
OPEN = {"type": "object", "properties": {"q": {"type": "string"}}}
NESTED = {
    "type": "object",
    "properties": {"ops": {"type": "array", "items": {"type": "object"}}},
}
BOUNDED = {"type": "object", "properties": {"q": {"type": "string", "minLength": 3}}}

CASES: list[tuple[dict[str, Any], Any]] = [
    (FLAT, {"name": "x"}),
    (FLAT, {"name": "x", "count": 3, "ratio": 0.5, "force": True, "mode": "a", "level": 2}),
    (FLAT, {}),  # required missing
    (FLAT, {"name": 1}),
    (FLAT, {"name": "x", "count": True}),  # a boolean is not an integer
    (FLAT, {"name": "x", "count": 1.0}),
    (FLAT, {"name": "x", "ratio": False}),
    (FLAT, {"name": "x", "force": 1}),
    (FLAT, {"name": "x", "mode": "c"}),
    (FLAT, {"name": "x", "level": True}),  # True == 1 in Python, not in JSON Schema
    (FLAT, {"name": "x", "extra": "y"}),
    (FLAT, {"name": None}),
    (FLAT, {"name": "x\u202e\x1b[31m; rm -rf /"}),  # text is text
    (FLAT, ["name"]),
    (OPEN, {"q": "x", "anything": {"deep": [1]}}),  # extra keys allowed when not forbidden
    (NESTED, {"ops": [{"a": 1}]}),
    (NESTED, {"ops": "not a list"}),
    (BOUNDED, {"q": "ab"}),
    ({"type": "object", "$schema": "x", "properties": {}}, {}),
    ({"type": ["object"], "properties": {}}, {}),
    ({"type": "object", "properties": {"p": {"type": ["string", "null"]}}}, {"p": None}),
]


@pytest.mark.parametrize(("schema", "arguments"), CASES, ids=lambda v: json.dumps(v)[:40])
def test_a_quick_yes_only_where_json_schema_agrees(schema: dict, arguments: Any) -> None:
    valid = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    quick = certainly_valid(schema, arguments)
    assert not quick or valid


def test_plain_calls_are_answered_without_the_validator() -> None:
    assert certainly_valid(FLAT, {"name": "x"})
    assert certainly_valid(FLAT, {"name": "x", "count": 3, "ratio": 1, "force": False})
    assert certainly_valid(OPEN, {})


def test_the_registry_still_names_every_problem_of_a_bad_call() -> None:
    tool = Tool("t", "test", "a tool", FLAT, lambda args, context: {"success": True})
    registry = ToolRegistry([tool])
    result = registry.call("t", {"name": "x", "count": True, "mode": "c"}, ToolContext())
    assert result.get("success") is False, result
    assert "count" in result["error"] and "mode" in result["error"]
    assert registry.call("t", {"name": "x", "count": 2}, ToolContext())["success"] is True
