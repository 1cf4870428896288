"""The agent's todo list (core/todo.py) and its tool (core/tools/todo.py): written whole, kept
with the session, told to the faces."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime

from hermes_tui.core import events as ev
from hermes_tui.core.todo import MAX_ITEMS, TodoError, TodoItem, TodoList, parse_items
from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.core.tools.todo import todo

PLAN = [
    {"content": "Read the failing test", "status": "completed"},
    {"content": "Fix the parser", "status": "in_progress"},
    {"content": "Run the suite", "status": "pending"},
]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_a_write_replaces_the_whole_list_and_tells_the_listener() -> None:
    told: list[tuple[TodoItem, ...]] = []
    todos = TodoList(on_change=told.append)
    todos.write(PLAN)
    todos.write([{"content": "Only this", "status": "pending"}])
    assert todos.items == (TodoItem("Only this", "pending"),)
    assert len(told) == 2 and told[0][1] == TodoItem("Fix the parser", "in_progress")


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ([{"content": "x", "status": "done"}], "item 1 has status 'done'"),
        ([{"content": "  ", "status": "pending"}], "item 1 has no content"),
        ([{"content": "x" * 301, "status": "pending"}], "item 1 is 301 characters"),
        ([{"content": "x", "status": "pending"}] * (MAX_ITEMS + 1), f"at most {MAX_ITEMS}"),
        ("not a list", "must be a list"),
    ],
)
def test_a_bad_list_is_refused_whole_and_the_old_one_stays(raw, problem: str) -> None:
    todos = TodoList()
    todos.write(PLAN)
    with pytest.raises(TodoError, match=problem):
        todos.write(raw)
    assert [i.content for i in todos.items] == [p["content"] for p in PLAN]


def test_escape_sequences_and_newlines_are_folded_to_one_plain_line() -> None:
    (item,) = parse_items([{"content": "step\x1b]0;pwned\x07\nline two\r", "status": "pending"}])
    assert "\x1b" not in item.content and "\x07" not in item.content
    assert "\n" not in item.content and item.content.endswith("line two")


def test_the_tool_reads_with_no_arguments_and_a_review_context_has_no_list() -> None:
    context = ToolContext()
    assert not todo({}, context)["success"]  # a background review's context: no list
    context.todos = TodoList()
    written = todo({"todos": PLAN}, context)
    assert written["success"] and written["summary"] == {
        "total": 3,
        "pending": 1,
        "in_progress": 1,
        "completed": 1,
    }
    assert todo({}, context)["todos"] == PLAN
    refused = todo({"todos": [{"content": "x", "status": "later"}]}, context)
    assert not refused["success"] and "todo list not changed" in refused["error"]


def test_the_agent_keeps_a_list_the_faces_hear_it_and_a_resumed_session_has_it(
    home: Path, tmp_path: Path, llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    heard: list[ev.Event] = []
    runtime = open_runtime(home, llm.openai_url, sink=heard.append)
    llm.script(Reply(tool_calls=[("todo", {"todos": PLAN})]), Reply(text="Planned."))
    session = runtime.open_session()
    session.submit("fix the parser")
    assert "todo" in llm.requests[0].tool_names
    changed = [e for e in heard if isinstance(e, ev.TodoChanged)]
    assert changed and changed[-1].session_id == session.id
    assert [i.status for i in changed[-1].items] == ["completed", "in_progress", "pending"]
    runtime.close()

    again = open_runtime(home, llm.openai_url).open_session(session.id)
    assert [i.content for i in again.todos.items] == [p["content"] for p in PLAN]
    fresh = open_runtime(home, llm.openai_url).open_session()
    assert fresh.todos.items == ()
