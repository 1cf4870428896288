"""Installing vetted skills: copy into the library, record them in the lock, update, uninstall.

What was installed, from where, at which commit or digest, and the tree digest of the copy, is
recorded in `skills/.hub.json` (the lock), which `update` and `uninstall` read. An update
re-fetches the source, vets the new version exactly as an install does, and applies it only if
an install from that source would be allowed (and the installed copy was not edited since, unless
forced). The curator and reviews only touch agent-created skills, so hub skills are left alone.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.skills import guard
from hermes_tui.core.skills.install.sources import (
    Fetched,
    InstallError,
    fetch,
    parse_source,
)
from hermes_tui.core.skills.install.vetting import (
    SKIPPED_DIRS,
    Action,
    Candidate,
    Tier,
    Verdict,
    Vetter,
    decide,
    find_candidates,
)
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.skills.model import SkillError
from hermes_tui.core.skills.usage import iso_now
from hermes_tui.core.storage import atomic_write_text, file_lock


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path
    verdict: Verdict
    findings: tuple[guard.GuardFinding, ...] = ()
    tier: Tier = "community"
    notice: str = ""  # set when a cautious skill went in on its tier's trust


@dataclass(frozen=True)
class UpdateResult:
    name: str
    status: Literal["updated", "up to date", "refused", "would update", "missing"]
    diff: str = ""
    message: str = ""
    verdict: Verdict = "safe"


def tree_digest(directory: Path) -> str:
    """sha256 over the relative paths and bytes of every file: what exactly was installed."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def tree_diff(old: Path, new: Path, label: str) -> str:
    """A unified diff of two skill folders (text files; binary ones named)."""
    names = {
        str(p.relative_to(root))
        for root in (old, new)
        if root.is_dir()
        for p in root.rglob("*")
        if p.is_file()
    }
    chunks: list[str] = []
    for name in sorted(names):
        before, after = _read_for_diff(old / name), _read_for_diff(new / name)
        if before == after:
            continue
        chunks.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                after.splitlines(keepends=True),
                f"a/{label}/{name}",
                f"b/{label}/{name}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def _read_for_diff(path: Path) -> str:
    if not path.is_file():
        return ""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return (
            f"(binary file, {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:12]})\n"
        )
    return data.decode("utf-8", errors="replace")


def _copy_skill(source: Path, destination: Path) -> None:
    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIPPED_DIRS or n.startswith(".")}

    shutil.copytree(source, destination, symlinks=True, ignore=ignore)


# ---- the installer ----------------------------------------------------------------------------


class SkillInstaller:
    """Install, update and uninstall hub skills in a library, keeping the lock file true."""

    def __init__(self, library: SkillLibrary, vetter: Vetter) -> None:
        self.library = library
        self.vetter = vetter
        self.lock_path = library.skills_dir / ".hub.json"

    # The lock: {"skills": {name: {source, kind, ref, subdir, path, commit, digest, tree, ...}}}

    def installed(self) -> dict[str, dict[str, Any]]:
        if not self.lock_path.exists():
            return {}
        try:
            data = json.loads(self.lock_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InstallError(
                f"{self.lock_path}: unreadable ({exc}); fix or remove it to manage hub skills"
            ) from exc
        skills = data.get("skills") if isinstance(data, dict) else None
        if not isinstance(skills, dict):
            raise InstallError(f"{self.lock_path}: expected an object with a 'skills' map")
        return skills

    def _write_lock(self, change: Any) -> None:
        self.library.skills_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(self.lock_path):
            skills = self.installed()
            change(skills)
            text = json.dumps({"version": 1, "skills": skills}, indent=2, sort_keys=True)
            atomic_write_text(self.lock_path, text + "\n")

    def candidates(self, fetched: Fetched, category: str | None = None) -> list[Candidate]:
        """Every skill in what was fetched, vetted whole."""
        return find_candidates(fetched.root, self.vetter, category)

    def action(self, fetched: Fetched, candidate: Candidate, force: bool = False) -> Action:
        """What installing `candidate` from this source needs: see vetting.decide."""
        return decide(candidate.verdict, self.vetter.tier(fetched.spec), force)

    # ---- install --------------------------------------------------------------------------

    def install(
        self,
        fetched: Fetched,
        candidates: Sequence[Candidate],
        *,
        force: bool = False,
    ) -> list[InstallResult]:
        """Install the chosen candidates; raise before writing anything if one may not go in."""
        tier = self.vetter.tier(fetched.spec)
        for candidate in candidates:
            self._check_installable(candidate, tier, force)
            existing = self.library.get(candidate.name)
            if existing is not None:
                raise InstallError(
                    f"a skill named {candidate.name!r} already exists ({existing.skill_md}); "
                    f"use `skills update {candidate.name}` for a hub skill, or archive it first"
                )
        results = []
        placed: list[tuple[Candidate, Path]] = []
        try:
            for candidate in candidates:
                destination = self.library.skills_dir / candidate.category / candidate.name
                with self.library.locked(candidate.name):
                    if destination.exists() or self.library.get(candidate.name) is not None:
                        raise InstallError(f"{destination} already exists; move it away first")
                    self._place(candidate.directory, destination)
                placed.append((candidate, destination))
                self.library.usage.record_created(candidate.name, "hub")
                self.library.announce_external_write(candidate.name, "install", destination)
                notice = ""
                if candidate.verdict == "caution":
                    notice = f"installed from a {tier} source despite: {candidate.report.summary()}"
                results.append(
                    InstallResult(
                        candidate.name,
                        destination,
                        candidate.verdict,
                        candidate.report.findings,
                        tier,
                        notice,
                    )
                )
        finally:
            # The lock file is written once for the whole batch, with what was placed even if a
            # later one failed: written per skill, a hundred-skill hub rewrote it a hundred times.
            self._record(fetched, placed)
        return results

    def _check_installable(self, candidate: Candidate, tier: Tier, force: bool) -> None:
        action = decide(candidate.verdict, tier, force)
        if candidate.verdict == "invalid":
            raise InstallError(f"{candidate.relative}: not a valid skill: {candidate.explain()}")
        if action == "refuse":
            raise InstallError(
                f"{candidate.name}: refused by the security scan: {candidate.report.summary()}"
            )
        if action == "force":
            raise InstallError(
                f"{candidate.name}: the security scan found something to check "
                f"(a {tier} source): {candidate.report.summary()}; read it, then install with "
                "--force if you trust it"
            )

    def _place(self, source: Path, destination: Path) -> None:
        """Copy into a hidden staging folder beside the destination, then rename it into place."""
        destination.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=destination.parent))
        try:
            _copy_skill(source, staging / "skill")
            os.replace(staging / "skill", destination)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _record(self, fetched: Fetched, placed: Sequence[tuple[Candidate, Path]]) -> None:
        if not placed:
            return
        entries = {
            candidate.name: {
                "source": str(fetched.spec),
                "kind": fetched.spec.kind,
                "ref": fetched.spec.ref,
                "subdir": fetched.spec.subdir,
                "path": candidate.relative,
                "commit": fetched.commit,
                "digest": fetched.digest,
                "tree": tree_digest(destination),
                "category": candidate.category,
                "verdict": candidate.verdict,
            }
            for candidate, destination in placed
        }

        def change(skills: dict[str, Any]) -> None:
            for name, entry in entries.items():
                previous = skills.get(name, {})
                entry["installed_at"] = previous.get("installed_at") or iso_now()
                entry["updated_at"] = iso_now()
                skills[name] = entry

        self._write_lock(change)

    # ---- update ---------------------------------------------------------------------------

    def update(
        self, names: Sequence[str] = (), *, force: bool = False, dry_run: bool = False
    ) -> list[UpdateResult]:
        lock = self.installed()
        unknown = [n for n in names if n not in lock]
        if unknown:
            raise InstallError(
                f"not installed from a source: {', '.join(unknown)} "
                f"(hub skills: {', '.join(sorted(lock)) or 'none'})"
            )
        results = []
        for name in names or sorted(lock):
            results.append(self._update_one(name, lock[name], force=force, dry_run=dry_run))
        return results

    def _update_one(
        self, name: str, entry: dict[str, Any], *, force: bool, dry_run: bool
    ) -> UpdateResult:
        skill = self.library.get(name)
        if skill is None or skill.root.kind != "home":
            return UpdateResult(name, "missing", message="not in the skills folder any more")
        spec = parse_source(entry["source"])
        with fetch(spec) as fetched:
            matches = [
                c
                for c in self.candidates(fetched, entry.get("category"))
                if c.name == name or c.relative == entry.get("path")
            ]
            if not matches:
                return UpdateResult(name, "missing", message=f"{spec} no longer holds {name!r}")
            with self.library.locked(name):  # no agent patch lands between diff and swap
                return self._apply_update(name, entry, skill, fetched, matches[0], force, dry_run)

    def _apply_update(
        self,
        name: str,
        entry: dict[str, Any],
        skill: Any,
        fetched: Fetched,
        candidate: Candidate,
        force: bool,
        dry_run: bool,
    ) -> UpdateResult:
        diff = tree_diff(skill.directory, candidate.directory, name)
        if not diff:
            return UpdateResult(name, "up to date")
        # The new version is vetted and judged exactly as an install from that source would be.
        tier = self.vetter.tier(fetched.spec)
        try:
            self._check_installable(candidate, tier, force)
        except InstallError as exc:
            return UpdateResult(name, "refused", diff, str(exc), candidate.verdict)
        notice = ""
        if candidate.verdict == "caution":
            notice = f"from a {tier} source despite: {candidate.report.summary()}"
        if tree_digest(skill.directory) != entry.get("tree") and not force:
            return UpdateResult(
                name,
                "refused",
                diff,
                "the installed copy was edited since it was installed; "
                "update with --force to replace it (the current SKILL.md is kept in history)",
                candidate.verdict,
            )
        if dry_run:
            return UpdateResult(name, "would update", diff, notice, candidate.verdict)
        self._replace(name, skill.directory, candidate.directory)
        self._record(fetched, [(candidate, skill.directory)])
        return UpdateResult(name, "updated", diff, notice, candidate.verdict)

    def _replace(self, name: str, current: Path, source: Path) -> None:
        previous = (current / "SKILL.md").read_bytes()
        self.library.history.save(name, "SKILL.md", previous, action="update", origin="user")
        staging = Path(tempfile.mkdtemp(prefix=".install-", dir=current.parent))
        try:
            _copy_skill(source, staging / "new")
            os.replace(current, staging / "old")
            os.replace(staging / "new", current)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.library.announce_external_write(
            name, "update", current, before=previous.decode("utf-8", "replace")
        )

    # ---- uninstall ------------------------------------------------------------------------

    def uninstall(self, name: str) -> Path:
        lock = self.installed()
        if name not in lock:
            raise InstallError(
                f"{name!r} was not installed from a source; use `skills archive {name}` instead"
            )
        try:
            result = self.library.archive(name, origin="user", reason="uninstall")
        except SkillError as exc:
            raise InstallError(str(exc)) from exc
        self._write_lock(lambda skills: skills.pop(name, None))
        return result.path
