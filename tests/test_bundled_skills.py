"""The bundled library: every skill valid under the Agent Skills reference rules, guard-clean,
loaded by our library, and linking only files it ships."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from skills_ref.validator import validate

from hermes_tui.core import threats
from hermes_tui.core.skills import guard
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.resources import bundled_skills_dir

BUNDLED = sorted(p.parent for p in bundled_skills_dir().rglob("SKILL.md"))


def test_the_library_ships_between_eight_and_twelve_skills() -> None:
    assert 8 <= len(BUNDLED) <= 12


@pytest.mark.parametrize("directory", BUNDLED, ids=lambda p: p.name)
def test_bundled_skill_passes_the_reference_validator(directory: Path) -> None:
    assert validate(directory) == []


@pytest.mark.parametrize("directory", BUNDLED, ids=lambda p: p.name)
def test_bundled_skill_is_guard_clean_and_free_of_injection_findings(directory: Path) -> None:
    report = guard.scan_directory(directory)
    assert report.verdict == "safe", report.summary()
    for path in directory.rglob("*.md"):
        assert threats.scan(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("directory", BUNDLED, ids=lambda p: p.name)
def test_bundled_skill_links_only_files_it_ships(directory: Path) -> None:
    text = (directory / "SKILL.md").read_text(encoding="utf-8")
    for link in re.findall(r"`((?:references|templates|scripts|assets)/[^`]+)`", text):
        assert (directory / link).is_file(), f"{directory.name} names {link}, which is missing"


@pytest.mark.parametrize("directory", BUNDLED, ids=lambda p: p.name)
def test_bundled_skill_names_related_skills_that_exist(directory: Path) -> None:
    names = {p.name for p in BUNDLED}
    text = (directory / "SKILL.md").read_text(encoding="utf-8")
    related = re.search(r"related_skills:\n((?:\s+- .+\n)+)", text)
    for name in re.findall(r"- (\S+)", related.group(1)) if related else []:
        assert name in names


def test_our_library_loads_every_bundled_skill_as_bundled(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path / "skills", bundled_dir=bundled_skills_dir())
    skills = library.scan()
    assert not [s for s in skills if s.broken]
    assert {s.name for s in skills} == {p.name for p in BUNDLED}
    assert {library.provenance(s) for s in skills} == {"bundled"}


def test_every_bundled_skill_would_install_as_safe() -> None:
    from hermes_tui.core.skills.install import Vetter, find_candidates
    from hermes_tui.core.tools.shell_policy.skill_judge import judge_skill_shell

    vetter = Vetter(shell=judge_skill_shell)
    verdicts = {
        c.name: c.explain()
        for c in find_candidates(bundled_skills_dir(), vetter)
        if c.verdict != "safe"
    }
    assert verdicts == {}
