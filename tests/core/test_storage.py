"""Specification of the durable-write primitives."""

from __future__ import annotations

import threading
from pathlib import Path

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.storage import append_line, atomic_write_text


def test_atomic_write_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    atomic_write_text(path, "one", mode=0o600)
    atomic_write_text(path, "two")
    assert path.read_text() == "two" and path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_appends_from_many_threads_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    line = "x" * 5000

    def work() -> None:
        for _ in range(50):
            append_line(path, line)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert path.read_text().splitlines() == [line] * 200


def test_audit_log_skips_a_torn_line(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record(origin="user", kind="memory", action="add", target="memory", before="", after="a")
    with log.path.open("a") as handle:
        handle.write('{"time": 1, "orig')
    log.record(origin="agent", kind="memory", action="add", target="user", before="", after="b")
    assert [r.after for r in log.records()] == ["a", "b"]
