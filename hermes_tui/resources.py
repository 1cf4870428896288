"""Files shipped inside the package: themes and bundled skills (found after a wheel install too)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _package_path(name: str) -> Path:
    return Path(str(files("hermes_tui") / name))


def themes_dir() -> Path:
    return _package_path("themes")


def bundled_skills_dir() -> Path:
    return _package_path("skills_bundled")
