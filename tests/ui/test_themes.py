"""Theme files become Textual themes; broken ones are reported, never fatal."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.resources import themes_dir
from hermes_tui.ui.themes import load_themes


def test_bundled_dark_light_and_high_contrast_themes_load() -> None:
    themes, problems = load_themes(themes_dir())
    assert problems == []
    assert {t.name for t in themes} >= {"hermes-dark", "hermes-light", "hermes-high-contrast"}
    assert {t.name: t.dark for t in themes}["hermes-light"] is False


def test_broken_files_are_reported_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "bad-colour.yaml").write_text("name: x\nprimary: '#zzzzzz'\n")
    (tmp_path / "bad-yaml.yaml").write_text("name: [oops\n")
    (tmp_path / "unknown.yaml").write_text("name: y\nprimary: '#ffffff'\nsparkle: true\n")
    (tmp_path / "good.yaml").write_text("name: good\nprimary: '#112233'\n")
    themes, problems = load_themes(tmp_path)
    assert [t.name for t in themes] == ["good"]
    reasons = {p.path.name: p.message for p in problems}
    assert "not a colour" in reasons["bad-colour.yaml"]
    assert "unknown keys: sparkle" in reasons["unknown.yaml"]
    assert "bad-yaml.yaml" in reasons
