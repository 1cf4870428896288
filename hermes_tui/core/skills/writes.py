"""Every write to a skill, with its safety net (the write half of SkillLibrary).

A write by a model (origin agent, review or curator) is scanned by guard.py after it lands and
rolled back to the exact previous bytes on a dangerous verdict. Every write keeps the previous
version in history, updates usage, is audited and is announced as a `SkillChanged` event.
Deleting archives. Read-only roots refuse writes, and pinned skills refuse the model's.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Origin, Sink, SkillChanged
from hermes_tui.core.skills import frontmatter, guard
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.model import (
    MAX_SUPPORT_BYTES,
    MODEL_ORIGINS,
    SUPPORT_DIRS,
    Skill,
    SkillError,
)
from hermes_tui.core.skills.usage import UsageError, UsageStore
from hermes_tui.core.storage import atomic_write_bytes

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WriteResult:
    name: str
    action: str
    path: Path
    verdict: guard.Verdict = "safe"
    findings: tuple[guard.GuardFinding, ...] = ()
    strategy: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Snapshot:
    """Bytes of the files a write touches, as they were before it (None: did not exist)."""

    directory_existed: bool
    files: dict[Path, bytes | None]


class SkillWrites:
    """Mixed into SkillLibrary, which provides the attributes and lookups declared here."""

    skills_dir: Path
    usage: UsageStore
    history: SkillHistory
    audit: AuditLog | None
    sink: Sink
    _write_lock: threading.RLock
    _cache: dict[str, Any]
    _dir_cache: dict[str, Any]
    get: Callable[[str], Skill | None]
    require: Callable[[str], Skill]
    linked_files: Callable[[Skill], dict[str, list[str]]]

    # ---- writes --------------------------------------------------------------------------

    def create(
        self, name: str, content: str, *, category: str | None = None, origin: Origin = "agent"
    ) -> WriteResult:
        if problem := frontmatter.check_name(name):
            raise SkillError(problem)
        if category and (problem := frontmatter.check_name(category)):
            raise SkillError(problem.replace("skill name", "category"))
        existing = self.get(name)
        if existing is not None:
            raise SkillError(
                f"a skill named {name!r} already exists ({existing.root.kind}: {existing.skill_md}); "
                "patch or edit it instead, or pick another name."
            )
        content = self._parse_for_write(name, content)
        directory = self.skills_dir / category / name if category else self.skills_dir / name
        if directory.exists():
            raise SkillError(
                f"{directory} already exists but holds no valid skill; choose another name"
            )
        with self._write_lock:
            snapshot = _Snapshot(False, {directory / "SKILL.md": None})
            atomic_write_bytes(directory / "SKILL.md", content.encode("utf-8"))
            report = self._guard_or_rollback(name, directory, snapshot, origin)
            self._count(
                lambda: self.usage.record_created(
                    name, "agent" if origin in ("review", "curator") else "user"
                )
            )
            self._after_write(
                name, "create", origin, directory / "SKILL.md", "SKILL.md", None, content
            )
        return WriteResult(name, "create", directory / "SKILL.md", report.verdict, report.findings)

    def edit(self, name: str, content: str, *, origin: Origin = "agent") -> WriteResult:
        skill = self._writable(name, origin)
        content = self._parse_for_write(skill.name, content, existing=True)
        return self._replace_file(skill, "SKILL.md", content, action="edit", origin=origin)

    def patch(
        self,
        name: str,
        old_string: str,
        new_string: str,
        *,
        replace_all: bool = False,
        file_path: str | None = None,
        origin: Origin = "agent",
    ) -> WriteResult:
        from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

        skill = self._writable(name, origin)
        if file_path and file_path.removeprefix("./") == "SKILL.md":
            file_path = None  # Hermes' way of naming the main file
        path = self._support_path(skill, file_path) if file_path else skill.skill_md
        try:
            current = path.read_bytes().decode("utf-8")
        except FileNotFoundError as exc:
            raise SkillError(f"{name} has no file {file_path!r} to patch") from exc
        try:
            replaced = find_and_replace(current, old_string, new_string, replace_all=replace_all)
        except FuzzyMatchError as exc:
            preview = current[:1500] + ("\n[...]" if len(current) > 1500 else "")
            raise SkillError(f"patch not applied: {exc}\n\nThe file starts:\n{preview}") from exc
        relative = file_path or "SKILL.md"
        content = replaced.content
        if relative == "SKILL.md":
            content = self._parse_for_write(skill.name, content, existing=True)
        result = self._replace_file(skill, relative, content, action="patch", origin=origin)
        self._count(lambda: self.usage.record_patch(skill.name))
        return WriteResult(
            name,
            "patch",
            result.path,
            result.verdict,
            result.findings,
            replaced.strategy,
            {"replacements": replaced.count},
        )

    def write_file(
        self, name: str, file_path: str, content: str, *, origin: Origin = "agent"
    ) -> WriteResult:
        skill = self._writable(name, origin)
        if len(content.encode("utf-8")) > MAX_SUPPORT_BYTES:
            raise SkillError(
                f"{file_path} would be over the {MAX_SUPPORT_BYTES:,}-byte cap for support files"
            )
        self._support_path(skill, file_path)
        return self._replace_file(skill, file_path, content, action="write_file", origin=origin)

    def remove_file(self, name: str, file_path: str, *, origin: Origin = "agent") -> WriteResult:
        skill = self._writable(name, origin)
        path = self._support_path(skill, file_path)
        if not path.is_file():
            raise SkillError(
                f"{name} has no file {file_path!r}; linked files: {self.linked_files(skill)}"
            )
        with self._write_lock:
            previous = path.read_bytes()
            self.history.save(name, file_path, previous, action="remove_file", origin=origin)
            path.unlink()
            self._after_write(
                name,
                "remove_file",
                origin,
                path,
                file_path,
                previous.decode("utf-8", "replace"),
                None,
            )
        return WriteResult(name, "remove_file", path)

    def delete(
        self, name: str, *, absorbed_into: str | None = None, origin: Origin = "agent"
    ) -> WriteResult:
        """Deleting archives: the skill can always be restored (DESIGN.md principle 3)."""
        skill = self._writable(name, origin, deleting=True)
        absorbed_into = (absorbed_into or "").strip() or None  # "   " names nothing
        if absorbed_into:
            target = self.get(absorbed_into)
            if target is None or target.broken or absorbed_into == name:
                raise SkillError(
                    f"absorbed_into names {absorbed_into!r}, which is not another existing skill; "
                    "create or patch that skill first, then delete this one."
                )
        return self.archive(
            name, origin=origin, reason="delete", absorbed_into=absorbed_into, skill=skill
        )

    def archive(
        self,
        name: str,
        *,
        origin: Origin = "user",
        reason: str = "archive",
        absorbed_into: str | None = None,
        skill: Skill | None = None,
    ) -> WriteResult:
        skill = skill or self._writable(name, origin)
        with self._write_lock:
            before = skill.skill_md.read_text(encoding="utf-8", errors="replace")
            relative = str(skill.directory.relative_to(self.skills_dir))
            target = self.history.archive(skill.directory, name)
            self._forget(skill.skill_md)
            extra: dict[str, Any] = {"archived_from": relative}
            if absorbed_into:
                extra["absorbed_into"] = absorbed_into
            self._count(lambda: self.usage.set_state(name, "archived", **extra))
            self._drop_empty_folders(skill.directory.parent)
            self._after_write(name, reason, origin, target, "SKILL.md", before, None)
        return WriteResult(name, reason, target, extra=extra)

    def archived_skills(self) -> dict[str, Path]:
        return self.history.archived()

    def restore(self, name: str, *, origin: Origin = "user") -> WriteResult:
        archived = self.history.archived().get(name)
        if archived is None:
            raise SkillError(f"no archived skill named {name!r}")
        if self.get(name) is not None:
            raise SkillError(
                f"a skill named {name!r} is active again; archive or rename it before restoring"
            )
        relative = self._usage_of(name).get("archived_from") or name
        destination = self.skills_dir / relative
        with self._write_lock:
            self.history.unarchive(archived, destination)
            self._count(lambda: self.usage.set_state(name, "active"))
            after = (destination / "SKILL.md").read_text(encoding="utf-8", errors="replace")
            self._after_write(name, "restore", origin, destination, "SKILL.md", None, after)
        return WriteResult(name, "restore", destination)

    def set_pinned(self, name: str, pinned: bool) -> dict[str, Any]:
        skill = self.require(name)
        record = self.usage.set_pinned(skill.name, pinned)
        self._after_write(
            skill.name, "pin" if pinned else "unpin", "user", skill.skill_md, None, None, None
        )
        return record

    def restore_version(self, name: str, stamp: str, *, origin: Origin = "user") -> WriteResult:
        """Bring back a saved version of SKILL.md or a support file (itself undoable)."""
        skill = self._writable(name, origin)
        for version in self.history.versions(name):
            if version.stamp == stamp:
                text = version.read()
                if text is None:
                    if version.file == "SKILL.md":
                        raise SkillError(
                            f"version {stamp} records the creation of {name}; archive the skill instead"
                        )
                    return self.remove_file(name, version.file, origin=origin)
                if version.file == "SKILL.md":
                    self._parse_for_write(skill.name, text, existing=True)
                return self._replace_file(
                    skill, version.file, text, action="restore_version", origin=origin
                )
        raise SkillError(f"{name} has no saved version {stamp!r}")

    # ---- write helpers -------------------------------------------------------------------

    def _usage_of(self, name: str) -> dict[str, Any]:
        """The usage record, or {} when .usage.json cannot be read: a broken counters file
        must not stop the skill itself from being written (Hermes fails open too)."""
        try:
            return self.usage.get(name)
        except UsageError as exc:
            log.warning("%s", exc)
            return {}

    def _count(self, update: Callable[[], Any]) -> None:
        """Update .usage.json after a write; a broken file is reported and left alone."""
        try:
            update()
        except UsageError as exc:
            log.warning("%s", exc)

    def _drop_empty_folders(self, folder: Path) -> None:
        """Remove folders a skill's removal left empty, up to (not including) skills/."""
        for parent in (folder, *folder.parents):
            if parent == self.skills_dir or self.skills_dir not in parent.parents:
                break
            try:
                parent.rmdir()
            except OSError:
                break  # not empty (or gone): stop climbing

    def _writable(self, name: str, origin: Origin, *, deleting: bool = False) -> Skill:
        skill = self.require(name)
        if not skill.root.writable:
            raise SkillError(
                f"{name!r} is a {skill.root.kind} skill ({skill.directory}) and read-only. To change it, "
                f"create a new skill with another name that improves on it."
            )
        pinned = origin in MODEL_ORIGINS and self._usage_of(skill.name).get("pinned")
        # The user pins a skill to keep it as it is: background reviews and the curator never
        # touch it, and no model deletes it; the agent in the user's own turn may still edit it
        # at their request (as in Hermes).
        if pinned and (deleting or origin != "agent"):
            raise SkillError(
                f"{name!r} is pinned by the user; "
                + (
                    "no model deletes a pinned skill. Ask the user to unpin it first."
                    if deleting
                    else "background reviews and the curator leave it alone. Ask the user to "
                    "unpin it, or make the change in a turn where the user asks for it."
                )
            )
        return skill

    def _parse_for_write(self, name: str, content: str, *, existing: bool = False) -> str:
        """Check a SKILL.md strictly and return the text to write: the model's own bytes when
        they are already spec-shaped, else the same skill re-rendered (non-spec fields under
        metadata.hermes, block-style lists)."""
        source = f"{name}/SKILL.md"
        try:
            document = frontmatter.parse_for_write(content, source, name if existing else None)
        except SkillFormatError as exc:
            raise SkillError(f"{exc}. Nothing was written.") from exc
        if document.name != name:
            raise SkillError(
                f"frontmatter name {document.name!r} does not match the skill {name!r}; "
                "keep the name (create a new skill to use another)."
            )
        if frontmatter.is_spec_shaped(content):
            return content
        return frontmatter.render(frontmatter.to_spec(document))

    def support_path(self, skill: Skill, file_path: str | None) -> Path:
        """Where `file_path` lives inside `skill`; SkillError if it would leave it (any caller)."""
        return self._support_path(skill, file_path)

    def _support_path(self, skill: Skill, file_path: str | None) -> Path:
        if not file_path:
            raise SkillError("file_path is empty")
        relative = Path(file_path)
        if relative.is_absolute() or ".." in relative.parts:
            raise SkillError(
                f"file_path {file_path!r} must be relative to the skill and must not contain '..'"
            )
        if relative.parts[0] not in SUPPORT_DIRS or len(relative.parts) < 2:
            raise SkillError(
                f"file_path {file_path!r} must be inside one of {', '.join(SUPPORT_DIRS)} "
                "(for example references/api.md)"
            )
        base = skill.directory.resolve()
        path = skill.directory / relative
        probe = skill.directory
        for part in relative.parts:
            probe = probe / part
            if probe.is_symlink():
                raise SkillError(
                    f"{file_path!r} goes through a symbolic link; support files must be real files"
                )
        resolved = path.resolve()
        if base not in resolved.parents:
            raise SkillError(f"{file_path!r} resolves outside the skill directory")
        return path

    def _replace_file(
        self, skill: Skill, relative: str, content: str, *, action: str, origin: Origin
    ) -> WriteResult:
        path = skill.directory / relative
        with self._write_lock:
            previous = path.read_bytes() if path.exists() else None
            snapshot = _Snapshot(True, {path: previous})
            atomic_write_bytes(path, content.encode("utf-8"))
            report = self._guard_or_rollback(skill.name, skill.directory, snapshot, origin)
            self.history.save(skill.name, relative, previous, action=action, origin=origin)
            before = previous.decode("utf-8", "replace") if previous is not None else None
            self._after_write(skill.name, action, origin, path, relative, before, content)
        return WriteResult(skill.name, action, path, report.verdict, report.findings)

    def _guard_or_rollback(
        self, name: str, directory: Path, snapshot: _Snapshot, origin: Origin
    ) -> guard.GuardReport:
        report = guard.scan_directory(directory)
        if origin not in MODEL_ORIGINS or report.verdict != "dangerous":
            return report
        for path, previous in snapshot.files.items():
            if previous is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write_bytes(path, previous)
            self._forget(path)
        if not snapshot.directory_existed:
            shutil.rmtree(directory, ignore_errors=True)
            for parent in directory.parents:
                if parent == self.skills_dir or not parent.is_dir() or any(parent.iterdir()):
                    break
                parent.rmdir()
        raise SkillError(
            f"the security scan rated this change to {name!r} dangerous, so it was rolled back: "
            f"{report.summary()}. Rewrite it without those commands or patterns."
        )

    def announce_external_write(
        self, name: str, action: str, directory: Path, *, before: str | None = None
    ) -> None:
        """A skill folder was placed or replaced whole (an install): audit and announce it."""
        after = (directory / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        self._after_write(name, action, "user", directory / "SKILL.md", "SKILL.md", before, after)

    def _forget(self, path: Path) -> None:
        self._dir_cache.clear()  # folders may have come or gone; listings are cheap to redo
        self._cache.pop(str(path), None)
        self._cache.pop(str(path.parent / "SKILL.md"), None)

    def _after_write(
        self,
        name: str,
        action: str,
        origin: Origin,
        path: Path,
        file: str | None,
        before: str | None,
        after: str | None,
    ) -> None:
        self._forget(path)
        if self.audit is not None:
            self.audit.record(
                origin=origin,
                kind="skill",
                action=action,
                target=name,
                before=before,
                after=after,
                detail=file or "",
            )
        self.sink(SkillChanged(name, action, origin, before, after))
