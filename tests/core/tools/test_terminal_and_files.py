"""The terminal and files toolsets as the model uses them."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import make_terminal_tools


def _setup(tmp_path: Path, approver=None) -> tuple[ToolRegistry, ToolContext]:
    registry = ToolRegistry([*make_terminal_tools(), *make_file_tools()])
    context = ToolContext(cwd=tmp_path, workdir=tmp_path)
    if approver is not None:
        context.approvals = Approvals(lambda request: approver(request.what, request.reason))
    return registry, context


def test_working_directory_persists_across_calls(tmp_path: Path) -> None:
    registry, context = _setup(tmp_path)
    (tmp_path / "sub").mkdir()
    assert registry.call("terminal", {"command": "cd sub && touch made-here"}, context)["success"]
    assert context.cwd == tmp_path / "sub"
    result = registry.call("terminal", {"command": "ls"}, context)
    assert result["output"].strip() == "made-here" and result["exit_code"] == 0


def test_exit_code_timeout_and_output_cap(tmp_path: Path) -> None:
    registry, context = _setup(tmp_path)
    failed = registry.call("terminal", {"command": "echo oops >&2; exit 3"}, context)
    assert failed["exit_code"] == 3 and "oops" in failed["output"] and not failed["success"]
    slow = registry.call("terminal", {"command": "echo started; sleep 30", "timeout": 0.5}, context)
    assert "timed out" in slow["error"] and "started" in slow["output"]
    loud = registry.call("terminal", {"command": "yes hermes | head -c 200000"}, context)
    assert len(json.dumps(loud)) <= 30_000 and "characters left out" in loud["output"]
    assert "`output` was cut" in loud["truncation"]


def test_dangerous_commands_need_approval(tmp_path: Path) -> None:
    asked: list[str] = []
    registry, context = _setup(tmp_path, approver=lambda cmd, why: asked.append(why) or "deny")
    result = registry.call("terminal", {"command": "sudo rm -rf /var/log/app"}, context)
    assert (
        result["denied"]
        and "not approved" in result["error"]
        and asked
        == [
            "runs a command with root or another user's rights (sudo); and recursively deletes "
            f"/var/log/app, outside the working directory {tmp_path}"
        ]
    )
    registry, context = _setup(tmp_path, approver=lambda cmd, why: "once")
    assert (
        registry.call("terminal", {"command": "sudo --version || true"}, context)["exit_code"] == 0
    )


def test_read_write_patch_and_search_files(tmp_path: Path) -> None:
    registry, context = _setup(tmp_path)
    assert registry.call(
        "write_file", {"path": "src/app.py", "content": "def f():\n    return 1\n"}, context
    )["success"]
    read = registry.call("read_file", {"path": "src/app.py"}, context)
    assert read["content"] == "     1|def f():\n     2|    return 1" and read["total_lines"] == 2
    patched = registry.call(
        "patch", {"path": "src/app.py", "old_string": "return 1", "new_string": "return 2"}, context
    )
    assert (
        patched["success"]
        and (tmp_path / "src" / "app.py").read_text() == "def f():\n    return 2\n"
    )
    found = registry.call("search_files", {"pattern": r"return \d", "glob": "*.py"}, context)
    assert found["matches"] == ["src/app.py:2: return 2"]
    missing = registry.call("read_file", {"path": "nope.txt"}, context)
    assert not missing["success"] and "does not exist" in missing["error"]
    paged = registry.call("read_file", {"path": "src/app.py", "offset": 2, "limit": 1}, context)
    assert paged["content"] == "     2|    return 2"


def _within(seconds: float, call) -> dict:
    """`call()`'s result, failing when it has not returned after `seconds` (a bounded wait)."""
    box: list[dict] = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"still running after {seconds} s"
    return box[0]


def test_a_pattern_that_backtracks_without_end_stops_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A4-32: `(a+)+$` over forty `a` and a `b` never ended (Python's re, holding the GIL, so
    Esc could not stop the turn either); now the search stops with an error saying why."""
    monkeypatch.setattr("hermes_tui.core.tools.bounded_regex.SEARCH_SECONDS", 0.5)  # fast
    (tmp_path / "notes.txt").write_text("fine\n")
    (tmp_path / "data.txt").write_text("a" * 40 + "b\n")
    registry, context = _setup(tmp_path)

    found = _within(60, lambda: registry.call("search_files", {"pattern": "(a+)+$"}, context))

    assert not found["success"], found
    assert "(searching data.txt" in found["error"] and "simplify the pattern" in found["error"]
    again = registry.call("search_files", {"pattern": "fi(n)e$", "glob": "notes.txt"}, context)
    assert again["matches"] == ["notes.txt:1: fine"]  # the next search has a child of its own
    context.cancel.set()  # the user's Esc, looked at before each file and while matching
    stopped = registry.call("search_files", {"pattern": "fine"}, context)
    assert not stopped["success"] and "cancelled by the user" in stopped["error"]


def test_a_search_whose_child_starts_slowly_is_not_stopped_by_the_patterns_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is on matching: a child Python that takes long to start (a loaded machine:
    here it sleeps first) does not make an ordinary pattern 'take more than' the bound."""
    from hermes_tui.core.tools import bounded_regex

    monkeypatch.setattr(bounded_regex, "SEARCH_SECONDS", 0.5)
    monkeypatch.setattr(
        bounded_regex, "_CHILD", "import time; time.sleep(1)\n" + bounded_regex._CHILD
    )
    (tmp_path / "notes.txt").write_text("fine\n")
    registry, context = _setup(tmp_path)

    found = _within(60, lambda: registry.call("search_files", {"pattern": "fi(n)e$"}, context))

    assert found.get("matches") == ["notes.txt:1: fine"], found


def test_a_long_near_miss_patch_over_a_large_file_fails_soon_as_no_unique_match(
    tmp_path: Path,
) -> None:
    """A4-32's addendum: 400 lines that match nowhere exactly over 20,000 similar lines took
    the fuzzy matcher minutes, with no way to cancel; past a bound of work it fails now."""
    line = "value_{0} = compute({1}, {2})"
    content = "".join(line.format(i % 97, i % 13, i % 7) + "\n" for i in range(20_000))
    old = "".join(line.format(i % 97, i % 13, i % 7) + f" # x{i}\n" for i in range(400))
    (tmp_path / "big.py").write_text(content)
    registry, context = _setup(tmp_path)

    patched = _within(
        60,
        lambda: registry.call(
            "patch", {"path": "big.py", "old_string": old, "new_string": "x = 1\n"}, context
        ),
    )

    assert not patched["success"] and "no unique match" in patched["error"], patched
    assert (tmp_path / "big.py").read_text() == content
