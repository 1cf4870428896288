"""Composition root: the only place that builds config, stores and (later) providers and tools.

Faces (the TUI, the CLI) call `Runtime.open()` and use what it holds; nothing else constructs
stores, so every face sees the same files with the same limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hermes_tui.config import Config, Overrides, load_config, resolve_home
from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Sink, discard
from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.skills.usage import UsageStore
from hermes_tui.resources import bundled_skills_dir


@dataclass
class Runtime:
    config: Config
    audit: AuditLog
    memory: MemoryStore
    skills: SkillLibrary

    @property
    def home(self) -> Path:
        return self.config.home

    @classmethod
    def open(
        cls,
        home: str | Path | None = None,
        overrides: Overrides | None = None,
        *,
        environ: dict[str, str] | None = None,
        sink: Sink = discard,
    ) -> Runtime:
        home_path = resolve_home(home, environ)
        config = load_config(home_path, overrides, environ)
        audit = AuditLog(home_path / "logs" / "audit.jsonl")
        memory = MemoryStore(
            home_path / "memories",
            memory_char_limit=config.memory.memory_char_limit,
            user_char_limit=config.memory.user_char_limit,
            audit=audit,
            sink=sink,
        )
        skills_dir = home_path / "skills"
        skills = SkillLibrary(
            skills_dir,
            external_dirs=[Path(p) for p in config.skills.external_dirs],
            bundled_dir=bundled_skills_dir(),
            usage=UsageStore(skills_dir / ".usage.json"),
            history=SkillHistory(skills_dir),
            audit=audit,
            sink=sink,
        )
        return cls(config=config, audit=audit, memory=memory, skills=skills)
