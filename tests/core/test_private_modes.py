"""What holds conversations, keys and learning writes is private to the user: 0600 files, 0700 folders."""

from __future__ import annotations

import stat
from pathlib import Path

from hermes_tui.config import load_config, set_config_value
from hermes_tui.core.audit import AuditLog
from hermes_tui.core.pending import PendingStore
from hermes_tui.core.sessions import SessionStore
from hermes_tui.runtime import Runtime


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_sessions_db_and_its_wal_are_0600(home: Path) -> None:
    store = SessionStore(home / "sessions.db")
    store.create(provider="p", model="m", system_prompt="s")
    assert _mode(home / "sessions.db") == 0o600
    assert _mode(home / "sessions.db-wal") == 0o600


def test_an_old_world_readable_sessions_db_is_tightened(home: Path) -> None:
    SessionStore(home / "sessions.db").close()
    (home / "sessions.db").chmod(0o644)
    SessionStore(home / "sessions.db")
    assert _mode(home / "sessions.db") == 0o600


def test_logs_and_pending_are_created_0700(home: Path) -> None:
    AuditLog(home / "logs" / "audit.jsonl").record(
        origin="user", kind="memory", action="add", target="memory", before="", after="x"
    )
    assert _mode(home / "logs") == 0o700 and _mode(home / "logs" / "audit.jsonl") == 0o600
    PendingStore(home / "pending").stage(
        review_id="r",
        kind="memory",
        target="memory",
        action="add",
        tool="memory",
        arguments={},
        before="",
        after="x",
    )
    assert _mode(home / "pending") == 0o700


def test_config_yaml_is_written_0600_and_an_open_one_is_tightened(home: Path) -> None:
    set_config_value(home, "display", "theme", "hermes-light")
    assert _mode(home / "config.yaml") == 0o600
    (home / "config.yaml").chmod(0o644)
    load_config(home, environ={})
    assert _mode(home / "config.yaml") == 0o600


def test_opening_a_home_tightens_its_existing_private_folders(home: Path) -> None:
    for name in ("logs", "pending", "scratch"):
        (home / name).mkdir(mode=0o755)
        (home / name).chmod(0o755)
    Runtime.open(home, environ={})
    assert all(_mode(home / name) == 0o700 for name in ("logs", "pending", "scratch"))


def test_an_open_dotenv_is_tightened_to_0600(home: Path) -> None:
    (home / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefgh01234567\n")
    (home / ".env").chmod(0o644)
    Runtime.open(home, environ={})
    assert _mode(home / ".env") == 0o600


def test_every_folder_under_logs_is_created_0700(home: Path) -> None:
    from hermes_tui.core.agent.review import ReviewRecord

    runtime = Runtime.open(home, environ={})
    runtime.reviews.save(ReviewRecord("r1", "s1", "memory", 0.0))
    runtime.run_curator(dry_run=True)  # the first run records the time; the second reports
    runtime.run_curator(dry_run=True)
    (home / "skills").mkdir()
    runtime.curator().backup("test")
    folders = [p for p in (home / "logs").rglob("*") if p.is_dir()]
    assert {p.relative_to(home / "logs").parts[0] for p in folders} >= {"reviews", "curator"}
    assert all(_mode(p) == 0o700 for p in [home / "logs", *folders]), [
        (str(p), oct(_mode(p))) for p in folders
    ]
