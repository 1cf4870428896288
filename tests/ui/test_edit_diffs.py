"""Edits the agent makes with the files tools show as a coloured diff in their chat row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, steady_mode

from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.diff import DiffBlock

SIZE = (120, 36)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


async def test_a_patch_shows_its_diff_and_the_model_never_gets_it(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    (workdir / "app.py").write_text("def main():\n    print('helo')\n    return 0\n")
    llm.script(
        Reply(
            tool_calls=[
                (
                    "patch",
                    {
                        "path": "app.py",
                        "old_string": "print('helo')",
                        "new_string": "print('hello')",
                    },
                )
            ]
        ),
        Reply(text="Fixed the typo."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "fix the typo")
        row = app.query_one(ToolRow)
        assert "patch app.py" in str(row.title) and "+1 −1" in str(row.title)
        assert not row.collapsed  # a small edit is shown at once
        block = row.query_one(DiffBlock)
        lines = str(block.content).splitlines()
        assert "-    print('helo')" in lines and "+    print('hello')" in lines
        assert lines[:2] == ["--- a/app.py", "+++ b/app.py"]
        styles = {span.style for span in block.content.spans}
        assert "$text-success" in styles and "$text-error" in styles
        await pilot.click(ToolRow)  # focus the row, then copy: the diff is what is copied
        row.action_copy_output()
        assert "+    print('hello')" in app.clipboard
    tool_result = llm.requests[-1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "helo" not in tool_result["content"]


async def test_a_large_new_file_stays_folded_and_hostile_text_is_shown_not_obeyed(
    home: Path, workdir: Path, llm: FakeLLM
) -> None:
    content = "".join(f"line {n}\n" for n in range(200)) + "\x1b[2J\x1b]0;pwned\x07\n"
    llm.script(
        Reply(tool_calls=[("write_file", {"path": "notes.txt", "content": content})]),
        Reply(text="Written."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "write notes")
        row = app.query_one(ToolRow)
        assert "+201 −0" in str(row.title)
        assert row.collapsed and not row.query(DiffBlock)  # built when first opened
        row.collapsed = False
        await pilot.pause()
        text = str(row.query_one(DiffBlock).content)
        assert text.startswith("--- /dev/null\n+++ b/notes.txt")
        assert "\x1b" not in text and "␛[2J␛]0;pwned␇" in text


def test_snapshot_of_an_edit_in_the_chat(
    snap_compare, home: Path, workdir: Path, llm: FakeLLM
) -> None:
    (workdir / "app.py").write_text("def main():\n    print('helo')\n    return 0\n")
    llm.script(
        Reply(
            text="One typo.",
            tool_calls=[
                (
                    "patch",
                    {
                        "path": "app.py",
                        "old_string": "print('helo')",
                        "new_string": "print('hello')",
                    },
                )
            ],
        ),
        Reply(text="Fixed."),
    )
    app = make_app(home, llm.openai_url)

    async def run_before(pilot) -> None:
        await send(app, pilot, "fix the typo")
        app.title = "hermes-tui"
        app.clear_notifications()
        steady_mode(app)
        for row in app.query(ToolRow):
            row.title = re.sub(r"\d+\.\d+s", "0.01s", str(row.title))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
