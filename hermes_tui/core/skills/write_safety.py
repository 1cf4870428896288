"""The safety net under every skill write (the writes themselves: writes.py).

- One writer per skill: the skill's lock (`skills/.locks/<name>.lock`, flock, never a name
  that could point outside `.locks`), held from a write's first read to its last write.
- A model's write never goes through a symbolic link out of the skills folder (`_confine`),
  and a support file stays inside its skill's folder, under references/ templates/ scripts/
  assets/, never through a link (`support_path`).
- A model's write the security scan rates dangerous is rolled back to the exact previous bytes
  (a `Snapshot` taken before it), a folder it created removed (`_guard_or_rollback`).
- A failing disk is named plainly, with the promise kept: nothing changed (`disk_failure`).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.events import Origin
from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.model import MODEL_ORIGINS, SUPPORT_DIRS, Skill, SkillError
from hermes_tui.core.storage import atomic_write_bytes, file_lock, is_temp_file, plain_os_error

if TYPE_CHECKING:  # the guard is imported by the first write it scans
    from hermes_tui.core.skills import guard

# What may name a lock file as it is; anything else is hashed.
_LOCK_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


@datarecord(frozen=False)
class Snapshot:
    """Bytes of the files a write touches, as they were before it (None: did not exist)."""

    directory_existed: bool
    files: dict[Path, bytes | None]


class WriteSafety:
    """Mixed into SkillWrites (and so SkillLibrary), which provides what is declared here."""

    skills_dir: Path
    history: SkillHistory
    _write_lock: threading.RLock
    _cache: dict[str, Any]
    _dir_cache: dict[str, Any]
    get: Callable[[str], Skill | None]

    def _confine(self, name: str, *paths: Path) -> None:
        """Refuse a model's write that would go through a symbolic link out of the skills folder."""
        home = self.skills_dir.resolve()
        history = self.history.history_dir
        for path in (*paths, history, history / name, self.history.archive_dir):
            resolved = path.resolve()
            if resolved != home and home not in resolved.parents:
                raise SkillError(
                    f"{path} leads to {resolved}, outside {self.skills_dir} (a symbolic link); "
                    f"the agent may not write through it, so {name!r} was not changed. The user "
                    "can move it into the skills folder."
                )

    def locked(self, name: str) -> AbstractContextManager[None]:
        """The skill's write lock, for writers outside this class (installs and updates)."""
        return self._locked(name)

    @contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        """One writer per skill, across threads and processes, from first read to last write.

        Keyed by the skill's name however it was addressed (a duplicate's path included), and
        never by text that could name a file outside `.locks`.
        """
        locks = self.skills_dir / ".locks"
        if locks.is_symlink():
            raise SkillError(f"{locks} is a symbolic link; remove it so skill writes can lock")
        skill = self.get(name) if name else None
        key = skill.name if skill is not None else name
        if not _LOCK_KEY.fullmatch(key):
            key = "~" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        with self._write_lock, file_lock(locks / key):
            yield

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

    def _guard_or_rollback(
        self, name: str, directory: Path, snapshot: Snapshot, origin: Origin
    ) -> guard.GuardReport:
        from hermes_tui.core.skills import guard

        report = guard.scan_directory(directory)
        if origin not in MODEL_ORIGINS or report.verdict != "dangerous":
            return report
        self._put_back(snapshot)
        if not snapshot.directory_existed:
            shutil.rmtree(directory, ignore_errors=True)
            for parent in directory.parents:
                if parent == self.skills_dir or not parent.is_dir() or any(parent.iterdir()):
                    break
                parent.rmdir()
        self._refuse_dangerous(name, report, origin)
        return report

    def _put_back(self, snapshot: Snapshot) -> None:
        for path, previous in snapshot.files.items():
            if previous is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write_bytes(path, previous)
            self._forget(path)

    @staticmethod
    def _refuse_dangerous(name: str, report: guard.GuardReport, origin: Origin) -> None:
        if origin in MODEL_ORIGINS and report.verdict == "dangerous":
            raise SkillError(
                f"the security scan rated this change to {name!r} dangerous, so it was rolled "
                f"back: {report.summary()}. Rewrite it without those commands or patterns."
            )

    def _forget(self, path: Path) -> None:
        self._dir_cache.clear()  # folders may have come or gone; listings are cheap to redo
        self._cache.pop(str(path), None)
        self._cache.pop(str(path.parent / "SKILL.md"), None)


def disk_failure(what: str, exc: OSError, where: Path) -> str:
    """A disk failure in plain words, and the promise the caller keeps: nothing changed."""
    return (
        f"could not {what}: {plain_os_error(exc)} ({where}). Nothing was changed; "
        "free some space or fix the permissions, then retry."
    )


def remove_temp_leftovers(directory: Path) -> None:
    """Temp files of writers killed mid-write (we hold the skill's lock: no write is live)."""
    for path in directory.rglob(".*"):
        if is_temp_file(path.name) and path.is_file():
            path.unlink(missing_ok=True)
