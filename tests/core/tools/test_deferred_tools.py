"""The terminal, web and files tools a conversation lists load their module on their first call,
and are the same tools as the modules make: schema, flags, results, trace lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import open_runtime

from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import Deferred, Tool, ToolContext
from hermes_tui.core.tools.terminal import make_terminal_tools

DEFERRED = ("terminal", "web_fetch", "read_file", "write_file", "patch", "search_files")


def _described(tool: Tool) -> tuple:
    return (
        tool.schema(),
        tool.toolset,
        tool.read_only,
        tool.conversation_only,
        tool.untrusted,
        tool.plan_allowed,
    )


def test_the_conversation_lists_what_the_modules_make(home: Path) -> None:
    registry = open_runtime(home, "http://127.0.0.1:9").tool_registry()
    made = {t.name: t for t in [*make_terminal_tools(), *make_file_tools()]}
    assert set(made) == set(DEFERRED)
    for name in DEFERRED:
        tool = registry.get(name)
        assert tool is not None and _described(tool) == _described(made[name])
    assert registry.names()[: len(DEFERRED)] == list(DEFERRED)  # the order the model sees


def test_a_stand_in_runs_the_tool_and_shows_its_line(home: Path, tmp_path: Path) -> None:
    registry = open_runtime(home, "http://127.0.0.1:9").tool_registry()
    context = ToolContext(cwd=tmp_path, workdir=tmp_path)
    written = registry.run("write_file", {"path": "a.txt", "content": "x\ny\n"}, context)
    assert written.result["success"] is True
    assert (tmp_path / "a.txt").read_text() == "x\ny\n"
    read = registry.run("read_file", {"path": "a.txt"}, context).result
    assert registry.get("read_file").summarise(read) == "2 lines"  # type: ignore[union-attr]
    refused = registry.run("read_file", {"path": 3}, context).result
    assert refused["success"] is False and "expected string" in refused["error"]
    registry.close()


def test_the_module_is_built_once_on_the_first_call_and_closed_once() -> None:
    made, closed = [], []

    def make() -> list[Tool]:
        made.append(1)
        return [
            Tool("a", "t", "A.", {"type": "object"}, lambda a, c: {"n": 1}, close=closed.append),
            Tool("b", "t", "B.", {"type": "object"}, lambda a, c: {"n": 2}),
        ]

    deferred = Deferred(make)
    a, b = deferred.tools(
        {"name": "a", "toolset": "t", "description": "A.", "parameters": {}},
        {"name": "b", "toolset": "t", "description": "B.", "parameters": {}},
    )
    deferred.close()
    assert made == [] and closed == []  # never called: nothing built, nothing to end
    assert a.handler({}, ToolContext()) == {"n": 1} and b.handler({}, ToolContext()) == {"n": 2}
    assert made == [1]


def test_listing_the_tools_imports_none_of_them(home: Path) -> None:
    probe = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from pathlib import Path\n"
        "from helpers import open_runtime\n"
        f"registry = open_runtime(Path({str(home)!r}), 'http://127.0.0.1:9').tool_registry()\n"
        "assert registry.schemas()\n"
        "print(sorted(m for m in sys.modules if m.startswith('hermes_tui.core.tools.')\n"
        "      and m.rsplit('.', 1)[1] in ('terminal', 'web', 'files')))\n"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, timeout=120
    )
    assert done.stdout.strip() == "[]", done.stderr
