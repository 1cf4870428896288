"""The curator: keeps the agent's own skills healthy without ever deleting anything.

A deterministic pass over agent-created, unpinned skills in the home root: unused for
`stale_after_days` → stale; unused for `archive_after_days` → archived (restorable); a stale
skill used again → active. The first run only records its time, so installing hermes-tui on an
old Hermes home does not archive half of it at once. Before changing anything it writes a
tar.gz backup of skills/ (the newest `keep` are kept) and every run leaves
`logs/curator/<ts>/REPORT.md`. With `consolidate`, a model pass may merge overlapping skills,
naming `absorbed_into` for every skill it retires. The clock is injectable for tests.

Hermes parity: `skills/.curator_state` is read and rewritten with every key it already had
(Hermes keeps `paused`, `run_count`, `last_run_summary`, …); a paused curator is never due; a
scheduled pass waits for `min_idle_hours` without use. By hand: prune, backup, rollback (a
rollback first backs up what it replaces, so it can itself be rolled back).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.events import Notice, Sink, discard
from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.library import SkillError, SkillLibrary
from hermes_tui.core.skills.schedule import STATE_FILE, CuratorPolicy, idle_hours, read_state
from hermes_tui.core.skills.schedule import due as scheduled_pass_due
from hermes_tui.core.skills.usage import iso_now, parse_time
from hermes_tui.core.storage import atomic_write_text, ensure_private_dir

if TYPE_CHECKING:  # imported where archives are made or read: `chat -q` only asks `due()`
    import tarfile

DAY = 86_400


class CuratorError(Exception):
    """A curator request that cannot be carried out; the message says why and what to do."""


@datarecord
class Backup:
    """One tar.gz snapshot of skills/ with what it was taken for."""

    id: str
    path: Path
    created_at: float
    reason: str
    skills: int


@datarecord
class CuratorAction:
    name: str
    action: str  # mark_stale, archive, reactivate, consolidate
    reason: str


@datarecord(frozen=False)
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
        config: CuratorPolicy | None = None,
        *,
        clock: Callable[[], float] = time.time,
        sink: Sink = discard,
        last_activity: Callable[[], float | None] = lambda: None,
    ) -> None:
        self.library = library
        self.home = home
        self.config = config or CuratorPolicy()
        self.clock = clock
        self.sink = sink
        # When the agent was last used before this process started (None: never, or unknown).
        self.last_activity = last_activity
        self.state_path = library.skills_dir / STATE_FILE
        self.backups_dir = home / "logs" / "curator" / "backups"

    # ---- state ---------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        return read_state(self.state_path)

    def _save_state(self, **changes: Any) -> None:
        """Rewrite .curator_state with `changes`, keeping every key already there."""
        state = self._state()
        state.update(changes)
        atomic_write_text(self.state_path, json.dumps(state, indent=2, sort_keys=True) + "\n")

    def last_run(self) -> float | None:
        return parse_time(self._state().get("last_run_at"))

    @property
    def paused(self) -> bool:
        return bool(self._state().get("paused"))

    def set_paused(self, paused: bool) -> None:
        self._save_state(paused=paused)

    def idle_hours(self) -> float | None:
        return idle_hours(self.last_activity(), self.clock())

    def due(self) -> bool:
        """Whether a scheduled pass should run now (an explicit `curator run` always may)."""
        return scheduled_pass_due(self.config, self.state_path, self.clock, self.last_activity)

    def status(self) -> dict[str, Any]:
        last = self.last_run()
        candidates = self.plan()
        state = self._state()
        return {
            "enabled": self.config.enabled,
            "paused": bool(state.get("paused")),
            "run_count": state.get("run_count", 0),
            "last_run_summary": state.get("last_run_summary"),
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
            last = _last_moment(record)
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
        started = time.monotonic()
        first = self.last_run() is None
        report = CuratorReport(now, dry_run, first)
        if not first:
            report.actions = self.plan()
        if not dry_run:
            if (report.actions or consolidate is not None) and self.config.backup_enabled:
                report.backup = self.backup("before curator run").path
            for action in report.actions:
                self._apply(action, report)
            if consolidate is not None:
                report.actions += consolidate([name for name, _ in self._managed()])
        report.report = self._write_report(report)
        if not dry_run:
            self._save_state(
                last_run_at=iso_now(self.clock),
                last_run_duration_seconds=round(time.monotonic() - started, 3),
                last_run_summary=report.summary(),
                last_report_path=str(report.report),
                run_count=int(self._state().get("run_count") or 0) + 1,
            )
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

    # ---- by hand: prune, backups, rollback ----------------------------------------------

    def prune_plan(self, days: float) -> list[CuratorAction]:
        """Managed skills idle for at least `days` (what `curator prune` would archive)."""
        if days < 0:
            raise CuratorError(f"--days must be 0 or more, not {days:g}")
        now = self.clock()
        actions = []
        for name, record in self._managed():
            last = _last_moment(record)
            if last is not None and (now - last) / DAY >= days:
                actions.append(
                    CuratorAction(name, "archive", f"unused for {(now - last) / DAY:.0f} days")
                )
        return actions

    def prune(self, days: float) -> CuratorReport:
        """Archive every managed skill idle for `days` or more, after a backup."""
        report = CuratorReport(self.clock(), False, False, self.prune_plan(days))
        if report.actions:
            report.backup = self.backup(f"before prune --days {days:g}").path
        for action in report.actions:
            self._apply(action, report)
        report.report = self._write_report(report)
        if report.actions or report.errors:
            self.sink(Notice("info", f"curator prune: {report.summary()}"))
        return report

    def backup(self, reason: str = "manual") -> Backup:
        """A tar.gz snapshot of skills/ (with a .json beside it saying why); keeps the newest."""
        ensure_private_dir(self.backups_dir)  # logs/ and its folders: 0700
        now = self.clock()
        stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%SZ")
        path = self.backups_dir / f"skills-{stamp}.tar.gz"
        serial = 1
        while path.exists():  # two in one second: a rollback's own backup, say
            serial += 1
            path = self.backups_dir / f"skills-{stamp}-{serial}.tar.gz"
        skills = sum(1 for _ in self.library.skills_dir.rglob("SKILL.md"))
        partial = path.with_name(path.name + ".partial")
        import tarfile

        with tarfile.open(partial, "w:gz") as archive:
            archive.add(self.library.skills_dir, arcname="skills", filter=_skip_locks)
        partial.replace(path)
        manifest = {"created_at": iso_now(lambda: now), "reason": reason, "skills": skills}
        atomic_write_text(_manifest_of(path), json.dumps(manifest, indent=2) + "\n")
        for old in self.backups()[self.config.backup_keep :]:
            old.path.unlink(missing_ok=True)
            _manifest_of(old.path).unlink(missing_ok=True)
        return Backup(_backup_id(path), path, now, reason, skills)

    def backups(self) -> list[Backup]:
        """Snapshots, newest first."""
        found = []
        for path in self.backups_dir.glob("skills-*.tar.gz"):
            try:
                manifest = json.loads(_manifest_of(path).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                manifest = {}
            created = parse_time(manifest.get("created_at")) or path.stat().st_mtime
            found.append(
                Backup(
                    _backup_id(path),
                    path,
                    created,
                    str(manifest.get("reason") or "curator run"),
                    int(manifest.get("skills") or 0),
                )
            )
        return sorted(found, key=lambda b: (b.created_at, b.id), reverse=True)

    def rollback(self, backup_id: str | None = None) -> tuple[Backup, Backup]:
        """Put skills/ back as the snapshot `backup_id` (default: newest) has it.

        What is there now is backed up first and that backup is returned beside the one
        restored, so a rollback can be undone with another. The new tree is unpacked beside the
        old one and swapped in with renames, so a failure leaves skills/ as it was.
        """
        import tarfile

        available = self.backups()
        if not available:
            raise CuratorError("no curator backups yet; `hermes-tui curator backup` makes one")
        chosen = available[0] if backup_id is None else _find_backup(available, backup_id)
        skills_dir = self.library.skills_dir
        staging = Path(tempfile.mkdtemp(prefix=".rollback-", dir=skills_dir.parent))
        try:
            with tarfile.open(chosen.path) as archive:
                archive.extractall(staging, filter="data")
            restored = staging / "skills"
            if not restored.is_dir():
                raise CuratorError(f"{chosen.path} holds no skills/ folder; it was not restored")
            safety = self.backup(f"before rollback to {chosen.id}")
            old = skills_dir.with_name(f".skills-replaced-{safety.id}")
            skills_dir.rename(old)
            restored.rename(skills_dir)
            shutil.rmtree(old)  # its content is in `safety`
        except (OSError, tarfile.TarError) as exc:
            raise CuratorError(f"rollback to {chosen.id} failed, skills/ unchanged: {exc}") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if self.library.audit is not None:
            self.library.audit.record(
                origin="user",
                kind="skill",
                action="rollback",
                target="skills/",
                before=safety.id,
                after=chosen.id,
                detail=f"restored backup {chosen.id}; the replaced tree is backup {safety.id}",
            )
        self.sink(Notice("info", f"curator: skills/ rolled back to backup {chosen.id}"))
        return chosen, safety

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
        ensure_private_dir(path.parent)
        atomic_write_text(path, "\n".join(lines) + "\n")
        return path


def _last_moment(record: dict[str, Any]) -> float | None:
    moments = [
        parse_time(record.get(k))
        for k in ("last_used_at", "last_viewed_at", "last_patched_at", "created_at")
    ]
    return max((m for m in moments if m is not None), default=None)


def _skip_locks(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    # Lock files are held by live processes; restoring them would restore nothing useful.
    return None if "/.locks" in info.name else info


def _manifest_of(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".tar.gz") + ".json")


def _backup_id(path: Path) -> str:
    return path.name.removeprefix("skills-").removesuffix(".tar.gz")


def _find_backup(available: list[Backup], backup_id: str) -> Backup:
    for backup in available:
        if backup.id == backup_id:
            return backup
    known = ", ".join(b.id for b in available[:10])
    raise CuratorError(f"no curator backup {backup_id!r}; known: {known}")
