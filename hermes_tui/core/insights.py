"""Is the agent getting better? Figures from what is already recorded, nothing new tracked.

Sources: sessions.db (turns, tool calls, tool errors, skills loaded per session), the skills'
usage records (uses, success rate, provenance), the audit log (skill patches over time, memory
fill over time, what reviews and the curator changed) and the review records. `compute()` is a
pure read; `render_text()` is what `hermes-tui insights` prints and the Insights screen shows.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from hermes_tui.core.skills.usage import parse_time

DAY = 86_400.0
BLOCKS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class SessionStats:
    id: str
    title: str
    started_at: float
    turns: int
    tool_calls: int
    tool_errors: int
    skills_loaded: tuple[str, ...]


@dataclass(frozen=True)
class SkillStats:
    name: str
    provenance: str
    uses: int
    successes: int
    failures: int
    patches: int
    patches_per_day: tuple[int, ...]  # oldest day first, one per day of the window
    created_in_window: bool = False  # written (by the agent, a review or the user) lately

    @property
    def success_rate(self) -> float | None:
        judged = self.successes + self.failures
        return None if judged == 0 else self.successes / judged


@dataclass(frozen=True)
class Insights:
    days: int
    since: float
    sessions: tuple[SessionStats, ...]
    skills: tuple[SkillStats, ...]
    memory_fill: dict[str, tuple[int, ...]]  # target -> chars after each write, in order
    memory_limits: dict[str, int]
    reviews: dict[str, int]
    curator: dict[str, int]
    learned_by: dict[str, int] = field(default_factory=dict)  # audit writes per origin

    @property
    def totals(self) -> dict[str, int]:
        return {
            "sessions": len(self.sessions),
            "turns": sum(s.turns for s in self.sessions),
            "tool_calls": sum(s.tool_calls for s in self.sessions),
            "tool_errors": sum(s.tool_errors for s in self.sessions),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "days": self.days,
            "since": self.since,
            "totals": self.totals,
            "sessions": [asdict(s) for s in self.sessions],
            "skills": [{**asdict(s), "success_rate": s.success_rate} for s in self.skills],
            "memory_fill": self.memory_fill,
            "memory_limits": self.memory_limits,
            "reviews": self.reviews,
            "curator": self.curator,
            "learned_by": self.learned_by,
        }


def compute(
    *,
    sessions: Any,
    library: Any,
    audit: Any,
    reviews: Any,
    memory_limits: dict[str, int],
    days: int = 30,
    now: float | None = None,
) -> Insights:
    now = time.time() if now is None else now
    since = now - days * DAY
    session_stats = tuple(
        _session_stats(info, sessions.messages(info.id))
        for info in sorted(sessions.list(limit=100_000), key=lambda s: s.created_at)
        if info.updated_at >= since
    )
    records = [r for r in audit.records() if r.time >= since]
    return Insights(
        days=days,
        since=since,
        sessions=session_stats,
        skills=_skill_stats(library, records, since, days),
        memory_fill=_memory_fill(records),
        memory_limits=dict(memory_limits),
        reviews=_review_stats(r for r in reviews.list() if r.started_at >= since),
        curator=_curator_stats(records),
        learned_by=dict(sorted(Counter(r.origin for r in records).items())),
    )


def _session_stats(info: Any, stored: Iterable[Any]) -> SessionStats:
    turns = calls = errors = 0
    loaded: list[str] = []
    for item in stored:
        message = item.message
        if message.role == "user":
            turns += 1
        for call in message.tool_calls:
            calls += 1
            if call.name == "skill_view":
                name = (call.parsed_arguments() or {}).get("name")
                if isinstance(name, str) and name not in loaded:
                    loaded.append(name)
        if message.role == "tool" and _failed(message.content):
            errors += 1
    return SessionStats(info.id, info.title, info.created_at, turns, calls, errors, tuple(loaded))


def _failed(content: str) -> bool:
    try:
        outcome = json.loads(content)
    except (ValueError, RecursionError, TypeError):
        return False
    return isinstance(outcome, dict) and outcome.get("success") is False


def _skill_stats(
    library: Any, records: Sequence[Any], since: float, days: int
) -> tuple[SkillStats, ...]:
    usage = library.usage.all()
    patches: dict[str, list[float]] = {}
    for record in records:
        if record.kind == "skill" and record.action in ("patch", "edit", "write_file"):
            patches.setdefault(record.target, []).append(record.time)
    stats = []
    for skill in library.scan():
        if skill.broken:
            continue
        record = usage.get(skill.name, {})
        per_day = [0] * days
        for moment in patches.get(skill.name, []):
            per_day[min(days - 1, max(0, int((moment - since) // DAY)))] += 1
        stats.append(
            SkillStats(
                name=skill.name,
                provenance=library.provenance(skill),
                uses=int(record.get("use_count", 0) or 0),
                successes=int(record.get("success_count", 0) or 0),
                failures=int(record.get("failure_count", 0) or 0),
                patches=len(patches.get(skill.name, [])),
                patches_per_day=tuple(per_day),
                created_in_window=(parse_time(record.get("created_at")) or 0) >= since,
            )
        )
    stats.sort(key=lambda s: (-s.uses, -s.patches, s.name))
    return tuple(stats)


def _memory_fill(records: Sequence[Any]) -> dict[str, tuple[int, ...]]:
    fill: dict[str, list[int]] = {"memory": [], "user": []}
    for record in records:
        if record.kind == "memory" and record.target in fill and record.after is not None:
            fill[record.target].append(len(record.after))
    return {target: tuple(values) for target, values in fill.items()}


def _review_stats(records: Iterable[Any]) -> dict[str, int]:
    stats: Counter[str] = Counter()
    for record in records:
        stats["reviews"] += 1
        stats[record.status] += 1
        stats["changes"] += len(record.changes)
    return {key: stats[key] for key in ("reviews", "done", "failed", "changes")}


def _curator_stats(records: Sequence[Any]) -> dict[str, int]:
    actions = Counter(r.action for r in records if r.origin == "curator")
    return dict(sorted(actions.items()))


# ---- text --------------------------------------------------------------------------------------


def sparkline(values: Sequence[int | float], top: float | None = None) -> str:
    """One block per value, scaled to `top` (default: the largest); zero is the lowest block."""
    top = max(values, default=0) if top is None else top
    if top <= 0:
        return BLOCKS[1] * len(values)
    steps = len(BLOCKS) - 2
    return "".join(BLOCKS[1 + round(min(v, top) / top * steps)] for v in values)


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def bar(value: int, top: int, width: int = 20) -> str:
    if top <= 0 or value <= 0:
        return ""
    return "█" * max(1, round(value / top * width))


def fit(line: str, width: int) -> str:
    """`line` cut to `width` columns with an ellipsis: a row never wraps into the next."""
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"


def render_text(insights: Insights, *, width: int = 100) -> str:
    """The report as text whose every line fits `width` columns (80-column terminals and the
    app's dialog included): names, skill lists and sparklines give way first."""
    totals = insights.totals
    lines = [
        f"Last {plural(insights.days, 'day')}: "
        f"{plural(totals['sessions'], 'session')}, {plural(totals['turns'], 'turn')}, "
        f"{plural(totals['tool_calls'], 'tool call')}, {plural(totals['tool_errors'], 'tool error')}",
        "",
        "Sessions, oldest first (bar and number: tool calls; ✗ tool errors)",
    ]
    title_width = max(12, min(36, width - 64))
    top = max((s.tool_calls for s in insights.sessions), default=0)
    for index, stats in enumerate(insights.sessions[-15:], 1):
        title = (stats.title or stats.id)[:title_width].ljust(title_width)
        row = (
            f"  {index:>2} {title} {bar(stats.tool_calls, top, 16):<16} "
            f"{stats.tool_calls:>3} calls {stats.tool_errors:>2} ✗"
        )
        if stats.skills_loaded:
            row = fit(f"{row}  skills: {', '.join(stats.skills_loaded)}", width)
        lines.append(row)
    if not insights.sessions:
        lines.append("  (no sessions yet)")
    # name, provenance, uses, rate and patches take 32 columns besides the name and the line
    name_width = max(12, min(26, width - 32 - 30))
    days = max(0, min(30, width - 32 - name_width))
    lines += ["", f"Skills: uses, success rate, ✎ patches (one block per day, last {days} days)"]
    shown = [s for s in insights.skills if s.uses or s.patches or s.created_in_window][:15]
    for skill in shown:
        rate = "    –" if skill.success_rate is None else f"{skill.success_rate:>5.0%}"
        spark = sparkline(skill.patches_per_day[-days:]) if days else ""
        lines.append(
            f"  {skill.name[:name_width]:<{name_width}} {skill.provenance:<8} {skill.uses:>3} "
            f"uses {rate} {skill.patches:>2} ✎ {spark}".rstrip()
        )
    if not shown:
        lines.append("  (no skill created, used or patched in this window)")
    lines += ["", "Memory fill after each write (full block = the limit)"]
    writes = max(0, min(40, width - 34))
    for target, values in insights.memory_fill.items():
        limit = insights.memory_limits.get(target, 0)
        now = f"{values[-1]:,}/{limit:,} chars" if values else "no writes"
        spark = sparkline(values[-writes:], top=limit) if writes else ""
        lines.append(f"  {target:<7} {spark} {now}")
    reviews = insights.reviews
    curator = ", ".join(f"{a.replace('_', ' ')} {n}" for a, n in insights.curator.items())
    origins = ", ".join(f"{o} {n}" for o, n in insights.learned_by.items())
    lines += [
        "",
        f"Reviews: {reviews['reviews']} ({reviews['done']} done, {reviews['failed']} failed), "
        f"{plural(reviews['changes'], 'change')}",
        f"Curator: {curator or 'no changes'}",
        f"Learning writes by origin: {origins or 'none'}",
    ]
    return "\n".join(fit(line, width) for line in lines)
