"""The eval's statistics: curves per repetition, bootstrap intervals, differences between arms.

A sample is one family's value at one repetition in one arm. Per family a curve is its values
by repetition; overall, the value at each repetition is the mean over families with a 95 %
percentile-bootstrap interval (resampling families) once there are at least MIN_SAMPLES of them.
Differences are paired by family: learn minus control at the last repetition, and, within an
arm, last repetition minus first. A difference is significant when its interval excludes 0;
with fewer samples there is no interval and nothing is called significant.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

MIN_SAMPLES = 3
RESAMPLES = 2000

# What each run records, how it reads, and which way is better.
FIGURES: dict[str, tuple[str, bool]] = {
    "passed": ("pass rate", True),
    "score": ("score", True),
    "tool_calls": ("tool calls", False),
    "tool_errors": ("tool errors", False),
    "turns": ("model calls", False),
    "tokens_in": ("tokens in", False),
    "tokens_out": ("tokens out", False),
    "cached_share": ("cached share", True),
    "cost": ("cost ($)", False),
    "wall_time": ("wall time (s)", False),
}


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float | None  # None: fewer than MIN_SAMPLES samples, no interval
    high: float | None
    n: int

    @property
    def significant(self) -> bool:
        """The interval excludes zero (for a difference)."""
        if self.low is None or self.high is None:
            return False
        return self.low > 0 or self.high < 0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "significant": self.significant}


def estimate(values: Sequence[float], rng: random.Random) -> Estimate:
    """The mean with a 95 % percentile-bootstrap interval when there are enough values."""
    n = len(values)
    if n == 0:
        return Estimate(0.0, None, None, 0)
    mean = sum(values) / n
    if n < MIN_SAMPLES:
        return Estimate(mean, None, None, n)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(RESAMPLES))
    low = means[int(0.025 * RESAMPLES)]
    high = means[int(0.975 * RESAMPLES) - 1]
    return Estimate(mean, low, high, n)


def value(record: Mapping[str, Any], figure: str) -> float | None:
    raw = record.get(figure)
    if raw is None:
        return None
    return float(raw)


def curves(
    records: Sequence[Mapping[str, Any]], arms: Sequence[str], families: Sequence[str], reps: int
) -> dict[str, dict[str, dict[str, list[float | None]]]]:
    """family → figure → arm → values by repetition (None where no run is recorded)."""
    index = {(r["arm"], r["family"], r["repetition"]): r for r in records}
    out: dict[str, dict[str, dict[str, list[float | None]]]] = {}
    for family in families:
        out[family] = {}
        for figure in FIGURES:
            out[family][figure] = {
                arm: [
                    value(index[(arm, family, rep)], figure)
                    if (arm, family, rep) in index
                    else None
                    for rep in range(1, reps + 1)
                ]
                for arm in arms
            }
    return out


def present(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def overall_curve(
    per_family: Mapping[str, Mapping[str, Mapping[str, list[float | None]]]],
    figure: str,
    arm: str,
    reps: int,
    rng: random.Random,
) -> list[Estimate]:
    return [
        estimate(present([per_family[f][figure][arm][rep] for f in per_family]), rng)
        for rep in range(reps)
    ]


def paired_difference(
    pairs: Sequence[tuple[float | None, float | None]], rng: random.Random
) -> Estimate:
    """Mean of (a - b) over the pairs where both are known, with its interval."""
    return estimate([a - b for a, b in pairs if a is not None and b is not None], rng)
