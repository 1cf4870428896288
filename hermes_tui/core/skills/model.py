"""The skill library's vocabulary: a skill, the root it came from, and the error it raises."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hermes_tui.core.skills.frontmatter import SkillDocument

RootKind = Literal["home", "external", "bundled"]
SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
MAX_SUPPORT_BYTES = 1024 * 1024
MODEL_ORIGINS = frozenset({"agent", "review", "curator"})
DEFAULT_CATEGORY = "general"


class SkillError(Exception):
    """A skill operation that cannot be done; the message says why and what to do instead."""


@dataclass(frozen=True)
class SkillRoot:
    path: Path
    kind: RootKind

    @property
    def writable(self) -> bool:
        return self.kind == "home"


@dataclass(frozen=True)
class Skill:
    name: str
    category: str
    directory: Path
    root: SkillRoot
    document: SkillDocument | None = None
    error: str | None = None

    @property
    def broken(self) -> bool:
        return self.error is not None

    @property
    def description(self) -> str:
        return self.document.description if self.document else ""

    @property
    def skill_md(self) -> Path:
        return self.directory / "SKILL.md"
