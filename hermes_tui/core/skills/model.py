"""The skill library's vocabulary: a skill, the root it came from, a view of it, and the error it
raises."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.frontmatter import SkillDocument

RootKind = Literal["home", "external", "bundled"]
SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
MAX_SUPPORT_BYTES = 1024 * 1024
MODEL_ORIGINS = frozenset({"agent", "review", "curator"})
DEFAULT_CATEGORY = "general"


class SkillError(Exception):
    """A skill operation that cannot be done; the message says why and what to do instead."""


class SkillNotFound(SkillError):
    """No skill by that name. The message names some that exist; what to do instead is the
    face's to say (the model lists skills with a tool, a CLI user with a command)."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name, self.known = name, known
        super().__init__(f"no skill named {name!r} (skills here: {', '.join(known) or 'none'})")


@datarecord
class SkillRoot:
    """A folder skills are found in, and what kind it is."""

    path: Path
    kind: RootKind

    @property
    def writable(self) -> bool:
        return self.kind == "home"


@datarecord
class Skill:
    """A skill found in a root: its SKILL.md parsed, or the error that kept it from loading."""

    name: str
    category: str
    directory: Path
    root: SkillRoot
    document: SkillDocument | None = None
    error: str | None = None
    # Rules of the spec this SKILL.md breaks; it loads anyway ("warn and load").
    warnings: tuple[str, ...] = ()
    # The SKILL.md that has this name first, when another folder took it; this one is then
    # addressed by its path (`address`), not its name.
    duplicate_of: Path | None = None

    @property
    def broken(self) -> bool:
        return self.error is not None

    @property
    def description(self) -> str:
        return self.document.description if self.document else ""

    @property
    def skill_md(self) -> Path:
        return self.directory / "SKILL.md"

    @property
    def relative_path(self) -> str:
        """The folder relative to its root, e.g. `devops/k8s/deploy`."""
        return self.directory.relative_to(self.root.path).as_posix()

    @property
    def address(self) -> str:
        """How to name this skill to the tools and commands: its name, or for a duplicate its
        path relative to its root."""
        return self.relative_path if self.duplicate_of is not None else self.name


@datarecord
class SkillView:
    """What one view of a skill shows: its SKILL.md (file_path None) with its metadata, or one
    of its files (file_path set). The skill_view tool turns it into the model's payload."""

    name: str
    provenance: str  # bundled, hub, agent-created, ...: who wrote it
    content: str  # SKILL.md's body, a file's text, or "binary file, N bytes"
    file_path: str | None = None
    binary: bool = False
    # SKILL.md only:
    description: str = ""
    category: str = ""
    frontmatter: dict[str, Any] = field(default_factory=dict)
    linked_files: dict[str, list[str]] = field(default_factory=dict)
    path: Path | None = None
    duplicate_of: Path | None = None
    warnings: tuple[str, ...] = ()


def names_main_file(skill_name: str, file_path: str | None) -> bool:
    """Whether `file_path` names the skill's SKILL.md in one of Hermes' two spellings:
    `SKILL.md` (or `./SKILL.md`) and `<skill-name>/SKILL.md`."""
    if not file_path:
        return False
    path = file_path.removeprefix("./")
    return path == "SKILL.md" or path == f"{skill_name}/SKILL.md"
