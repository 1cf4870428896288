"""Reads the numbers back out of an eval's report.md, to hold them against its report.json."""

from __future__ import annotations

from typing import Any

from hermes_tui.evaluation.report import fmt
from hermes_tui.evaluation.stats import FIGURES

LABELS = {label: figure for figure, (label, _) in FIGURES.items()}


def tables(markdown: str) -> dict[str, dict[tuple[str, str], list[str]]]:
    """section ("overall" or a family) → (figure, arm) → the cells of its row."""
    out: dict[str, dict[tuple[str, str], list[str]]] = {}
    section = None
    for line in markdown.splitlines():
        if line.startswith("## Overall"):
            section = "overall"
        elif line.startswith("### "):
            section = line[4:].strip()
        elif line.startswith("## ") and not line.startswith("## Overall"):
            section = None
        elif section and line.startswith("| ") and not line.startswith("| figure"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] in LABELS:
                out.setdefault(section, {})[(LABELS[cells[0]], cells[1])] = cells[2:]
    return out


def mismatches(markdown: str, report: dict[str, Any]) -> list[str]:
    """Every cell of report.md that does not say what report.json holds (empty: they agree)."""
    found = tables(markdown)
    problems = []
    arms = report["meta"]["arms"]
    for figure in FIGURES:
        for arm in arms:
            expected = []
            for point in report["overall"][figure][arm]:
                cell = fmt(point["mean"] if point["n"] else None, figure)
                if point["low"] is not None:
                    cell += f" [{fmt(point['low'], figure)}, {fmt(point['high'], figure)}]"
                expected.append(cell)
            got = found.get("overall", {}).get((figure, arm))
            if got != expected:
                problems.append(f"overall {figure} {arm}: md {got} json {expected}")
            for family, figures in report["families"].items():
                want = [fmt(v, figure) for v in figures[figure][arm]]
                have = found.get(family, {}).get((figure, arm))
                if have != want:
                    problems.append(f"{family} {figure} {arm}: md {have} json {want}")
    for line in report["verdict"]:
        if f"- {line}" not in markdown:
            problems.append(f"verdict line missing from the Markdown: {line}")
    return problems
