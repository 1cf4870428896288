"""Every slash command has help text, a README row, and shows in /help with the user's own."""

from __future__ import annotations

import re
from pathlib import Path

from fakes.llm_server import FakeLLM
from helpers import make_app, send

from hermes_tui.ui.commands import handlers
from hermes_tui.ui.screens.modals import HelpScreen
from hermes_tui.ui.widgets.input import SLASH_COMMANDS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_command_has_help_and_a_readme_row() -> None:
    table = README.read_text(encoding="utf-8").split("| command | does |", 1)[1].split("\n\n")[0]
    rows = set(re.findall(r"^\| `(/[a-z-]+)", table, re.M)) | set(
        re.findall(r", `(/[a-z-]+)", table)
    )
    for name in SLASH_COMMANDS:
        assert SLASH_COMMANDS[name].strip(), name
        assert name in rows, f"{name} has no row in the README's command table"
    assert set(handlers()) - set(SLASH_COMMANDS) == {"/bg"}  # an alias, listed beside /background


async def test_help_lists_custom_commands_beside_the_built_in_ones(
    home: Path, llm: FakeLLM, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (home / "commands").mkdir()
    (home / "commands" / "standup.md").write_text(
        "---\ndescription: Daily | notes\n---\nSummarise."
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await send(app, pilot, "/help")
        assert isinstance(app.screen, HelpScreen)
        assert "/standup" in app.screen.commands and "/retry" in app.screen.commands
