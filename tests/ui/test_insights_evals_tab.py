"""The Insights screen's Evals tab: past eval runs listed, the highlighted one's curves drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_app, run_main

from hermes_tui.evaluation.braille import as_text, plot
from hermes_tui.ui.screens.insights import InsightsScreen


def test_braille_plot_draws_a_falling_line_from_top_left_to_bottom_right() -> None:
    rows = plot({"learn": [4.0, 1.0]}, width=4, height=2, low=1.0, high=4.0)
    text = as_text(rows).splitlines()
    assert text[0][0] != " " and text[-1][-1] != " "  # starts high on the left, ends low
    assert text[0][-1] == " " and text[-1][0] == " "
    assert {owner for row in rows for _, owner in row} == {"learn", None}


async def test_evals_tab_lists_past_runs_and_draws_the_highlighted_one(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_main(
        capsys,
        home,
        "eval",
        "--provider",
        "demo",
        "--families",
        "env-var,flaky-test,deploy-order",
        "--repeat",
        "2",
    )
    assert done.returncode == 0, done.stderr
    cut = home / "evals" / "00000000-cut-off"
    cut.mkdir()
    (cut / "state.json").write_text('{"identity": {"runs": ["a", "b"]}, "records": [{}]}')
    app = make_app(home, provider="demo")
    async with app.run_test(size=(130, 45)) as pilot:
        await pilot.press("escape")  # the welcome screen, if any
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, InsightsScreen)
        await pilot.press("e")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        options = app.screen.query_one("#eval-runs")
        assert options.option_count == 2
        chart = str(app.screen.query_one("#eval-chart").render())
        assert "scripted-eval" in chart and "tool calls" in chart
        assert any(0x2800 < ord(c) <= 0x28FF for c in chart)  # Braille curves
        assert "Learning saved" in chart
        options.focus()
        await pilot.press("down")
        await pilot.pause()
        chart = str(app.screen.query_one("#eval-chart").render())
        assert "1 of 2 runs done" in chart
