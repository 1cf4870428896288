"""Shared fixtures: every test gets its own home directory and a clean environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import LEAKY_VARIABLES, spec_problems_of_created_skills


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LEAKY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A fresh home. Afterwards, every skill the test created through our writes must pass the
    Agent Skills reference validator (what we write stays strict)."""
    path = tmp_path / "home"
    path.mkdir()
    yield path
    problems = spec_problems_of_created_skills(path)
    assert not problems, f"skills written by hermes-tui break the Agent Skills spec: {problems}"
