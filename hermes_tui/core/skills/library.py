"""The skill library: discovery over three roots, viewing, the prompt index (writes: writes.py).

Roots in order: `<home>/skills` (writable), `skills.external_dirs` and the bundled skills (both
read-only); the first root that has a name wins. Discovery is cached by each SKILL.md's mtime
and size, and a broken SKILL.md is listed with its error instead of hiding the others.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Sink, discard
from hermes_tui.core.skills import frontmatter
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.index import build_index
from hermes_tui.core.skills.model import (  # re-exported: callers import them from here
    DEFAULT_CATEGORY,
    MAX_SUPPORT_BYTES,
    MODEL_ORIGINS,
    SUPPORT_DIRS,
    RootKind,
    Skill,
    SkillError,
    SkillRoot,
)
from hermes_tui.core.skills.usage import UsageStore
from hermes_tui.core.skills.writes import SkillWrites, WriteResult

SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", ".venv", "dist", "build"})

__all__ = [
    "DEFAULT_CATEGORY",
    "MAX_SUPPORT_BYTES",
    "MODEL_ORIGINS",
    "SUPPORT_DIRS",
    "RootKind",
    "Skill",
    "SkillError",
    "SkillLibrary",
    "SkillRoot",
    "WriteResult",
]


class SkillLibrary(SkillWrites):
    def __init__(
        self,
        skills_dir: Path,
        *,
        external_dirs: Sequence[Path] = (),
        bundled_dir: Path | None = None,
        usage: UsageStore | None = None,
        history: SkillHistory | None = None,
        audit: AuditLog | None = None,
        sink: Sink = discard,
    ) -> None:
        self.skills_dir = skills_dir
        self.roots = [SkillRoot(skills_dir, "home")]
        self.roots += [SkillRoot(Path(p).expanduser(), "external") for p in external_dirs]
        if bundled_dir is not None:
            self.roots.append(SkillRoot(bundled_dir, "bundled"))
        self.usage = usage or UsageStore(skills_dir / ".usage.json")
        self.history = history or SkillHistory(skills_dir)
        self.audit = audit
        self.sink = sink
        self._cache: dict[str, tuple[int, int, Skill]] = {}
        self._write_lock = threading.RLock()
        self._index_cache: tuple[tuple, str] | None = None

    # ---- discovery -----------------------------------------------------------------------

    def _skill_dirs(self, root: SkillRoot) -> Iterator[tuple[str, str, os.stat_result]]:
        """(category, directory, SKILL.md stat) of each skill folder, one or two levels deep."""
        if not root.path.is_dir():
            return
        for first in sorted(os.scandir(root.path), key=lambda e: e.name):
            if not _visible_dir(first):
                continue
            if stat := _stat_skill_md(first.path):
                yield "", first.path, stat
                continue
            for second in sorted(os.scandir(first.path), key=lambda e: e.name):
                if _visible_dir(second) and (stat := _stat_skill_md(second.path)):
                    yield first.name, second.path, stat

    def _load(self, root: SkillRoot, category: str, directory: str, stat: os.stat_result) -> Skill:
        skill_md = os.path.join(directory, "SKILL.md")
        cached = self._cache.get(skill_md)
        if cached and cached[0] == stat.st_mtime_ns and cached[1] == stat.st_size:
            return cached[2]
        path = Path(skill_md)
        name = path.parent.name
        try:
            document = frontmatter.parse(path.read_bytes().decode("utf-8"), skill_md)
            skill = Skill(document.name, category, path.parent, root, document)
        except UnicodeDecodeError as exc:
            skill = Skill(
                name,
                category,
                path.parent,
                root,
                error=f"{skill_md}: not valid UTF-8 (byte {exc.start})",
            )
        except SkillFormatError as exc:
            skill = Skill(name, category, path.parent, root, error=str(exc))
        self._cache[skill_md] = (stat.st_mtime_ns, stat.st_size, skill)
        return skill

    def scan(self) -> list[Skill]:
        """Every skill the agent can see, first root winning; broken ones included with errors."""
        seen: dict[str, Skill] = {}
        result: list[Skill] = []
        for root in self.roots:
            for category, directory, stat in self._skill_dirs(root):
                skill = self._load(root, category, directory, stat)
                if skill.name in seen:
                    winner = seen[skill.name]
                    if winner.root == root:
                        result.append(
                            Skill(
                                directory.name,
                                category,
                                directory,
                                root,
                                error=f"{skill.skill_md}: name {skill.name!r} is already used by {winner.skill_md}",
                            )
                        )
                    continue  # a later root's skill is shadowed by design
                seen[skill.name] = skill
                result.append(skill)
        return sorted(result, key=lambda s: (s.category or DEFAULT_CATEGORY, s.name))

    def index(self, max_chars: int, relevant: Sequence[str] = ()) -> str:
        """The system-prompt skills index; reused while no skill and no usage record changed."""
        skills = tuple(self.scan())
        try:
            usage_stat = os.stat(self.usage.path)
            usage_key: tuple = (usage_stat.st_mtime_ns, usage_stat.st_size)
        except OSError:
            usage_key = ()
        # The tuple of Skill objects is part of the key: unchanged skills are the same cached
        # objects, and holding them keeps their identities from being reused.
        key = (skills, usage_key, max_chars, tuple(relevant))
        cached = self._index_cache
        if (
            cached is not None
            and len(cached[0][0]) == len(skills)
            and all(a is b for a, b in zip(cached[0][0], skills, strict=True))
            and cached[0][1:] == key[1:]
        ):
            return cached[1]
        text = build_index(skills, self.usage.all(), max_chars, relevant)
        self._index_cache = (key, text)
        return text

    def get(self, name: str) -> Skill | None:
        return next((skill for skill in self.scan() if skill.name == name), None)

    def require(self, name: str) -> Skill:
        skill = self.get(name)
        if skill is None:
            known = ", ".join(s.name for s in self.scan()[:20])
            raise SkillError(
                f"no skill named {name!r}. Use skills_list to see what exists ({known})."
            )
        return skill

    def category_descriptions(self) -> dict[str, str]:
        descriptions: dict[str, str] = {}
        for root in self.roots:
            if not root.path.is_dir():
                continue
            for entry in sorted(os.scandir(root.path), key=lambda e: e.name):
                description = Path(entry.path) / "DESCRIPTION.md"
                if _visible_dir(entry) and description.is_file():
                    descriptions.setdefault(
                        entry.name,
                        description.read_text(encoding="utf-8", errors="replace").strip(),
                    )
        return descriptions

    def provenance(self, skill: Skill) -> str:
        if skill.root.kind == "bundled":
            return "bundled"
        if skill.root.kind == "external":
            return "external"
        return str(self.usage.get(skill.name).get("created_by") or "user")

    def linked_files(self, skill: Skill) -> dict[str, list[str]]:
        linked: dict[str, list[str]] = {}
        for sub in SUPPORT_DIRS:
            folder = skill.directory / sub
            if folder.is_dir():
                files = sorted(
                    str(p.relative_to(skill.directory)) for p in folder.rglob("*") if p.is_file()
                )
                if files:
                    linked[sub] = files
        return linked

    def view(
        self, name: str, file_path: str | None = None, *, record: bool = True
    ) -> dict[str, Any]:
        """What skill_view returns; a model's view (record=True) counts as a view and a use."""
        skill = self.require(name)
        if skill.broken:
            raise SkillError(f"skill {name!r} is broken and cannot be used: {skill.error}")
        if file_path:
            path = self._support_path(skill, file_path)
            if not path.is_file():
                raise SkillError(
                    f"{name} has no file {file_path!r}; linked files: {self.linked_files(skill)}"
                )
            data = path.read_bytes()
            if len(data) > MAX_SUPPORT_BYTES:
                raise SkillError(
                    f"{file_path} is {len(data):,} bytes, over the {MAX_SUPPORT_BYTES:,} cap"
                )
            try:
                content = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SkillError(
                    f"{file_path} is a binary file and cannot be shown as text"
                ) from exc
            if record:
                self.usage.record_view(name)
            return {"success": True, "name": name, "file_path": file_path, "content": content}
        assert skill.document is not None
        if record:
            self.usage.record_view(name)
        return {
            "success": True,
            "name": skill.name,
            "description": skill.description,
            "category": skill.category or DEFAULT_CATEGORY,
            "frontmatter": skill.document.frontmatter,
            "content": skill.document.body,
            "linked_files": self.linked_files(skill),
            "path": str(skill.skill_md),
        }


def _stat_skill_md(directory: str) -> os.stat_result | None:
    try:
        stat = os.stat(os.path.join(directory, "SKILL.md"))
    except OSError:
        return None
    return stat if os.path.stat.S_ISREG(stat.st_mode) else None


def _visible_dir(entry: os.DirEntry[str]) -> bool:
    return (
        not entry.name.startswith(".")
        and entry.name not in SKIP_DIRS
        and entry.is_dir(follow_symlinks=True)
    )
