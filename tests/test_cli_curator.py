"""`hermes-tui curator` beyond status and run, as a Hermes user reaches for it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_main, skill_text

from hermes_tui.core.skills.library import SkillLibrary


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`hermes-tui --home HOME curator ARGS…` with no terminal (in this process: see run_main)."""
    return lambda *args, home: run_main(capsys, home, "curator", *args)


def _agent_skills(home: Path, *names: str, idle_days: float = 0) -> SkillLibrary:
    library = SkillLibrary(home / "skills")
    for name in names:
        library.create(name, skill_text(name), origin="review")
        if idle_days:
            library.usage.update(
                name, lambda r: r.update(created_at=1_000_000_000, last_used_at=1_000_000_000)
            )
    return library


def test_pause_and_resume_keep_hermes_state_keys(
    home: Path, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    (home / "skills").mkdir(parents=True)
    state = home / "skills" / ".curator_state"
    state.write_text(json.dumps({"last_run_at": "2026-01-01T00:00:00+00:00", "run_count": 4}))
    assert run("pause", home=home).returncode == 0
    assert json.loads(state.read_text()) == {
        "last_run_at": "2026-01-01T00:00:00+00:00",
        "run_count": 4,
        "paused": True,
    }
    status = json.loads(run("status", "--json", home=home).stdout)
    assert status["paused"] is True and status["due"] is False
    assert run("resume", home=home).returncode == 0
    assert json.loads(state.read_text())["paused"] is False


def test_prune_asks_for_yes_without_a_terminal_then_archives_and_lists(
    home: Path, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    library = _agent_skills(home, "old-one", idle_days=400)
    refused = run("prune", "--days", "30", home=home)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert library.get("old-one") is not None
    dry = run("prune", "--days", "30", "--dry-run", home=home)
    assert "would archive: old-one" in dry.stdout and library.get("old-one") is not None
    done = run("prune", "--days", "30", "--yes", home=home)
    assert done.returncode == 0 and "backup:" in done.stdout
    assert SkillLibrary(home / "skills").get("old-one") is None
    listed = json.loads(run("list-archived", "--json", home=home).stdout)
    assert [row["name"] for row in listed] == ["old-one"] and listed[0]["archived_at"]
    assert run("restore", "old-one", home=home).returncode == 0
    assert SkillLibrary(home / "skills").get("old-one") is not None
    again = run("restore", "old-one", home=home)
    assert again.returncode == 1 and "no archived skill named 'old-one'" in again.stderr


def test_backup_then_rollback_undoes_a_change_and_can_be_undone(
    home: Path, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    library = _agent_skills(home, "keeper")
    made = run("backup", "--reason", "before trying things", home=home)
    assert made.returncode == 0, made.stderr
    backup_id = made.stdout.split()[1].rstrip(":")
    library.create("experiment", skill_text("experiment"), origin="review")
    listing = run("rollback", "--list", home=home)
    assert backup_id in listing.stdout and "before trying things" in listing.stdout
    assert run("rollback", "--id", backup_id, home=home).returncode == 2  # no terminal, no --yes
    assert SkillLibrary(home / "skills").get("experiment") is not None
    rolled = run("rollback", "--id", backup_id, "--yes", home=home)
    assert rolled.returncode == 0, rolled.stderr
    assert SkillLibrary(home / "skills").get("experiment") is None
    undo_id = rolled.stdout.split("--id ")[1].split()[0].rstrip("`)")
    assert run("rollback", "--id", undo_id, "--yes", home=home).returncode == 0
    assert SkillLibrary(home / "skills").get("experiment") is not None


def test_hermes_backup_setting_is_read(
    home: Path, run: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    (home / "config.yaml").write_text("curator:\n  backup:\n    enabled: true\n    keep: 2\n")
    _agent_skills(home, "keeper")
    for _ in range(4):
        assert run("backup", home=home).returncode == 0
    assert len(list((home / "logs" / "curator" / "backups").glob("*.tar.gz"))) == 2
    (home / "config.yaml").write_text("curator:\n  backup:\n    keep: 0\n")
    bad = run("backup", home=home)
    assert bad.returncode == 2 and "curator.backup.keep must be 1 or more" in bad.stderr
