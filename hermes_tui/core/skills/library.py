"""The skill library: discovery over three roots, viewing, the prompt index (writes: writes.py).

Roots in order: `<home>/skills` (writable), `skills.external_dirs` and the bundled skills (both
read-only). A skill is any folder holding a SKILL.md, at any depth (as Hermes finds them: dot
folders, `.archive` and dependency folders are skipped; a SKILL.md inside a skill's folder
belongs to that skill); its category is the first folder under the root when it is nested. The first SKILL.md found with a
name owns it; a later one with the same name is listed as a duplicate, addressed by its path.
Loading is lenient (a spec rule broken is a warning on the skill); only a SKILL.md that cannot
be parsed is listed as broken, with its error, instead of hiding the others. Parsing is cached
by each SKILL.md's mtime and size, and each frontmatter's parse across processes
(header_cache.py).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Sink, discard
from hermes_tui.core.skills import frontmatter
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.header_cache import HeaderCache
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
    SkillNotFound,
    SkillRoot,
    SkillView,
    names_main_file,
)
from hermes_tui.core.skills.usage import UsageStore
from hermes_tui.core.skills.writes import SkillWrites, WriteResult

# Folders that never hold skills: Hermes' EXCLUDED_SKILL_DIRS (agent/skill_utils.py, 0.19.0),
# our own bookkeeping folders, and build output. Other dot folders (`.curated`,
# `.experimental`, …) are searched, as Hermes searches them.
SKIP_DIRS = frozenset(
    {
        ".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages",
        "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache",
        ".history", ".locks", "dist", "build",
    }
)  # fmt: skip
MAX_LINKED_FILES = 200
RACY_NS = 50_000_000  # 50 ms: well past any filesystem's timestamp tick

__all__ = [
    "DEFAULT_CATEGORY",
    "MAX_SUPPORT_BYTES",
    "MODEL_ORIGINS",
    "SUPPORT_DIRS",
    "RootKind",
    "Skill",
    "SkillError",
    "SkillLibrary",
    "SkillNotFound",
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
        headers: HeaderCache | None = None,
        redact: Callable[[str], str] = str,
    ) -> None:
        self.skills_dir = skills_dir
        # How a face shows a skill's text: a secret in it (a hand edit, an install) redacted,
        # as the model and `skills view` get it (`shown`, `edit_shown`).
        self.redact = redact
        self.roots = [SkillRoot(skills_dir, "home")]
        self.roots += [SkillRoot(Path(p).expanduser(), "external") for p in external_dirs]
        if bundled_dir is not None:
            self.roots.append(SkillRoot(bundled_dir, "bundled"))
        self.usage = usage or UsageStore(skills_dir / ".usage.json")
        self.history = history or SkillHistory(skills_dir)
        self.audit = audit
        self.sink = sink
        self._cache: dict[str, tuple[int, int, Skill]] = {}
        # What each frontmatter parsed to, remembered across processes (header_cache.py).
        self.headers = headers
        # folder -> (mtime_ns, listed at ns, visible subfolders)
        self._dir_cache: dict[str, tuple[int, int, list[str]]] = {}
        self._write_lock = threading.RLock()
        self._index_cache: tuple[tuple, str] | None = None

    # ---- discovery -----------------------------------------------------------------------

    def _skill_dirs(self, root: SkillRoot) -> Iterator[tuple[str, str, os.stat_result]]:
        """(category, directory, SKILL.md stat) of each skill folder under `root`, at any depth."""
        if not root.path.is_dir():
            return
        # Depth-first with sorted names, so "first found" is the same on every machine. A folder
        # symlinked in (a collection kept elsewhere) is followed, once: a link back up the tree
        # would otherwise loop.
        pending: list[tuple[str, str]] = [("", str(root.path))]
        visited: set[tuple[int, int]] = set()
        while pending:
            category, directory = pending.pop()
            if directory != str(root.path) and (stat := _stat_skill_md(directory)):
                # A skill's folder is its own: a SKILL.md further down (an example, a template,
                # a preserved old version) belongs to it and is not a second skill.
                yield category, directory, stat
                continue
            try:
                folder = os.stat(directory)
            except OSError:
                continue  # vanished or a link loop: the rest of the tree still loads
            if (folder.st_dev, folder.st_ino) in visited:
                continue
            visited.add((folder.st_dev, folder.st_ino))
            for name in reversed(self._listing(directory, folder.st_mtime_ns)):
                pending.append((category or name, os.path.join(directory, name)))

    def _listing(self, directory: str, mtime_ns: int) -> list[str]:
        """The sorted visible subfolders of a folder, reused while its mtime stands: a re-scan
        of an unchanged library costs a stat per folder. As git does with "racy" entries, a
        listing taken within RACY_NS of the folder's last change is not trusted (a second
        change in the same timestamp tick would not move the mtime)."""
        cached = self._dir_cache.get(directory)
        if cached is not None and cached[0] == mtime_ns and mtime_ns + RACY_NS < cached[1]:
            return cached[2]
        listed_at = time.time_ns()
        try:
            subfolders = sorted(
                entry.name for entry in os.scandir(directory) if _visible_dir(entry)
            )
        except OSError:
            return []  # unreadable: skipped, not cached
        self._dir_cache[directory] = (mtime_ns, listed_at, subfolders)
        return subfolders

    def _load(self, root: SkillRoot, category: str, directory: str, stat: os.stat_result) -> Skill:
        skill_md = os.path.join(directory, "SKILL.md")
        cached = self._cache.get(skill_md)
        if cached and cached[0] == stat.st_mtime_ns and cached[1] == stat.st_size:
            return cached[2]
        path = Path(skill_md)
        # A skill directly under the root has no category, as in Hermes (`general` on screen).
        category = category if category != path.parent.name else ""
        name = path.parent.name
        try:
            text = path.read_bytes().decode("utf-8")
            document, warnings = frontmatter.read(text, skill_md, self.headers)
            if document.name.strip():
                name = document.name
            skill = Skill(name, category, path.parent, root, document, warnings=warnings)
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
        except OSError as exc:
            skill = Skill(name, category, path.parent, root, error=f"{skill_md}: {exc.strerror}")
        self._cache[skill_md] = (stat.st_mtime_ns, stat.st_size, skill)
        return skill

    def scan(self) -> list[Skill]:
        """Every skill the agent can see; duplicates and broken ones included and marked."""
        seen: dict[str, Skill] = {}
        result: list[Skill] = []
        for root in self.roots:
            for category, directory, stat in self._skill_dirs(root):
                skill = self._load(root, category, directory, stat)
                winner = seen.get(skill.name)
                if winner is not None:
                    skill = dataclasses.replace(skill, duplicate_of=winner.skill_md)
                elif not skill.broken:
                    seen[skill.name] = skill
                result.append(skill)
        if self.headers is not None:
            self.headers.flush()  # only when something was parsed
        return sorted(
            result,
            key=lambda s: (s.category or DEFAULT_CATEGORY, s.name, s.duplicate_of is not None),
        )

    def rescan(self) -> list[Skill]:
        """`scan()` with every cached listing and parse forgotten (/reload-skills): a change
        made within one timestamp tick of the last look is read too."""
        self._cache.clear()
        self._dir_cache.clear()
        self._index_cache = None
        return self.scan()

    def duplicates(self) -> list[Skill]:
        """Skills whose name another folder already has (for `doctor` and the skills list)."""
        return [skill for skill in self.scan() if skill.duplicate_of is not None]

    def index(
        self,
        max_chars: int,
        relevant: Sequence[str] = (),
        screen: Callable[[str], str | None] | None = None,
    ) -> str:
        """The system-prompt skills index; reused while no skill and no usage record changed."""
        skills = tuple(self.scan())
        try:
            usage_stat = os.stat(self.usage.path)
            usage_key: tuple = (usage_stat.st_mtime_ns, usage_stat.st_size)
        except OSError:
            usage_key = ()
        # The tuple of Skill objects is part of the key: unchanged skills are the same cached
        # objects, and holding them keeps their identities from being reused.
        key = (skills, usage_key, max_chars, tuple(relevant), screen is not None)
        cached = self._index_cache
        if (
            cached is not None
            and len(cached[0][0]) == len(skills)
            and all(a is b for a, b in zip(cached[0][0], skills, strict=True))
            and cached[0][1:] == key[1:]
        ):
            return cached[1]
        text = build_index(skills, self.usage.all(), max_chars, relevant, screen)
        self._index_cache = (key, text)
        return text

    def get(self, name: str) -> Skill | None:
        """The skill with this name, or the one at this path (relative to its root, or absolute:
        how a duplicate is addressed)."""
        skills = self.scan()
        found = next((s for s in skills if s.name == name and s.duplicate_of is None), None)
        if found is not None or not name:
            return found
        if os.path.isabs(name):
            wanted = Path(name)
            wanted = wanted.parent if wanted.name == "SKILL.md" else wanted
            return next((s for s in skills if s.directory == wanted), None)
        wanted_path = name.strip("/").removesuffix("/SKILL.md")
        return next((s for s in skills if s.relative_path == wanted_path), None)

    def require(self, name: str) -> Skill:
        skill = self.get(name)
        if skill is None:
            raise SkillNotFound(name, [s.name for s in self.scan()[:20]])
        return skill

    def provenance(self, skill: Skill) -> str:
        if skill.root.kind == "bundled":
            return "bundled"
        if skill.root.kind == "external":
            return "external"
        return str(self.usage.get(skill.name).get("created_by") or "user")

    def describe_linked(self, skill: Skill) -> str:
        """`references/a.md, scripts/run.sh`, or `none`: for messages a person reads."""
        files = [f for found in self.linked_files(skill).values() for f in found]
        return ", ".join(files) if files else "none"

    def linked_files(self, skill: Skill) -> dict[str, list[str]]:
        """Files in the skill's folder by support folder; anything else (a file at the root,
        `examples/`, `agents/`) under "other". Hidden files and nested skills are left out."""
        linked: dict[str, list[str]] = {}
        for relative in _skill_files(skill.directory):
            top = relative.split("/", 1)[0]
            group = top if top in SUPPORT_DIRS and "/" in relative else "other"
            linked.setdefault(group, []).append(relative)
            if sum(map(len, linked.values())) >= MAX_LINKED_FILES:
                linked.setdefault("other", []).append(f"… more than {MAX_LINKED_FILES} files")
                break
        return {group: linked[group] for group in (*SUPPORT_DIRS, "other") if group in linked}

    def readable_path(self, skill: Skill, file_path: str) -> Path:
        """A file inside the skill's folder that may be read: relative, no `..`, no symbolic
        link on the way, and really inside the folder once resolved."""
        relative = Path(file_path)
        if not file_path or relative.is_absolute() or ".." in relative.parts:
            raise SkillError(
                f"file_path {file_path!r} must be a path inside the skill, relative to it, "
                "without '..'"
            )
        probe = skill.directory
        for part in relative.parts:
            probe = probe / part
            if probe.is_symlink():
                raise SkillError(
                    f"{file_path!r} goes through a symbolic link; only the skill's own files "
                    "can be read"
                )
        path = skill.directory / relative
        if skill.directory.resolve() not in path.resolve().parents:
            raise SkillError(f"{file_path!r} resolves outside the skill directory")
        if not path.is_file():
            raise SkillError(
                f"{skill.name} has no file {file_path!r}; its files: {self.describe_linked(skill)}"
            )
        return path

    def view(self, name: str, file_path: str | None = None, *, record: bool = True) -> SkillView:
        """A skill's SKILL.md, or one of its files; a model's view (record=True) counts as a
        view and a use."""
        skill = self.require(name)
        if skill.broken:
            raise SkillError(f"skill {name!r} is broken and cannot be used: {skill.error}")
        if file_path and not names_main_file(skill.name, file_path):
            path = self.readable_path(skill, file_path)
            size = path.stat().st_size
            if size > MAX_SUPPORT_BYTES:
                raise SkillError(
                    f"{file_path} is {size:,} bytes, over the {MAX_SUPPORT_BYTES:,} cap"
                )
            data = path.read_bytes()
            try:
                content = data.decode("utf-8")
                binary = "\x00" in content
            except UnicodeDecodeError:
                binary = True
            if binary:
                # Bytes are no use to a model and garble a terminal: say what the file is.
                content = f"binary file, {len(data):,} bytes"
            if record:
                self.usage.record_view(skill.name)
            return SkillView(
                skill.name, self.provenance(skill), content, file_path=file_path, binary=binary
            )
        assert skill.document is not None
        if record:
            self.usage.record_view(skill.name)
        return SkillView(
            skill.name,
            self.provenance(skill),
            skill.document.body,
            description=skill.description,
            category=skill.category or DEFAULT_CATEGORY,
            frontmatter=skill.document.frontmatter,
            linked_files=self.linked_files(skill),
            path=skill.skill_md,
            duplicate_of=skill.duplicate_of,
            warnings=skill.warnings,
        )


def _skill_files(directory: Path) -> list[str]:
    """Relative paths of the files in a skill folder, sorted, without SKILL.md, hidden files,
    dependency folders or folders that are skills of their own."""
    files: list[str] = []
    pending = [("", str(directory))]
    while pending:
        prefix, folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in SKIP_DIRS or entry.is_symlink():
                continue
            relative = f"{prefix}{entry.name}"
            if entry.is_dir():
                if not os.path.exists(os.path.join(entry.path, "SKILL.md")):
                    pending.append((relative + "/", entry.path))
            elif entry.is_file() and relative != "SKILL.md":
                files.append(relative)
    return sorted(files)


def _stat_skill_md(directory: str) -> os.stat_result | None:
    try:
        stat = os.stat(os.path.join(directory, "SKILL.md"))
    except OSError:
        return None
    return stat if os.path.stat.S_ISREG(stat.st_mode) else None


def _visible_dir(entry: os.DirEntry[str]) -> bool:
    if entry.name in SKIP_DIRS:
        return False
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:  # a dangling link or a link loop
        return False
