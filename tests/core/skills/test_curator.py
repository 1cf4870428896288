"""Specification of the curator, with a fake clock."""

from __future__ import annotations

import json
import tarfile
import time
from pathlib import Path

import pytest
from helpers import skill_text

from hermes_tui.core.skills.curator import Curator, CuratorError, CuratorPolicy
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
    curator = Curator(library, home, CuratorPolicy(), clock=clock)
    curator.run()  # the first run only records the time
    return library, curator, clock


def _age(library: SkillLibrary, name: str, days: float, clock: Clock) -> None:
    stamp = clock.now - days * DAY
    library.usage.update(name, lambda r: r.update(created_at=stamp, last_used_at=stamp))


def test_first_run_only_records_the_time(home: Path) -> None:
    library = SkillLibrary(home / "skills")
    library.create("ancient", skill_text("ancient"), origin="review")
    library.usage.update("ancient", lambda r: r.update(created_at=0, last_used_at=0))
    report = Curator(library, home, CuratorPolicy()).run()
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


def test_state_keys_hermes_wrote_survive_a_run(home: Path) -> None:
    library, curator, clock = _setup(home)
    state_path = home / "skills" / ".curator_state"
    state = json.loads(state_path.read_text())
    state.update(last_run_summary_shown_at="2026-01-01T00:00:00+00:00", _hermes_private=7)
    state_path.write_text(json.dumps(state))
    clock.now += 8 * DAY
    curator.run()
    after = json.loads(state_path.read_text())
    assert after["last_run_summary_shown_at"] == "2026-01-01T00:00:00+00:00"
    assert after["_hermes_private"] == 7
    assert after["run_count"] == 2 and after["last_report_path"].endswith("REPORT.md")
    assert after["last_run_summary"] == "nothing to do"


def test_a_paused_curator_is_never_due_until_resumed(home: Path) -> None:
    _library, curator, clock = _setup(home)
    clock.now += 8 * DAY
    curator.set_paused(True)
    assert not curator.due() and curator.status()["paused"]
    curator.set_paused(False)
    assert curator.due()


def test_a_scheduled_pass_waits_for_min_idle_hours(home: Path) -> None:
    library = SkillLibrary(home / "skills")
    clock = Clock()
    last_used = {"at": clock.now - 3600}  # the agent was used an hour ago
    curator = Curator(
        library,
        home,
        CuratorPolicy(min_idle_hours=2),
        clock=clock,
        last_activity=lambda: last_used["at"],
    )
    assert not curator.due()
    last_used["at"] = clock.now - 3 * 3600
    assert curator.due()


def test_prune_archives_idle_agent_skills_after_a_backup(home: Path) -> None:
    library, curator, clock = _setup(home)
    _age(library, "agent-stale", 40, clock)
    _age(library, "agent-pinned", 400, clock)
    _age(library, "users-own", 400, clock)
    assert [a.name for a in curator.prune_plan(30)] == ["agent-stale"]
    report = curator.prune(30)
    assert library.get("agent-stale") is None and "agent-stale" in library.archived_skills()
    assert library.get("agent-pinned") is not None and library.get("users-own") is not None
    with tarfile.open(report.backup) as backup:
        assert "skills/agent-stale/SKILL.md" in backup.getnames()


def test_rollback_restores_the_tree_and_backs_up_what_it_replaced(home: Path) -> None:
    library, curator, clock = _setup(home)
    before = curator.backup("before the experiment")
    clock.now += 1
    library.create("made-later", skill_text("made-later"), origin="review")
    (library.require("agent-fresh").skill_md).write_text(skill_text("agent-fresh", body="Changed."))
    restored, safety = curator.rollback(before.id)
    assert restored.id == before.id
    assert library.get("made-later") is None
    assert "Changed." not in library.require("agent-fresh").skill_md.read_text()
    # The rollback can itself be undone.
    curator.rollback(safety.id)
    assert library.get("made-later") is not None
    assert [b.reason for b in curator.backups()][:2] == [
        f"before rollback to {safety.id}",
        f"before rollback to {before.id}",
    ]


def test_rollback_to_an_unknown_backup_changes_nothing(home: Path) -> None:
    library, curator, _clock = _setup(home)
    curator.backup()
    with pytest.raises(CuratorError, match="no curator backup 'nope'"):
        curator.rollback("nope")
    assert library.get("agent-fresh") is not None
