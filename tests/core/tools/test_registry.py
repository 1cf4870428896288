"""The registry's one road for a tool call: schema-checked arguments, redacted and capped results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import open_runtime
from jsonschema import Draft202012Validator

from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry
from hermes_tui.core.tools.results import Redactor, ResultLimits
from hermes_tui.core.tools.terminal import make_terminal_tools

KEY = "sk-live-0123456789abcdef"


def _files_and_terminal(tmp_path: Path, **limits) -> tuple[ToolRegistry, ToolContext]:
    registry = ToolRegistry(
        [*make_terminal_tools(), *make_file_tools()], limits=ResultLimits(**limits)
    )
    return registry, ToolContext(cwd=tmp_path, workdir=tmp_path, session_id="s1")


def _all_tools(home: Path) -> ToolRegistry:
    runtime = open_runtime(home, "http://127.0.0.1:9/v1")
    return runtime.tool_registry()


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("terminal", {"command": "ls", "timeout": "soon"}, "field `timeout`: expected number, got string"),
        ("skill_view", {"name": 5}, "field `name`: expected string, got integer"),
        ("memory", {"action": "add", "target": "memory", "content": ["a", "b"]}, "field `content`: expected string, got array"),
        ("write_file", {"path": "x.txt", "content": {"text": "hi"}}, "field `content`: expected string, got object"),
        ("read_file", {"path": "x.txt", "limit": "all"}, "field `limit`: expected integer, got string"),
        ("read_file", {"path": "x.txt", "offset": 0}, "field `offset`: must be at least 1, got 0"),
        ("patch", {"path": "x", "old_string": "a", "new_string": "b", "replace_all": "yes"}, "field `replace_all`: expected boolean, got string"),
        ("session_search", {"around_message_id": "12"}, "field `around_message_id`: expected integer, got string"),
        ("memory", {"target": "diary", "action": "add", "content": "x"}, "field `target`: expected one of memory, user, got 'diary'"),
        ("memory", {"target": "memory", "operations": [{"action": "rename"}]}, "field `operations[0].action`: expected one of add, replace, remove, got 'rename'"),
        ("memory", {"target": "memory", "operations": [{"content": "x"}]}, "field `operations[0]`: missing required field `action`"),
        ("skill_manage", {"action": "create"}, "missing required field `name`"),
        ("read_file", {"path": "x.txt", "lines": 5}, "field `lines` is not a parameter of read_file; it takes path, offset, limit"),
        ("terminal", {"command": ""}, "field `command`: must not be empty"),
        ("search_files", {"pattern": "x", "max_results": True}, "field `max_results`: expected integer, got boolean"),
    ],
)  # fmt: skip
def test_wrong_arguments_are_refused_naming_the_field(
    home: Path, tool: str, arguments: dict, message: str
) -> None:
    registry = _all_tools(home)
    result = registry.call(tool, arguments, ToolContext(cwd=home, workdir=home))
    assert result["success"] is False
    assert message in result["error"], result["error"]
    assert "failed unexpectedly" not in result["error"]


def test_a_refused_call_never_reaches_the_handler(tmp_path: Path) -> None:
    registry, context = _files_and_terminal(tmp_path)
    result = registry.call("write_file", {"path": "list.txt", "content": ["a", "b"]}, context)
    assert result["success"] is False and not (tmp_path / "list.txt").exists()
    ran = registry.call("terminal", {"command": "touch ran", "timeout": "soon"}, context)
    assert ran["success"] is False and not (tmp_path / "ran").exists()


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    registry, context = _files_and_terminal(tmp_path)
    result = registry.call("read_file", {"path": 3, "offset": "a", "limit": -1}, context)
    error = result["error"]
    assert "field `path`: expected string, got integer" in error
    assert "field `offset`: expected integer, got string" in error
    assert "field `limit`: must be at least 1, got -1" in error


def test_null_for_an_optional_field_means_not_given(tmp_path: Path) -> None:
    registry, context = _files_and_terminal(tmp_path)
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    read = registry.call("read_file", {"path": "a.txt", "offset": None, "limit": None}, context)
    assert read["success"] and read["total_lines"] == 2
    missing = registry.call("read_file", {"path": None}, context)
    assert "field `path`: expected string, got null" in missing["error"]


def test_integral_floats_pass_as_integers(tmp_path: Path) -> None:
    registry, context = _files_and_terminal(tmp_path)
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    read = registry.call("read_file", {"path": "a.txt", "offset": 2.0, "limit": 1.0}, context)
    assert read["success"] and read["content"] == "     2|two"


def test_every_tool_schema_is_valid_and_closed(home: Path) -> None:
    registry = _all_tools(home)
    assert len(registry.names()) >= 10
    for name in registry.names():
        schema = registry.get(name).parameters
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", name
        assert schema.get("additionalProperties") is False, name
        assert set(schema.get("required", ())) <= set(schema["properties"]), name
        for prop, spec in schema["properties"].items():
            assert "type" in spec, f"{name}.{prop} has no type"


def test_a_tool_that_raises_becomes_a_result_with_secrets_redacted(tmp_path: Path) -> None:
    def explode(_args: dict, _context: ToolContext) -> dict:
        raise RuntimeError(f"could not connect with key {KEY}")

    registry = ToolRegistry(
        [Tool("boom", "test", "Fails.", {"type": "object", "properties": {}}, explode)],
        limits=ResultLimits(redactor=Redactor({"OPENAI_API_KEY": KEY})),
    )
    result = registry.call("boom", {}, ToolContext(cwd=tmp_path, workdir=tmp_path))
    assert result["success"] is False
    assert "boom failed unexpectedly: RuntimeError" in result["error"]
    assert KEY not in json.dumps(result) and "[REDACTED OPENAI_API_KEY]" in result["error"]


def test_known_secrets_are_redacted_from_every_result(tmp_path: Path) -> None:
    registry, context = _files_and_terminal(
        tmp_path, redactor=Redactor({"OPENAI_API_KEY": KEY, "DB_PASSWORD": "hunter2hunter2"})
    )
    (tmp_path / "notes.txt").write_text(f"key={KEY}\npw=hunter2hunter2\n", encoding="utf-8")
    for tool, arguments in (
        ("read_file", {"path": "notes.txt"}),
        ("search_files", {"pattern": "key|pw"}),
        ("terminal", {"command": "cat notes.txt"}),
    ):
        run = registry.run(tool, arguments, context)
        for text in (json.dumps(run.result), run.full_text):
            assert KEY not in text and "hunter2hunter2" not in text, tool
        assert "[REDACTED OPENAI_API_KEY]" in run.full_text
        assert "[REDACTED DB_PASSWORD]" in run.full_text


def test_the_runtime_redacts_dotenv_values_and_provider_keys(home: Path) -> None:
    (home / ".env").write_text("GITHUB_PAT=ghp_abcdefghijklmnop\nDEBUG=1\n", encoding="utf-8")
    runtime = open_runtime(home, "http://127.0.0.1:9/v1")
    registry = runtime.tool_registry()
    context = ToolContext(cwd=home, workdir=home)
    shown = registry.call("terminal", {"command": "echo ghp_abcdefghijklmnop test-key 1"}, context)
    assert shown["output"].split() == [
        "[REDACTED",
        "GITHUB_PAT]",
        "[REDACTED",
        "OPENAI_API_KEY]",
        "1",
    ]


def test_a_foreign_schema_in_another_draft_or_broken_still_runs(tmp_path: Path) -> None:
    def echo(args: dict, _context: ToolContext) -> dict:
        return {"success": True, "got": args}

    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    broken = {"type": "object", "properties": {"n": {"type": "not-a-type"}}}
    registry = ToolRegistry(
        [Tool("seven", "mcp", "", draft7, echo), Tool("broken", "mcp", "", broken, echo)]
    )
    context = ToolContext(cwd=tmp_path, workdir=tmp_path)
    assert (
        "field `n`: expected integer, got string"
        in registry.call("seven", {"n": "x"}, context)["error"]
    )
    assert registry.call("broken", {"n": "x"}, context) == {"success": True, "got": {"n": "x"}}


def test_a_valid_call_does_not_import_jsonschema(tmp_path: Path) -> None:
    """Valid arguments pass a compiled check; jsonschema (70 ms of imports) is loaded only to
    describe arguments that failed it."""
    import subprocess
    import sys

    script = f"""
import sys
from pathlib import Path
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
root = Path({str(tmp_path)!r})
(root / "a.txt").write_text("one\\n")
registry = ToolRegistry(make_file_tools())
context = ToolContext(cwd=root, workdir=root)
assert registry.call("read_file", {{"path": "a.txt"}}, context)["success"]
print("jsonschema" in sys.modules)
assert "expected integer" in registry.call("read_file", {{"path": "a.txt", "offset": "x"}}, context)["error"]
print("jsonschema" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
