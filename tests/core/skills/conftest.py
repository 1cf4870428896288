"""Fixtures for the skills specifications."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.skills.library import SkillLibrary


@pytest.fixture
def events() -> list:
    return []


@pytest.fixture
def library(home: Path, events: list) -> SkillLibrary:
    return SkillLibrary(
        home / "skills", audit=AuditLog(home / "logs" / "audit.jsonl"), sink=events.append
    )
