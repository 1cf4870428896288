"""Specification of the curator, with a fake clock."""

from __future__ import annotations

import tarfile
import time
from pathlib import Path

from helpers import skill_text

from hermes_tui.config import CuratorConfig
from hermes_tui.core.skills.curator import Curator
from hermes_tui.core.skills.library import SkillLibrary

DAY = 86_400


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def _setup(home: Path) -> tuple[SkillLibrary, Curator, Clock]:
    library = SkillLibrary(home / "skills")
    for name in ("agent-old", "agent-stale", "agent-fresh", "agent-pinned"):
        library.create(name, skill_text(name), origin="review")
    library.create("users-own", skill_text("users-own"), origin="user")
    library.set_pinned("agent-pinned", True)
    clock = Clock()
    curator = Curator(library, home, CuratorConfig(), clock=clock)
    curator.run()  # the first run only records the time
    return library, curator, clock


def _age(library: SkillLibrary, name: str, days: float, clock: Clock) -> None:
    stamp = clock.now - days * DAY
    library.usage.update(name, lambda r: r.update(created_at=stamp, last_used_at=stamp))


def test_first_run_only_records_the_time(home: Path) -> None:
    library = SkillLibrary(home / "skills")
    library.create("ancient", skill_text("ancient"), origin="review")
    library.usage.update("ancient", lambda r: r.update(created_at=0, last_used_at=0))
    report = Curator(library, home, CuratorConfig()).run()
    assert report.first_run and report.actions == [] and library.get("ancient") is not None
    assert (home / "skills" / ".curator_state").exists()


def test_unused_agent_skills_go_stale_then_archived_and_can_be_restored(home: Path) -> None:
    library, curator, clock = _setup(home)
    _age(library, "agent-stale", 31, clock)
    _age(library, "agent-old", 91, clock)
    _age(library, "agent-pinned", 200, clock)
    _age(library, "users-own", 200, clock)
    clock.now += 8 * DAY
    assert curator.due()
    report = curator.run()
    assert {(a.name, a.action) for a in report.actions} == {
        ("agent-stale", "mark_stale"),
        ("agent-old", "archive"),
    }
    assert library.usage.get("agent-stale")["state"] == "stale"
    assert library.get("agent-old") is None and "agent-old" in library.archived_skills()
    assert library.get("agent-pinned") is not None and library.get("users-own") is not None
    assert (
        report.report.read_text().count("- ") >= 2
        and "archive: agent-old" in report.report.read_text()
    )
    with tarfile.open(report.backup) as backup:
        assert "skills/agent-old/SKILL.md" in backup.getnames()
    library.restore("agent-old")
    assert library.get("agent-old") is not None


def test_a_stale_skill_used_again_becomes_active(home: Path) -> None:
    library, curator, clock = _setup(home)
    library.usage.set_state("agent-fresh", "stale")
    report = curator.run()
    assert [(a.name, a.action) for a in report.actions] == [("agent-fresh", "reactivate")]
    assert library.usage.get("agent-fresh")["state"] == "active"


def test_dry_run_changes_nothing(home: Path) -> None:
    library, curator, clock = _setup(home)
    _age(library, "agent-old", 120, clock)
    state_before = (home / "skills" / ".curator_state").read_text()
    report = curator.run(dry_run=True)
    assert [(a.name, a.action) for a in report.actions] == [("agent-old", "archive")]
    assert library.get("agent-old") is not None and report.backup is None
    assert (home / "skills" / ".curator_state").read_text() == state_before
    assert "would archive 1" in report.summary()


def test_only_five_backups_are_kept(home: Path) -> None:
    library, curator, clock = _setup(home)
    for _day in range(7):
        clock.now += DAY
        library.usage.set_state("agent-fresh", "stale")
        curator.run()
    assert len(list((home / "logs" / "curator" / "backups").glob("*.tar.gz"))) == 5
