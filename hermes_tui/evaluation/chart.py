"""The eval's chart: a hand-written SVG (no plotting library), one panel per headline figure,
each arm's overall mean by repetition as a line with its 95 % interval as a band.

Reads only the report's JSON, so the picture shows exactly what report.json and report.md say.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from hermes_tui.evaluation.stats import FIGURES

PANELS = ("passed", "tool_calls", "tool_errors", "turns", "tokens_in", "wall_time")
COLOURS = {"learn": "#2f7ed8", "control": "#e4572e"}
OTHER = "#7a7a7a"
PANEL_W, PANEL_H = 300, 190
PAD_L, PAD_R, PAD_T, PAD_B = 52, 14, 30, 34
COLUMNS = 3


def svg(report: Mapping[str, Any]) -> str:
    meta = report["meta"]
    arms = list(meta["arms"])
    reps = int(meta["repetitions"])
    rows = (len(PANELS) + COLUMNS - 1) // COLUMNS
    width, height = COLUMNS * PANEL_W, rows * PANEL_H + 64
    title = (
        f"hermes-tui eval · {meta.get('suite', '?')} v{meta.get('suite_version', '?')} · "
        f"{meta.get('provider', '?')}/{meta.get('model', '?')} · {len(meta['families'])} "
        f"families · mean by repetition, 95 % interval"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="12" y="22" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    legend_x = 12
    for arm in arms:
        colour = COLOURS.get(arm, OTHER)
        parts.append(
            f'<rect x="{legend_x}" y="32" width="14" height="4" fill="{colour}"/>'
            f'<text x="{legend_x + 20}" y="38" font-size="11">{escape(arm)}</text>'
        )
        legend_x += 90
    for index, figure in enumerate(PANELS):
        x0 = (index % COLUMNS) * PANEL_W
        y0 = 50 + (index // COLUMNS) * PANEL_H
        parts.append(_panel(report, figure, arms, reps, x0, y0))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _panel(
    report: Mapping[str, Any], figure: str, arms: list[str], reps: int, x0: float, y0: float
) -> str:
    label, higher_better = FIGURES[figure]
    entry = report["overall"][figure]
    scale = 100.0 if figure == "passed" else 1.0
    values = []
    for arm in arms:
        for point in entry[arm]:
            if point["n"]:
                values += [point["mean"] * scale]
                if point["low"] is not None:
                    values += [point["low"] * scale, point["high"] * scale]
    low = 0.0
    high = max(values, default=1.0)
    if figure == "passed":
        high = 100.0
    high = high if high > low else low + 1.0
    plot_w = PANEL_W - PAD_L - PAD_R
    plot_h = PANEL_H - PAD_T - PAD_B
    left, top = x0 + PAD_L, y0 + PAD_T

    def sx(rep: int) -> float:
        return left + (plot_w / 2 if reps <= 1 else (rep - 1) * plot_w / (reps - 1))

    def sy(v: float) -> float:
        return top + plot_h - (v - low) / (high - low) * plot_h

    better = "higher is better" if higher_better else "lower is better"
    unit = " (%)" if figure == "passed" else ""
    out = [
        f'<text x="{x0 + PAD_L}" y="{y0 + 18}" font-size="12" font-weight="bold">'
        f"{escape(label)}{unit}</text>",
        f'<text x="{x0 + PANEL_W - PAD_R}" y="{y0 + 18}" font-size="9" fill="#666" '
        f'text-anchor="end">{better}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#cccccc"/>',
    ]
    for tick in (low, (low + high) / 2, high):
        out.append(
            f'<text x="{left - 6}" y="{sy(tick) + 3:.1f}" font-size="9" text-anchor="end">'
            f"{_tick(tick)}</text>"
        )
    for rep in range(1, reps + 1):
        out.append(
            f'<text x="{sx(rep):.1f}" y="{top + plot_h + 14}" font-size="9" '
            f'text-anchor="middle">{rep}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2}" y="{top + plot_h + 28}" font-size="9" '
        'text-anchor="middle" fill="#666">repetition</text>'
    )
    for arm in arms:
        colour = COLOURS.get(arm, OTHER)
        points = [(i + 1, p) for i, p in enumerate(entry[arm]) if p["n"]]
        band = [(r, p) for r, p in points if p["low"] is not None]
        if len(band) >= 2:
            upper = [f"{sx(r):.1f},{sy(p['high'] * scale):.1f}" for r, p in band]
            lower = [f"{sx(r):.1f},{sy(p['low'] * scale):.1f}" for r, p in reversed(band)]
            out.append(
                f'<polygon points="{" ".join(upper + lower)}" fill="{colour}" '
                'fill-opacity="0.15" stroke="none"/>'
            )
        line = " ".join(f"{sx(r):.1f},{sy(p['mean'] * scale):.1f}" for r, p in points)
        if line:
            out.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for r, p in points:
            out.append(
                f'<circle cx="{sx(r):.1f}" cy="{sy(p["mean"] * scale):.1f}" r="3" '
                f'fill="{colour}"><title>{escape(arm)} rep {r}: '
                f"{p['mean'] * scale:.4g}</title></circle>"
            )
    return "\n".join(out)


def _tick(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 100 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.2g}"
