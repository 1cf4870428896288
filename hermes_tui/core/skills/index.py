"""The skills index in the system prompt: categories, `- name: description`, within a budget.

Past `skills.index_max_chars` the index keeps pinned skills first, then ones relevant to the
session, then the most used, and folds the rest of each category into a line that points at
`skills_list`, so a library of a thousand skills costs the prompt a bounded, stable amount.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.model import DEFAULT_CATEGORY, Skill
from hermes_tui.core.skills.requirements import runs_here
from hermes_tui.core.skills.usage import parse_time

DESCRIPTION_CHARS = 60


@datarecord
class _Entry:
    """One skill's line in the prompt index."""

    name: str
    category: str
    line: str


def _line(skill: Skill) -> str:
    description = " ".join(skill.description.split())
    if len(description) > DESCRIPTION_CHARS:
        description = description[: DESCRIPTION_CHARS - 1] + "…"
    return f"- {skill.address}: {description}"


def _safe_name(name: str) -> str:
    # A name that itself failed must not reach the prompt either: keep only plain characters.
    plain = "".join(ch for ch in name if ch.isascii() and (ch.isalnum() or ch in "-_./"))
    return plain[:64] or "unnamed"


def _fold(category: str, count: int, whole: bool) -> str:
    if whole:
        return f"{category}: {count} more (use skills_list)"
    return f"- … {count} more (use skills_list)"


def _render(by_category: dict[str, list[_Entry]], kept: set[str]) -> str:
    blocks = []
    for category in sorted(by_category):
        entries = by_category[category]
        shown = [e.line for e in entries if e.name in kept]
        hidden = len(entries) - len(shown)
        if not shown:
            blocks.append(_fold(category, hidden, whole=True))
            continue
        lines = [f"{category}:", *shown]
        if hidden:
            lines.append(_fold(category, hidden, whole=False))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _category_cost(category: str, total: int, shown: int, shown_chars: int) -> int:
    """Characters (with newlines) one category adds to the index."""
    hidden = total - shown
    if not shown:
        return len(_fold(category, hidden, whole=True)) + 1
    cost = len(category) + 2 + shown_chars + shown
    if hidden:
        cost += len(_fold(category, hidden, whole=False)) + 1
    return cost


def build_index(
    skills: Iterable[Skill],
    usage: Mapping[str, Mapping[str, Any]],
    max_chars: int,
    relevant: Iterable[str] = (),
    screen: Callable[[str], str | None] | None = None,
) -> str:
    """The index text. `screen(text)` names the finding that keeps a skill's name and
    description out of the prompt (the line then reads `- name: [BLOCKED: id]`), or None."""
    # Hermes leaves a skill for another operating system out of the index.
    usable = [
        s for s in skills if not s.broken and s.document and runs_here(s.document.frontmatter)
    ]
    by_category: dict[str, list[_Entry]] = defaultdict(list)
    for skill in usable:
        by_category[skill.category or DEFAULT_CATEGORY].append(
            _Entry(skill.address, skill.category or DEFAULT_CATEGORY, _line(skill))
        )
    descriptions = {s.address: f"{s.name}: {s.description}" for s in usable}

    def screened(kept: set[str]) -> str:
        # Only the lines that reach the prompt are scanned (a thousand skills fold to a few
        # dozen lines), and the whole description, not only the 60 characters shown, so a
        # phrase cut at the edge cannot read as harmless.
        if screen is not None:
            for entries in by_category.values():
                for index, entry in enumerate(entries):
                    if entry.name not in kept:
                        continue
                    blocked = screen(descriptions[entry.name])
                    if blocked:
                        line = f"- {_safe_name(entry.name)}: [BLOCKED: {blocked}]"
                        entries[index] = _Entry(entry.name, entry.category, line)
        return _render(by_category, kept)

    everything = {e.name for entries in by_category.values() for e in entries}
    full = _render(by_category, everything)
    if len(full) <= max_chars:
        return screened(everything)
    relevant_names = set(relevant)

    def priority(entry: _Entry) -> tuple:
        record = usage.get(entry.name, {})
        return (
            not record.get("pinned", False),
            entry.name not in relevant_names,
            -int(record.get("use_count", 0) or 0),
            -(parse_time(record.get("last_used_at")) or 0.0),
            entry.name,
        )

    ordered = sorted((e for entries in by_category.values() for e in entries), key=priority)
    # Running per-category state, so trying one more skill costs O(1), not a re-render.
    shown = dict.fromkeys(by_category, 0)
    shown_chars = dict.fromkeys(by_category, 0)
    length = sum(_category_cost(c, len(e), 0, 0) for c, e in by_category.items()) - 1
    kept: set[str] = set()
    for entry in ordered:
        category, total = entry.category, len(by_category[entry.category])
        before = _category_cost(category, total, shown[category], shown_chars[category])
        after = _category_cost(
            category, total, shown[category] + 1, shown_chars[category] + len(entry.line)
        )
        if length - before + after <= max_chars:
            length += after - before
            shown[category] += 1
            shown_chars[category] += len(entry.line)
            kept.add(entry.name)
    return screened(kept)
