"""Package data is found wherever the package is installed (CI installs it without -e)."""

from __future__ import annotations

import yaml

from hermes_tui.resources import bundled_skills_dir, themes_dir


def test_themes_ship_with_the_package() -> None:
    names = {yaml.safe_load(p.read_text())["name"] for p in themes_dir().glob("*.yaml")}
    assert {"hermes-dark", "hermes-light", "hermes-high-contrast"} <= names


def test_bundled_skills_ship_with_the_package() -> None:
    assert any(bundled_skills_dir().rglob("SKILL.md"))
