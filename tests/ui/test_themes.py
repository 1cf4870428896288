"""Theme files become Textual themes; broken ones are reported, never fatal."""

from __future__ import annotations

from pathlib import Path

import yaml

from hermes_tui.resources import themes_dir
from hermes_tui.ui.themes import SAFE_LOADER, load_theme, load_themes


def test_bundled_dark_light_and_high_contrast_themes_load() -> None:
    themes, problems = load_themes(themes_dir())
    assert problems == []
    assert {t.name for t in themes} >= {"hermes-dark", "hermes-light", "hermes-high-contrast"}
    assert {t.name: t.dark for t in themes}["hermes-light"] is False


def test_themes_are_read_as_yaml_safe_load_reads_them(tmp_path: Path) -> None:
    """Themes are parsed with libyaml where PyYAML has it (every start reads them): the same
    data and the same themes as the pure-Python safe loader gives."""
    assert SAFE_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(themes_dir().glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=SAFE_LOADER) == yaml.safe_load(text), path.name  # noqa: S506
        assert load_theme(path).name == yaml.safe_load(text)["name"]
    odd = tmp_path / "odd.yaml"  # quoting, anchors, an explicit tag, a bool spelled yes
    odd.write_text(
        "name: 'odd'\ndark: yes\nprimary: &p '#102030'\naccent: *p\n"
        "variables: {footer-key-foreground: !!str '#aabbcc'}\n"
    )
    theme = load_theme(odd)
    assert (theme.name, theme.dark, theme.accent) == ("odd", True, "#102030")
    assert theme.variables == {"footer-key-foreground": "#aabbcc"}


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


async def test_the_app_starts_in_its_theme_styled_once_and_says_what_it_skipped(
    home: Path,
) -> None:
    """The configured theme is in place before the app composes anything: Textual restyles
    every widget when the theme changes, and a switch once the screen was up styled it all
    twice. A broken theme file is still reported once the screen is up."""
    from helpers import make_app

    (home / "themes").mkdir()
    (home / "themes" / "broken.yaml").write_text("name: broken\nprimary: not-a-colour\n")
    app = make_app(home, "http://127.0.0.1:9/v1", display={"theme": "hermes-light"})
    restyled: list[list[int]] = []  # the screens' sizes each time Textual restyled everything
    original_refresh = app.refresh_css
    app.refresh_css = lambda animate=True: (  # type: ignore[method-assign]
        restyled.append([len(list(s.walk_children())) for s in app.screen_stack]),
        original_refresh(animate),
    )[-1]
    notes: list[str] = []
    original_notify = app.notify
    app.notify = lambda message, **kw: notes.append(str(message)) or original_notify(message, **kw)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "hermes-light"
        light = app.get_theme("hermes-light")
        assert app.screen.styles.background == light.to_color_system().background
        assert restyled == [[]]  # once, before any screen existed
        assert any("broken.yaml skipped" in note for note in notes)
        app.theme = "hermes-dark"  # a switch by the user restyles what is there
        await pilot.pause()
        assert len(restyled) == 2 and restyled[1][0] > 0
    assert "theme: hermes-dark" in (home / "config.yaml").read_text()
