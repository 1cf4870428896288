"""Themes from `themes/*.yaml` (package) and `<home>/themes/*.yaml` (user) as Textual Themes.

Each colour is validated with Textual's own parser; a broken file is reported (the app shows a
notification) and skipped, so the app always has the built-in fallback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

COLOUR_FIELDS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
    "boost",
)
FALLBACK = "hermes-dark"


@dataclass(frozen=True)
class ThemeProblem:
    path: Path
    message: str


# libyaml's parser when PyYAML has it: the data `yaml.safe_load` gives (the same safe
# constructor), for about a tenth of the CPU; every app start reads the themes.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_theme(path: Path) -> Theme:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506 - safe
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError("a theme needs a 'name' and colour fields")
    fields = {"name": data["name"], "dark": bool(data.get("dark", True))}
    for key in COLOUR_FIELDS:
        if key in data:
            try:
                Color.parse(str(data[key]))
            except ColorParseError as exc:
                raise ValueError(f"{key}: {data[key]!r} is not a colour") from exc
            fields[key] = str(data[key])
    if "primary" not in fields:
        raise ValueError("'primary' is required")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ValueError("'variables' must be a mapping")
    for key, value in variables.items():
        try:
            Color.parse(str(value))
        except ColorParseError as exc:
            raise ValueError(f"variables.{key}: {value!r} is not a colour") from exc
    unknown = set(data) - {"name", "dark", "variables", *COLOUR_FIELDS}
    if unknown:
        raise ValueError(f"unknown keys: {', '.join(sorted(unknown))}")
    return Theme(**fields, variables={str(k): str(v) for k, v in variables.items()})


def load_themes(*directories: Path) -> tuple[list[Theme], list[ThemeProblem]]:
    themes: dict[str, Theme] = {}
    problems: list[ThemeProblem] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.yaml")):
            try:
                theme = load_theme(path)
            except (OSError, yaml.YAMLError, ValueError, TypeError) as exc:
                problems.append(ThemeProblem(path, str(exc).splitlines()[0]))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def install_themes(app: Any) -> None:
    """Register the package's and the user's themes and switch to the configured one; a broken
    theme file or an unknown name is a notification and the fallback, never a crash.

    Called as the app loads, before it composes anything: Textual restyles every widget when
    the theme changes, so switching once the screen is built styled it all twice. The
    notifications wait for the screen (`call_later` runs once the app's messages flow)."""
    from hermes_tui.resources import themes_dir

    themes, problems = load_themes(themes_dir(), app.runtime.home / "themes")
    for theme in themes:
        app.register_theme(theme)
    for problem in problems:
        message = f"theme {problem.path.name} skipped: {problem.message}"
        app.call_later(app.notify, message, severity="warning", timeout=8)
    wanted = app.runtime.config.display.theme
    app.theme = wanted if wanted in app.available_themes else FALLBACK
    if wanted not in app.available_themes:
        message = f"theme {wanted!r} not found; using {FALLBACK}"
        app.call_later(app.notify, message, severity="warning")
    app.saved_theme = wanted  # from now on a switch is the user's, and saved (`save_theme`)


def save_theme(app: Any, theme: str) -> None:
    """The theme the user switched to, saved to config.yaml; nothing before `install_themes`
    ran. Compared with what was last saved, not with the config read at start-up: switching
    away and back must save the way back too."""
    saved = getattr(app, "saved_theme", None)  # watchers may run before the app's __init__ ends
    if saved is not None and theme != saved:
        from hermes_tui.config import set_config_value

        set_config_value(app.runtime.user_home, "display", "theme", theme)
        app.saved_theme = theme
