"""The curator: keeps the agent's own skills healthy without ever deleting anything.

A deterministic pass over agent-created, unpinned skills in the home root: unused for
`stale_after_days` → stale; unused for `archive_after_days` → archived (restorable); a stale
skill used again → active. The first run only records its time, so installing hermes-tui on an
old Hermes home does not archive half of it at once. Before changing anything it writes a
tar.gz backup of skills/ (the newest 5 are kept) and every run leaves
`logs/curator/<ts>/REPORT.md`. With `consolidate`, a model pass may merge overlapping skills,
naming `absorbed_into` for every skill it retires. The clock is injectable for tests.
"""

from __future__ import annotations

import json
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hermes_tui.config import CuratorConfig
from hermes_tui.core.events import Notice, Sink, discard
from hermes_tui.core.skills.library import SkillError, SkillLibrary
from hermes_tui.core.skills.usage import iso_now, parse_time
from hermes_tui.core.storage import atomic_write_text

DAY = 86_400
KEEP_BACKUPS = 5


@dataclass(frozen=True)
class CuratorAction:
    name: str
    action: str  # mark_stale, archive, reactivate, consolidate
    reason: str


@dataclass
class CuratorReport:
    ran_at: float
    dry_run: bool
    first_run: bool
    actions: list[CuratorAction] = field(default_factory=list)
    backup: Path | None = None
    report: Path | None = None
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.first_run:
            verb = "would only record" if self.dry_run else "recorded"
            return f"first run: {verb} the time; skills are judged from the next run on"
        if not self.actions:
            return "nothing to do"
        counts: dict[str, int] = {}
        for action in self.actions:
            counts[action.action] = counts.get(action.action, 0) + 1
        verb = "would " if self.dry_run else ""
        return ", ".join(f"{verb}{name.replace('_', ' ')} {n}" for name, n in counts.items())


class Curator:
    def __init__(
        self,
        library: SkillLibrary,
        home: Path,
        config: CuratorConfig,
        *,
        clock: Callable[[], float] = time.time,
        sink: Sink = discard,
    ) -> None:
        self.library = library
        self.home = home
        self.config = config
        self.clock = clock
        self.sink = sink
        self.state_path = library.skills_dir / ".curator_state"

    # ---- state ---------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def last_run(self) -> float | None:
        return parse_time(self._state().get("last_run_at"))

    def due(self) -> bool:
        last = self.last_run()
        return self.config.enabled and (
            last is None or self.clock() - last >= self.config.interval_hours * 3600
        )

    def status(self) -> dict[str, Any]:
        last = self.last_run()
        candidates = self.plan()
        return {
            "enabled": self.config.enabled,
            "last_run_at": datetime.fromtimestamp(last, UTC).isoformat(timespec="seconds")
            if last
            else None,
            "next_due_at": datetime.fromtimestamp(
                last + self.config.interval_hours * 3600, UTC
            ).isoformat(timespec="seconds")
            if last
            else "now",
            "due": self.due(),
            "agent_skills": len(self._managed()),
            "pending_actions": [a.__dict__ for a in candidates],
        }

    # ---- the deterministic pass ---------------------------------------------------------

    def _managed(self) -> list[tuple[str, dict[str, Any]]]:
        usage = self.library.usage.all()
        managed = []
        for skill in self.library.scan():
            record = usage.get(skill.name, {})
            if skill.root.kind != "home" or skill.broken or skill.duplicate_of is not None:
                continue
            if record.get("created_by") != "agent" or record.get("pinned"):
                continue
            managed.append((skill.name, record))
        return managed

    def plan(self) -> list[CuratorAction]:
        now = self.clock()
        actions = []
        for name, record in self._managed():
            moments = [
                parse_time(record.get(k))
                for k in ("last_used_at", "last_viewed_at", "last_patched_at", "created_at")
            ]
            last = max((m for m in moments if m is not None), default=None)
            if last is None:
                continue
            idle_days = (now - last) / DAY
            state = record.get("state", "active")
            if idle_days >= self.config.archive_after_days:
                actions.append(CuratorAction(name, "archive", f"unused for {idle_days:.0f} days"))
            elif idle_days >= self.config.stale_after_days and state != "stale":
                actions.append(
                    CuratorAction(name, "mark_stale", f"unused for {idle_days:.0f} days")
                )
            elif idle_days < self.config.stale_after_days and state == "stale":
                actions.append(CuratorAction(name, "reactivate", f"used {idle_days:.0f} days ago"))
        return actions

    def run(
        self,
        *,
        dry_run: bool = False,
        consolidate: Callable[[list[str]], list[CuratorAction]] | None = None,
    ) -> CuratorReport:
        now = self.clock()
        first = self.last_run() is None
        report = CuratorReport(now, dry_run, first)
        if not first:
            report.actions = self.plan()
        if not dry_run:
            if report.actions or consolidate is not None:
                report.backup = self._backup(now)
            for action in report.actions:
                self._apply(action, report)
            if consolidate is not None:
                report.actions += consolidate([name for name, _ in self._managed()])
            atomic_write_text(
                self.state_path, json.dumps({"last_run_at": iso_now(self.clock)}) + "\n"
            )
        report.report = self._write_report(report)
        if report.actions or report.errors:  # a run that changed nothing is not worth a toast
            self.sink(Notice("info", f"curator: {report.summary()}"))
        return report

    def _apply(self, action: CuratorAction, report: CuratorReport) -> None:
        try:
            if action.action == "archive":
                self.library.archive(action.name, origin="curator", reason="curator_archive")
            elif action.action in ("mark_stale", "reactivate"):
                before = self.library.usage.get(action.name).get("state", "active")
                after = "stale" if action.action == "mark_stale" else "active"
                self.library.usage.set_state(action.name, after)
                if self.library.audit is not None:
                    self.library.audit.record(
                        origin="curator",
                        kind="skill",
                        action=action.action,
                        target=action.name,
                        before=before,
                        after=after,
                        detail=action.reason,
                    )
        except SkillError as exc:
            report.errors.append(f"{action.name}: {exc}")

    def _backup(self, now: float) -> Path:
        folder = self.home / "logs" / "curator" / "backups"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%SZ")
        path = folder / f"skills-{stamp}.tar.gz"
        with tarfile.open(path, "w:gz") as archive:
            archive.add(self.library.skills_dir, arcname="skills")
        for old in sorted(folder.glob("skills-*.tar.gz"))[:-KEEP_BACKUPS]:
            old.unlink()
        return path

    def _write_report(self, report: CuratorReport) -> Path:
        stamp = datetime.fromtimestamp(report.ran_at, UTC).strftime("%Y%m%dT%H%M%SZ")
        path = self.home / "logs" / "curator" / stamp / "REPORT.md"
        lines = [
            f"# Curator run {stamp}{' (dry run)' if report.dry_run else ''}",
            "",
            f"Summary: {report.summary()}",
            f"Rules: stale after {self.config.stale_after_days} days unused, archived after "
            f"{self.config.archive_after_days}; only agent-created, unpinned skills; nothing is deleted.",
            f"Backup: {report.backup or 'none (nothing changed)'}",
            "",
        ]
        lines += [f"- {a.action}: {a.name} ({a.reason})" for a in report.actions] or [
            "- no changes"
        ]
        lines += [f"- error: {e}" for e in report.errors]
        atomic_write_text(path, "\n".join(lines) + "\n")
        return path
