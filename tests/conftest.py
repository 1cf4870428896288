"""Shared fixtures: every test gets its own home directory and a clean environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import LEAKY_VARIABLES


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LEAKY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path
