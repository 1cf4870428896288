"""The Insights screen's Evals tab: past `hermes-tui eval` runs (<home>/evals/<run-id>/) and,
for the one highlighted, each arm's curve by repetition drawn in Braille with the verdict.

Reading the folders happens on a worker thread; the pane only draws what report.json says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.core.text import neutralise

CURVES = ("tool_calls", "passed", "tool_errors", "tokens_in")
STYLES = {"learn": "bold #2f7ed8", "control": "bold #e4572e"}
CHART_W, CHART_H = 36, 5


class EvalsPane(Widget):
    DEFAULT_CSS = """
    EvalsPane { height: auto; }
    EvalsPane #eval-layout { height: auto; }
    EvalsPane #eval-runs { width: 34; height: 20; }
    EvalsPane #eval-detail { width: 1fr; height: 28; padding: 0 1; }
    """

    def __init__(self, home: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.home = home
        self.runs: list[Any] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="eval-layout"):
            yield OptionList(id="eval-runs")
            with VerticalScroll(id="eval-detail"):
                yield Static("Looking for eval runs…", id="eval-chart")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="evals", exit_on_error=False)
    def load(self) -> None:
        from hermes_tui.evaluation.report import past_runs

        runs = past_runs(self.home)
        self.app.call_from_thread(self._show_runs, runs)

    def _show_runs(self, runs: list[Any]) -> None:
        self.runs = runs
        options = self.query_one("#eval-runs", OptionList)
        options.clear_options()
        if not runs:
            self.query_one("#eval-chart", Static).update(
                Text(
                    f"No eval runs in {self.home / 'evals'} yet.\n\n"
                    "Run one with: hermes-tui eval  (or: hermes-tui eval --provider demo "
                    "for the offline scripted model)"
                )
            )
            return
        options.add_options(Option(neutralise(run.label), id=run.id) for run in runs)
        options.highlighted = 0

    @on(OptionList.OptionHighlighted, "#eval-runs")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        run = next((r for r in self.runs if r.id == event.option.id), None)
        if run is not None:
            self.query_one("#eval-chart", Static).update(render_run(run))


def render_run(run: Any) -> Text:
    from hermes_tui.evaluation.braille import plot
    from hermes_tui.evaluation.stats import FIGURES

    if run.report is None:
        return Text(
            f"{neutralise(run.id)}: {run.runs_done} of {run.runs_planned} runs done, no report "
            f"yet.\nTo finish it: hermes-tui eval … --out {neutralise(str(run.path))}"
        )
    report = run.report
    meta = report.get("meta", {})
    arms = list(meta.get("arms", []))
    out = Text()
    out.append(
        neutralise(
            f"{meta.get('suite', '?')} v{meta.get('suite_version', '?')} · "
            f"{meta.get('provider', '?')}/{meta.get('model', '?')} · "
            f"{len(meta.get('families', []))} families × {meta.get('repetitions', 0)} repetitions\n"
        ),
        style="bold",
    )
    for arm in arms:
        out.append(f"── {arm}  ", style=STYLES.get(arm, ""))
    out.append("(mean over families by repetition)\n\n")
    for figure in CURVES:
        entry = report.get("overall", {}).get(figure)
        if not entry:
            continue
        scale = 100.0 if figure == "passed" else 1.0
        series = {
            arm: [p["mean"] * scale if p.get("n") else None for p in entry.get(arm, [])]
            for arm in arms
        }
        values = [v for s in series.values() for v in s if v is not None]
        high = 100.0 if figure == "passed" else max(values, default=1.0)
        label = FIGURES[figure][0] + (" (%)" if figure == "passed" else "")
        out.append(f"{label}\n", style="bold")
        rows = plot(series, CHART_W, CHART_H, low=0.0, high=high)
        for index, row in enumerate(rows):
            axis = (
                f"{high:>7.4g} ┤"
                if index == 0
                else "      0 ┤"
                if index == len(rows) - 1
                else "        │"
            )
            out.append(axis)
            for char, owner in row:
                out.append(char, style=STYLES.get(owner or "", ""))
            out.append("\n")
        reps = int(meta.get("repetitions", 0))
        out.append("         " + "rep 1".ljust(CHART_W - 5) + f"rep {reps}\n\n", style="dim")
    for line in report.get("verdict", []):
        out.append(neutralise(f"• {line}\n"))
    return out
