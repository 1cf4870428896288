"""Specification of the skills index that goes into the system prompt."""

from __future__ import annotations

from pathlib import Path

from helpers import skill_text, write_skill

from hermes_tui.core.skills.index import build_index
from hermes_tui.core.skills.library import SkillLibrary


def _library(home: Path, count: int, categories: int) -> SkillLibrary:
    skills = home / "skills"
    for i in range(count):
        name = f"skill-{i:04d}"
        write_skill(
            skills,
            name,
            f"cat-{i % categories:02d}",
            skill_text(name, f"Playbook number {i} for doing a task."),
        )
    return SkillLibrary(skills)


def test_lists_sorted_categories_with_descriptions_cut_to_60_chars(home: Path) -> None:
    skills = home / "skills"
    write_skill(skills, "zeta", "ops", skill_text("zeta", "x" * 80))
    write_skill(skills, "alpha", "dev")
    write_skill(skills, "broken", "dev", "---\nname: broken\n---\n\nbody\n")
    library = SkillLibrary(skills)
    index = build_index(library.scan(), {}, 6000)
    assert index == f"dev:\n- alpha: Does a thing well.\nops:\n- zeta: {'x' * 59}…"


def test_budget_keeps_pinned_and_most_used_and_folds_the_rest(home: Path) -> None:
    library = _library(home, 60, 3)
    usage = {
        "skill-0059": {"pinned": True},
        "skill-0001": {"use_count": 40},
        "skill-0002": {"use_count": 3},
    }
    index = build_index(library.scan(), usage, 400)
    assert len(index) <= 400
    assert "skill-0059" in index and "skill-0001" in index
    assert "more (use skills_list)" in index
    folded = sum(
        int(line.split()[-4]) for line in index.splitlines() if "more (use skills_list)" in line
    )
    shown = sum(1 for line in index.splitlines() if line.startswith("- skill-"))
    assert folded + shown == 60


def test_thousand_skills_fit_the_default_budget(home: Path) -> None:
    library = _library(home, 1000, 40)
    index = build_index(library.scan(), {}, 6000)
    assert len(index) <= 6000
    assert index.count("more (use skills_list)") >= 1


def test_relevant_skills_are_kept_before_unused_ones(home: Path) -> None:
    library = _library(home, 60, 3)
    index = build_index(library.scan(), {}, 300, relevant={"skill-0042"})
    assert "skill-0042" in index


def test_library_index_is_reused_until_a_skill_or_usage_changes(home: Path) -> None:
    library = _library(home, 30, 3)
    first = library.index(200)
    assert library.index(200) is first
    library.usage.set_pinned("skill-0029", True)
    second = library.index(200)
    assert second is not first and "skill-0029" in second
    write_skill(home / "skills", "brand-new", "cat-00")
    assert "brand-new" in library.index(10_000)
