"""The eval report: figures by repetition for both arms, intervals, differences, a verdict in
words; as JSON (the source of the others), Markdown and a terminal table with sparklines.

`build_report(state)` makes the JSON from the runner's records; everything else reads that
JSON, so the Markdown, the terminal table and the chart cannot disagree with it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_tui.core.storage import atomic_write_text
from hermes_tui.evaluation.stats import (
    FIGURES,
    MIN_SAMPLES,
    Estimate,
    curves,
    estimate,
    overall_curve,
    paired_difference,
)

# Shown in the terminal and in the verdict, in this order.
HEADLINE = ("passed", "tool_calls", "tool_errors", "turns", "tokens_in", "cost", "wall_time")
SPARKS = "▁▂▃▄▅▆▇█"


def build_report(state: Mapping[str, Any]) -> dict[str, Any]:
    meta = dict(state.get("meta", {}))
    identity = state.get("identity", {})
    records = list(state.get("records", []))
    arms = list(identity.get("arms", []))
    families = list(identity.get("families", []))
    reps = max((r["repetition"] for r in records), default=0)
    rng = random.Random(int(meta.get("seed", 0)))
    per_family = curves(records, arms, families, reps)
    overall: dict[str, Any] = {}
    for figure in FIGURES:
        entry: dict[str, Any] = {
            arm: [e.to_json() for e in overall_curve(per_family, figure, arm, reps, rng)]
            for arm in arms
        }
        entry["change"] = {
            arm: paired_difference(
                [(per_family[f][figure][arm][-1], per_family[f][figure][arm][0]) for f in families],
                rng,
            ).to_json()
            for arm in arms
            if reps
        }
        if {"learn", "control"} <= set(arms) and reps:
            entry["last_difference"] = paired_difference(
                [
                    (per_family[f][figure]["learn"][-1], per_family[f][figure]["control"][-1])
                    for f in families
                ],
                rng,
            ).to_json()
        overall[figure] = entry
    report = {
        "meta": {**meta, "arms": arms, "families": families, "repetitions": reps},
        "families": per_family,
        "overall": overall,
        "runs": records,
    }
    report["verdict"] = verdict(report)
    return report


def _pct(part: float, whole: float) -> str:
    return f"{abs(part) / abs(whole) * 100:.0f} %" if whole else "n/a"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def verdict(report: Mapping[str, Any]) -> list[str]:
    """Plain sentences: what learning changed by the last repetition, and what is noise."""
    meta = report["meta"]
    arms, reps = meta["arms"], meta["repetitions"]
    n = len(meta["families"])
    lines: list[str] = []
    if not reps:
        return ["No run has finished yet."]
    if n < MIN_SAMPLES:
        lines.append(
            f"Only {n} famil{'y' if n == 1 else 'ies'}: fewer than {MIN_SAMPLES} samples per "
            "point, so no interval is drawn and no difference is called significant."
        )
    for figure in HEADLINE:
        label, higher_better = FIGURES[figure]
        entry = report["overall"][figure]
        if "last_difference" in entry:
            diff = Estimate(
                **{k: entry["last_difference"][k] for k in ("mean", "low", "high", "n")}
            )
            if diff.n == 0:
                continue
            control = entry["control"][-1]["mean"]
            learn = entry["learn"][-1]["mean"]
            when = f"by the {_ordinal(reps)} repetition"
            if figure == "passed":
                change = f"{control * 100:.0f} % → {learn * 100:.0f} %"
                if diff.significant:
                    better = "raised" if diff.mean > 0 else "lowered"
                    lines.append(
                        f"Learning {better} the pass rate {when}: control {change} with learning."
                    )
                else:
                    lines.append(
                        f"Pass rate {when}: control vs learning {change}; the difference is "
                        f"within noise{_interval(diff, 100, ' points')}."
                    )
                continue
            if diff.significant:
                saved = (diff.mean < 0) != higher_better
                amount = _pct(diff.mean, control)
                did = f"saved {amount} of the {label}" if saved else f"took {amount} more {label}"
                lines.append(
                    f"Learning {did} {when} ({control:.4g} → {learn:.4g} per run{_interval(diff)})."
                )
            else:
                lines.append(
                    f"{label.capitalize()} {when}: {control:.4g} without learning, {learn:.4g} "
                    f"with; the difference is within noise{_interval(diff)}."
                )
        for arm in arms:
            change = entry.get("change", {}).get(arm)
            if figure == "tool_calls" and change and change["n"]:
                est = Estimate(**{k: change[k] for k in ("mean", "low", "high", "n")})
                first = entry[arm][0]["mean"]
                what = (
                    f"changed by {est.mean:+.3g} per run from the 1st to the {_ordinal(reps)} "
                    f"repetition{_interval(est)}"
                )
                judged = "significant" if est.significant else "within noise"
                lines.append(f"The {arm} arm's tool calls {what} (from {first:.3g}): {judged}.")
    return lines


def _interval(est: Estimate, scale: float = 1.0, unit: str = "") -> str:
    if est.low is None or est.high is None:
        return ""
    return (
        f"; 95 % interval of the difference {est.low * scale:+.3g} … {est.high * scale:+.3g}{unit}"
    )


# ---- formatting shared by Markdown and the terminal ---------------------------------------


def fmt(value: float | None, figure: str) -> str:
    """One figure's value as the Markdown and terminal tables print it (tests parse it back)."""
    if value is None:
        return "–"
    if figure in ("passed", "score", "cached_share"):
        return f"{value * 100:.0f}%"
    if figure == "cost":
        return f"{value:.4f}"
    if figure == "wall_time":
        return f"{value:.2f}"
    return f"{value:.2f}" if value != int(value) else f"{int(value)}"


def sparkline(values: Sequence[float | None], low: float, high: float) -> str:
    out = []
    for v in values:
        if v is None:
            out.append(" ")
            continue
        ratio = 0.0 if high == low else (v - low) / (high - low)
        out.append(SPARKS[min(len(SPARKS) - 1, int(ratio * (len(SPARKS) - 1) + 0.5))])
    return "".join(out)


def _means(entry: Mapping[str, Any], arm: str) -> list[float | None]:
    return [p["mean"] if p["n"] else None for p in entry[arm]]


def markdown(report: Mapping[str, Any]) -> str:
    meta = report["meta"]
    arms, reps = meta["arms"], meta["repetitions"]
    out = [f"# Eval: {meta.get('suite', '?')} (suite version {meta.get('suite_version', '?')})", ""]
    for key in (
        "provider",
        "model",
        "base_url",
        "seed",
        "hermes_tui_version",
        "from_home",
        "sandbox",
        "started_at",
        "finished_at",
    ):
        out.append(f"- {key}: {meta.get(key)}")
    out.append(f"- config: `{meta.get('config', {})}`")
    out += ["", "## Verdict", ""]
    out += [f"- {line}" for line in report["verdict"]]
    header = "| figure | arm | " + " | ".join(f"rep {i}" for i in range(1, reps + 1)) + " |"
    rule = "|---|---|" + "---|" * reps
    out += ["", "## Overall (mean over families, 95 % bootstrap interval)", "", header, rule]
    for figure, (label, _) in FIGURES.items():
        entry = report["overall"][figure]
        for arm in arms:
            cells = []
            for point in entry[arm]:
                cell = fmt(point["mean"] if point["n"] else None, figure)
                if point["low"] is not None:
                    cell += f" [{fmt(point['low'], figure)}, {fmt(point['high'], figure)}]"
                cells.append(cell)
            out.append(f"| {label} | {arm} | " + " | ".join(cells) + " |")
    out += ["", "## Per family", ""]
    for family, figures in report["families"].items():
        out += [f"### {family}", "", header, rule]
        for figure, (label, _) in FIGURES.items():
            for arm in arms:
                cells = [fmt(v, figure) for v in figures[figure][arm]]
                out.append(f"| {label} | {arm} | " + " | ".join(cells) + " |")
        out.append("")
    out += [
        "## Runs",
        "",
        "| arm | family | rep | variation | passed | budget | tool calls | "
        "tool errors | skills loaded | skills written |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["runs"]:
        out.append(
            f"| {r['arm']} | {r['family']} | {r['repetition']} | {r['variation']} | "
            f"{'yes' if r['passed'] else 'no'} | {r.get('budget_hit') or ''} | {r['tool_calls']} | "
            f"{r['tool_errors']} | {', '.join(r['skills_loaded'])} | {', '.join(r['skills_written'])} |"
        )
    return "\n".join(out) + "\n"


def terminal_table(report: Mapping[str, Any]) -> str:
    """Per family and overall: each headline figure's curve per arm as a sparkline, first and
    last values, and the difference between arms at the last repetition."""
    meta = report["meta"]
    arms = meta["arms"]
    rows: list[tuple[str, ...]] = []
    blocks = [("overall", {f: {a: _means(report["overall"][f], a) for a in arms} for f in FIGURES})]
    blocks += list(report["families"].items())
    for name, figures in blocks:
        for figure in HEADLINE:
            label = FIGURES[figure][0]
            series = figures[figure]
            known = [v for arm in arms for v in series[arm] if v is not None]
            low, high = (min(known), max(known)) if known else (0.0, 0.0)
            cells = []
            for arm in arms:
                values = series[arm]
                first = next((v for v in values if v is not None), None)
                cells.append(
                    f"{sparkline(values, low, high)} {fmt(first, figure)}→{fmt(values[-1], figure)}"
                )
            last = ""
            if {"learn", "control"} <= set(arms):
                a, b = series["learn"][-1], series["control"][-1]
                if a is not None and b is not None:
                    last = fmt(a - b, figure) if figure != "passed" else f"{(a - b) * 100:+.0f}pt"
            rows.append((name, label, *cells, last))
            name = ""
    headers = ("family", "figure", *arms, "learn−control (last)")
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines += ["", *report["verdict"]]
    return "\n".join(lines)


def estimate_of(values: Sequence[float], seed: int = 0) -> Estimate:
    return estimate(list(values), random.Random(seed))


# ---- files ---------------------------------------------------------------------------------

REPORT_FILES = {"json": "report.json", "markdown": "report.md", "chart": "report.svg"}


def write_outputs(report: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """report.json, report.md and report.svg in `out`, each replaced atomically."""
    from hermes_tui.evaluation.chart import svg

    paths = {kind: out / name for kind, name in REPORT_FILES.items()}
    atomic_write_text(paths["json"], json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    atomic_write_text(paths["markdown"], markdown(report))
    atomic_write_text(paths["chart"], svg(report))
    return paths


@dataclass(frozen=True)
class PastRun:
    """An eval folder under <home>/evals/ as the Insights screen lists it."""

    id: str
    path: Path
    report: dict[str, Any] | None  # None: still running, cut off, or unreadable
    runs_done: int
    runs_planned: int

    @property
    def label(self) -> str:
        meta = (self.report or {}).get("meta", {})
        state = "finished" if self.report else f"{self.runs_done}/{self.runs_planned} runs"
        model = meta.get("model", "?")
        return f"{self.id}  {meta.get('suite', '')} {model}  {state}".strip()


def past_runs(home: Path) -> list[PastRun]:
    """Eval runs kept in <home>/evals/<run-id>/, newest first."""
    root = home / "evals"
    found = []
    for folder in sorted(root.glob("*/"), reverse=True) if root.is_dir() else []:
        report = _read_json(folder / REPORT_FILES["json"])
        state = _read_json(folder / "state.json") or {}
        planned = len(state.get("identity", {}).get("runs", []))
        done = len(state.get("records", []))
        if report is None and not state:
            continue
        if report is not None and done < planned:
            report = None  # an older report of an eval still running or cut off
        found.append(PastRun(folder.name, folder, report, done, planned))
    return found


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
