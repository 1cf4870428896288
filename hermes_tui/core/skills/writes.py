"""Every write to a skill, with its safety net (the write half of SkillLibrary).

A write by a model (origin agent, review or curator) is scanned by guard.py after it lands and
rolled back to the exact previous bytes on a dangerous verdict. Every write keeps the previous
version in history, updates usage, is audited and is announced as a `SkillChanged` event.
Deleting archives. Read-only roots refuse writes, and pinned skills refuse the model's.

Each write holds the skill's lock (`skills/.locks/<name>.lock`, flock, 0600, never followed
through a symlink) from its first read to its last write, so processes and threads writing one
skill take turns (the lock, the confinement and the rollback: write_safety.py). Create stages the new folder under a hidden name and renames it into place;
archive is one rename, undone if what follows it fails. A model's write never goes through a
symbolic link out of the skills folder. A failing disk is named plainly ("disk full").
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Origin, Sink, SkillChanged
from hermes_tui.core.records import datarecord
from hermes_tui.core.redaction import kept_labels
from hermes_tui.core.skills import frontmatter
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.model import (
    MAX_SUPPORT_BYTES,
    MODEL_ORIGINS,
    Skill,
    SkillError,
    names_main_file,
)
from hermes_tui.core.skills.usage import UsageError, UsageStore
from hermes_tui.core.skills.write_safety import (
    Snapshot,
    WriteSafety,
    disk_failure,
    remove_temp_leftovers,
)
from hermes_tui.core.storage import atomic_write_bytes

if TYPE_CHECKING:  # the guard is imported by the first write it scans
    from hermes_tui.core.skills import guard

log = logging.getLogger(__name__)


@datarecord
class WriteResult:
    """What a skill write did, and the scan's verdict on it."""

    name: str
    action: str
    path: Path
    verdict: guard.Verdict = "safe"
    findings: tuple[guard.GuardFinding, ...] = ()
    strategy: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class SkillWrites(WriteSafety):
    """Mixed into SkillLibrary, which provides the attributes and lookups declared here."""

    skills_dir: Path
    usage: UsageStore
    history: SkillHistory
    audit: AuditLog | None
    sink: Sink
    redact: Callable[[str], str]
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
        if category and (problem := frontmatter.check_name(category, "category")):
            raise SkillError(problem)
        with self._locked(name):
            return self._create(name, content, category, origin)

    def _create(self, name: str, content: str, category: str | None, origin: Origin) -> WriteResult:
        existing = self.get(name)
        if existing is not None:
            raise SkillError(
                f"a skill named {name!r} already exists ({existing.root.kind}: {existing.skill_md}); "
                "patch or edit it instead, or pick another name."
            )
        from hermes_tui.core.skills import guard

        content = self._parse_for_write(name, content)
        directory = self.skills_dir / category / name if category else self.skills_dir / name
        if directory.exists():
            raise SkillError(
                f"{directory} already exists but holds no valid skill; choose another name"
            )
        if origin in MODEL_ORIGINS:
            self._confine(name, directory.parent)
        # Built under a hidden name (discovery skips it) and renamed into place: a failure
        # anywhere leaves no folder behind to block the name.
        staging = directory.parent / f".{name}.creating-{uuid.uuid4().hex[:8]}"
        made_parent = not directory.parent.exists()
        try:
            staging.mkdir(parents=True)
            atomic_write_bytes(staging / "SKILL.md", content.encode("utf-8"))
            report = guard.scan_directory(staging)
            self._refuse_dangerous(name, report, origin)
            os.rename(staging, directory)
            try:
                self._count(
                    lambda: self.usage.record_created(
                        name, "agent" if origin in ("review", "curator") else "user"
                    )
                )
            except OSError:
                os.rename(directory, staging)
                raise
        except OSError as exc:
            raise SkillError(disk_failure(f"create {name!r}", exc, directory)) from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            if made_parent and not directory.exists():
                with suppress(OSError):  # tidying a folder we made; it holds nothing
                    directory.parent.rmdir()
        self._after_write(name, "create", origin, directory / "SKILL.md", "SKILL.md", None, content)
        return WriteResult(name, "create", directory / "SKILL.md", report.verdict, report.findings)

    def edit(self, name: str, content: str, *, origin: Origin = "agent") -> WriteResult:
        with self._locked(name):
            skill = self._writable(name, origin)
            content = self._parse_for_write(skill.name, content, existing=skill)
            return self._replace_file(skill, "SKILL.md", content, action="edit", origin=origin)

    def shown(self, text: str) -> str:
        """A skill's text (its SKILL.md, a field of it) as a face shows it: secrets redacted."""
        return self.redact(text)

    def edit_shown(
        self, name: str, opened: str, content: str, *, origin: Origin = "user"
    ) -> WriteResult:
        """`edit`, with `content` written over the SKILL.md `opened` as it was shown (`shown`:
        its secrets as labels). A secret's label still in `content` would be written where the
        secret was: refused, the file unchanged. Without the label the secret leaves it."""
        if kept := kept_labels(opened, self.shown(opened), content):
            names = ", ".join(label[len("[REDACTED ") : -1] for label in kept)
            raise SkillError(
                f"not saved: {name}'s SKILL.md holds a secret ({names}), shown as "
                f"{' '.join(kept)}; saving would write that label over the secret. Take the "
                "label out to drop the secret from the skill, or edit SKILL.md outside the app "
                "to keep it."
            )
        return self.edit(name, content, origin=origin)

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
        with self._locked(name):
            return self._patch(name, old_string, new_string, replace_all, file_path, origin)

    def _patch(
        self,
        name: str,
        old_string: str,
        new_string: str,
        replace_all: bool,
        file_path: str | None,
        origin: Origin,
    ) -> WriteResult:
        from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

        skill = self._writable(name, origin)
        if names_main_file(skill.name, file_path):
            file_path = None  # Hermes' ways of naming the main file
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
            content = self._parse_for_write(skill.name, content, existing=skill)
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
        if len(content.encode("utf-8")) > MAX_SUPPORT_BYTES:
            raise SkillError(
                f"{file_path} would be over the {MAX_SUPPORT_BYTES:,}-byte cap for support files"
            )
        with self._locked(name):
            skill = self._writable(name, origin)
            self._support_path(skill, file_path)
            return self._replace_file(skill, file_path, content, action="write_file", origin=origin)

    def remove_file(self, name: str, file_path: str, *, origin: Origin = "agent") -> WriteResult:
        with self._locked(name):
            return self._remove_file(name, file_path, origin)

    def _remove_file(self, name: str, file_path: str, origin: Origin) -> WriteResult:
        skill = self._writable(name, origin)
        path = self._support_path(skill, file_path)
        if not path.is_file():
            raise SkillError(
                f"{name} has no file {file_path!r}; linked files: {self.describe_linked(skill)}"
            )
        previous = path.read_bytes()
        try:
            self.history.save(name, file_path, previous, action="remove_file", origin=origin)
            path.unlink()
        except OSError as exc:
            raise SkillError(disk_failure(f"remove {file_path} of {name!r}", exc, path)) from exc
        before = previous.decode("utf-8", "replace")
        self._after_write(name, "remove_file", origin, path, file_path, before, None)
        return WriteResult(name, "remove_file", path)

    def delete(
        self, name: str, *, absorbed_into: str | None = None, origin: Origin = "agent"
    ) -> WriteResult:
        """Deleting archives: the skill can always be restored (DESIGN.md principle 3)."""
        with self._locked(name):
            return self._delete(name, absorbed_into, origin)

    def _delete(self, name: str, absorbed_into: str | None, origin: Origin) -> WriteResult:
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
        with self._locked(name):
            skill = skill or self._writable(name, origin)
            before = skill.skill_md.read_text(encoding="utf-8", errors="replace")
            relative = str(skill.directory.relative_to(self.skills_dir))
            extra: dict[str, Any] = {"archived_from": relative}
            if absorbed_into:
                extra["absorbed_into"] = absorbed_into
            try:
                target = self.history.archive(skill.directory, name)
                try:
                    self._count(lambda: self.usage.set_state(name, "archived", **extra))
                except OSError:
                    os.rename(target, skill.directory)  # the skill stays where it was
                    raise
            except OSError as exc:
                verb = "delete" if reason == "delete" else "archive"
                raise SkillError(disk_failure(f"{verb} {name!r}", exc, skill.directory)) from exc
            self._forget(skill.skill_md)
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
        with self._locked(name):
            try:
                self.history.unarchive(archived, destination)
                try:
                    self._count(lambda: self.usage.set_state(name, "active"))
                except OSError:
                    os.rename(destination, archived)
                    raise
            except OSError as exc:
                raise SkillError(disk_failure(f"restore {name!r}", exc, destination)) from exc
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
        with self._locked(name):
            return self._restore_version(name, stamp, origin)

    def _restore_version(self, name: str, stamp: str, origin: Origin) -> WriteResult:
        skill = self._writable(name, origin)
        for version in self.history.versions(name):
            if version.stamp == stamp:
                text = version.read()
                if text is None:
                    if version.file == "SKILL.md":
                        raise SkillError(
                            f"version {stamp} records the creation of {name}; archive the skill instead"
                        )
                    return self._remove_file(name, version.file, origin)
                if version.file == "SKILL.md":
                    self._parse_for_write(skill.name, text, existing=skill)
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
        if origin in MODEL_ORIGINS:
            self._confine(name, skill.directory, skill.skill_md)
        return skill

    def _parse_for_write(self, name: str, content: str, *, existing: Skill | None = None) -> str:
        """Check a SKILL.md strictly and return the text to write: the model's own bytes when
        they are already spec-shaped, else the same skill re-rendered (new non-spec fields under
        metadata.hermes, block-style lists). Top-level keys the skill already had are never
        moved: a Hermes skill's `platforms` stays where Hermes reads it."""
        source = f"{name}/SKILL.md"
        keep: frozenset[str] = frozenset()
        if existing is not None:
            try:
                current = existing.skill_md.read_text(encoding="utf-8", errors="replace")
            except OSError:
                current = ""
            keep = frontmatter.top_level_keys(current) - frontmatter.SPEC_FIELDS
        try:
            document = frontmatter.parse_for_write(
                content, source, name if existing is not None else None
            )
        except SkillFormatError as exc:
            raise SkillError(f"{exc}. Nothing was written.") from exc
        if document.name != name:
            raise SkillError(
                f"frontmatter name {document.name!r} does not match the skill {name!r}; "
                "keep the name (create a new skill to use another)."
            )
        if frontmatter.is_spec_shaped(content, keep):
            return content
        return frontmatter.render(frontmatter.to_spec(document, keep))

    def _replace_file(
        self, skill: Skill, relative: str, content: str, *, action: str, origin: Origin
    ) -> WriteResult:
        path = skill.directory / relative
        with self._locked(skill.name):
            remove_temp_leftovers(skill.directory)
            previous = path.read_bytes() if path.exists() else None
            snapshot = Snapshot(True, {path: previous})
            try:
                atomic_write_bytes(path, content.encode("utf-8"))
            except OSError as exc:
                raise SkillError(
                    disk_failure(f"write {relative} of {skill.name!r}", exc, path)
                ) from exc
            report = self._guard_or_rollback(skill.name, skill.directory, snapshot, origin)
            try:
                self.history.save(skill.name, relative, previous, action=action, origin=origin)
            except OSError as exc:
                # Without its previous version kept, the change may not stand.
                self._put_back(snapshot)
                raise SkillError(
                    disk_failure(f"write {relative} of {skill.name!r}", exc, path)
                ) from exc
            before = previous.decode("utf-8", "replace") if previous is not None else None
            self._after_write(skill.name, action, origin, path, relative, before, content)
        return WriteResult(skill.name, action, path, report.verdict, report.findings)

    def announce_external_write(
        self, name: str, action: str, directory: Path, *, before: str | None = None
    ) -> None:
        """A skill folder was placed or replaced whole (an install): audit and announce it."""
        after = (directory / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        self._after_write(name, action, "user", directory / "SKILL.md", "SKILL.md", before, after)

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
