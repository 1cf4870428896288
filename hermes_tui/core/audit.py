"""Append-only audit trail of every learning write: `<home>/logs/audit.jsonl`.

One JSON object a line: time, origin, kind (memory or skill), action, target, before, after.
Lines are appended under the file's lock, so two processes never interleave a record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import append_line, ensure_private_dir


@datarecord
class AuditRecord:
    """One line of logs/audit.jsonl: who changed what, when, from what to what."""

    time: float
    origin: str
    kind: str
    action: str
    target: str
    before: str | None
    after: str | None
    detail: str = ""


class AuditLog:
    def __init__(self, path: Path, redact: Callable[[str], str] = str) -> None:
        self.path = path
        self.redact = redact  # the runtime's Redactor.text: logs/ never keeps a secret

    def record(
        self,
        *,
        origin: str,
        kind: str,
        action: str,
        target: str,
        before: str | None,
        after: str | None,
        detail: str = "",
    ) -> AuditRecord:
        entry = AuditRecord(time.time(), origin, kind, action, target, before, after, detail)
        ensure_private_dir(self.path.parent)  # logs/ holds every before/after text: 0700
        append_line(self.path, self.redact(json.dumps(asdict(entry), ensure_ascii=False)))
        return entry

    def records(self) -> Iterator[AuditRecord]:
        """Every readable record, oldest first; a torn or foreign line is skipped, not fatal."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    raw = json.loads(line)
                    yield AuditRecord(**raw)
                except (json.JSONDecodeError, TypeError):
                    continue
