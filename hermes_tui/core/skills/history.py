"""Skill versions and the archive: nothing a skill ever said is destroyed.

Before every write the previous SKILL.md (or support file) is copied to
`skills/.history/<name>/<ts>.md` (support files: `<ts>.files/<relative path>`) with a
`<ts>.json` note of who changed it and how. Archiving moves the whole skill directory to
`skills/.archive/<name>` (a time suffix on a clash) and restoring moves it back.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import atomic_write_bytes


@datarecord
class Version:
    """An earlier version of a skill file kept in skills/.history."""

    name: str
    stamp: str
    time: float
    action: str
    origin: str
    file: str  # "SKILL.md" or the support file's path inside the skill
    path: Path  # where the saved copy is; missing when the file did not exist before

    def read(self) -> str | None:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None


class SkillHistory:
    def __init__(self, skills_dir: Path) -> None:
        self.history_dir = skills_dir / ".history"
        self.archive_dir = skills_dir / ".archive"
        self._lock = threading.Lock()
        self._last_stamp = ""

    def _stamp(self) -> str:
        # Microsecond UTC stamps sort by time; the counter keeps two saves in one tick apart.
        with self._lock:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
            if stamp <= self._last_stamp:
                stamp = self._last_stamp[:-1] + "1Z"
            self._last_stamp = stamp
            return stamp

    def save(
        self, name: str, file: str, previous: bytes | None, *, action: str, origin: str
    ) -> Version:
        """Keep `previous` (the bytes before a write; None if the file is new) as a version."""
        folder = self.history_dir / name
        stamp = self._stamp()
        while (folder / f"{stamp}.json").exists():  # another process saved in the same tick
            stamp = self._stamp()
        copy = folder / f"{stamp}.md" if file == "SKILL.md" else folder / f"{stamp}.files" / file
        if previous is not None:
            atomic_write_bytes(copy, previous)
        note = {"time": time.time(), "action": action, "origin": origin, "file": file}
        atomic_write_bytes(folder / f"{stamp}.json", json.dumps(note).encode("utf-8"))
        return Version(name, stamp, note["time"], action, origin, file, copy)

    def versions(self, name: str) -> list[Version]:
        """Saved versions of a skill, newest first."""
        folder = self.history_dir / name
        found = []
        for note_path in folder.glob("*.json"):
            try:
                note = json.loads(note_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            stamp = note_path.stem
            file = note.get("file", "SKILL.md")
            copy = (
                folder / f"{stamp}.md" if file == "SKILL.md" else folder / f"{stamp}.files" / file
            )
            found.append(
                Version(
                    name,
                    stamp,
                    note.get("time", 0.0),
                    note.get("action", "?"),
                    note.get("origin", "?"),
                    file,
                    copy,
                )
            )
        found.sort(key=lambda v: v.stamp, reverse=True)
        return found

    def archive(self, skill_dir: Path, name: str) -> Path:
        self.archive_dir.mkdir(parents=True, exist_ok=True)
        target = self.archive_dir / name
        if target.exists():
            # '@' cannot occur in a skill name, so the name is recoverable from the folder.
            target = self.archive_dir / f"{name}@{datetime.now(UTC).strftime('%Y%m%dT%H%M%S%f')}"
        shutil.move(str(skill_dir), str(target))
        return target

    def archived(self) -> dict[str, Path]:
        """Archived skills by name (the newest copy when a name was archived twice)."""
        result: dict[str, Path] = {}
        if not self.archive_dir.is_dir():
            return result
        for path in sorted(self.archive_dir.iterdir()):
            if (path / "SKILL.md").is_file():
                result[path.name.split("@", 1)[0]] = path
        return result

    def unarchive(self, archived_path: Path, destination: Path) -> None:
        if destination.exists():
            raise FileExistsError(f"{destination} already exists; move it away before restoring")
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(archived_path), str(destination))
