"""A tool call's arguments as the model sent them: read, or refused with a reason, never a crash."""

from __future__ import annotations

import pytest

from hermes_tui.core.messages import MAX_ARGUMENT_DEPTH, ArgumentsError, ToolCall, load_arguments


def test_arguments_nested_past_the_limit_are_refused_before_parsing() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    call = ToolCall("c1", "terminal", deep)
    assert call.parsed_arguments() is None
    assert "nested more than" in call.arguments_problem()
    with pytest.raises(ArgumentsError, match="nested more than"):
        load_arguments('{"a": ' + "{" * 5000 + "}" * 5000 + "}")


def test_nesting_at_the_limit_and_brackets_inside_strings_still_read() -> None:
    at_limit = "[" * (MAX_ARGUMENT_DEPTH - 1) + "]" * (MAX_ARGUMENT_DEPTH - 1)
    assert ToolCall("c", "t", '{"x": ' + at_limit + "}").parsed_arguments() is not None
    text = '{"content": "' + "[{" * 50_000 + '\\" ]]"}'
    assert load_arguments(text) == {"content": "[{" * 50_000 + '" ]]'}


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"command": "echo', "not valid JSON"),
        ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),  # past Python's int digit limit
        ('"just a string"', "not a JSON object"),
        ("", ""),
    ],
)
def test_unreadable_arguments_say_why(arguments: str, problem: str) -> None:
    call = ToolCall("c", "t", arguments)
    assert call.arguments_problem().startswith(problem)
    assert (call.parsed_arguments() is None) == bool(problem)


def test_the_registry_answers_deep_arguments_with_an_error_and_runs_nothing() -> None:
    from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry

    ran: list[dict] = []
    registry = ToolRegistry(
        [
            Tool(
                name="echo",
                toolset="test",
                description="echo",
                parameters={"type": "object", "properties": {}},
                handler=lambda arguments, context: ran.append(arguments) or {"success": True},
            )
        ]
    )
    result = registry.call("echo", "[" * 50_000 + "]" * 50_000, ToolContext())
    assert result["success"] is False and "nested more than" in result["error"]
    assert ran == []
