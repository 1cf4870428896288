"""Shared fixtures: every test gets its own home directory and a clean environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Variables that would make a test depend on the machine it runs on.
_LEAKY_VARIABLES = (
    "HERMES_HOME",
    "HERMES_PROVIDER",
    "HERMES_MODEL",
    "HERMES_BASE_URL",
    "HERMES_THEME",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENROUTER_API_KEY",
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _LEAKY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def cli_env(**extra: str) -> dict[str, str]:
    """Environment for running `hermes-tui` as a subprocess, without the machine's keys."""
    env = {k: v for k, v in os.environ.items() if k not in _LEAKY_VARIABLES}
    env.update(extra)
    return env
