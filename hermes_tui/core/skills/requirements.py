"""What a skill needs from the machine, as Hermes declares it: platforms and environment variables.

Hermes reads these top-level frontmatter keys (and we read them under `metadata.hermes` too,
where hermes-tui 0.1 moved them): `platforms` (macos, linux, windows; absent or empty means
every platform), `required_environment_variables` (names, or mappings with `name`/`env_var`,
`prompt`, `help`, `optional`), `setup.collect_secrets` (`env_var`, `prompt`, `provider_url`) and
the older `prerequisites.env_vars`. Pure functions of the frontmatter and an environment.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

from hermes_tui.core.records import datarecord

# Hermes' names → the prefix of `sys.platform` they mean.
PLATFORMS = {"macos": "darwin", "linux": "linux", "windows": "win32"}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@datarecord
class RequiredVariable:
    """An environment variable a skill says it needs."""

    name: str
    prompt: str
    help: str | None = None
    optional: bool = False


def _field(frontmatter: Mapping[str, Any], key: str) -> Any:
    if key in frontmatter:
        return frontmatter[key]
    metadata = frontmatter.get("metadata")
    hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
    return hermes.get(key) if isinstance(hermes, dict) else None


def platforms(frontmatter: Mapping[str, Any]) -> list[str]:
    """The platforms a skill declares ([] = every platform)."""
    value = _field(frontmatter, "platforms")
    if not value:
        return []
    items = value if isinstance(value, list) else [value]
    return [str(item).strip().lower() for item in items if str(item).strip()]


def runs_here(frontmatter: Mapping[str, Any], platform: str = sys.platform) -> bool:
    """Whether a skill is meant for this operating system (Hermes hides it elsewhere)."""
    declared = platforms(frontmatter)
    return not declared or any(platform.startswith(PLATFORMS.get(p, p)) for p in declared)


def required_variables(frontmatter: Mapping[str, Any]) -> list[RequiredVariable]:
    """Every environment variable a skill asks for, each once, in the order declared."""
    found: dict[str, RequiredVariable] = {}

    def add(name: Any, prompt: Any = None, help_text: Any = None, optional: bool = False) -> None:
        text = str(name or "").strip()
        if not _ENV_NAME.fullmatch(text) or text in found:
            return
        found[text] = RequiredVariable(
            text,
            str(prompt or f"Enter value for {text}").strip(),
            str(help_text).strip() if isinstance(help_text, str) and help_text.strip() else None,
            bool(optional),
        )

    setup = _field(frontmatter, "setup")
    setup = setup if isinstance(setup, dict) else {}
    declared = _field(frontmatter, "required_environment_variables")
    for item in declared if isinstance(declared, list) else [declared] if declared else []:
        if isinstance(item, dict):
            add(
                item.get("name") or item.get("env_var"),
                item.get("prompt"),
                item.get("help")
                or item.get("provider_url")
                or item.get("url")
                or setup.get("help"),
                item.get("optional", False),
            )
        else:
            add(item)
    secrets = setup.get("collect_secrets")
    for item in secrets if isinstance(secrets, list) else [secrets] if secrets else []:
        if isinstance(item, dict):
            add(
                item.get("env_var"),
                item.get("prompt"),
                item.get("provider_url") or setup.get("help"),
            )
    prerequisites = _field(frontmatter, "prerequisites")
    if isinstance(prerequisites, dict):
        legacy = prerequisites.get("env_vars")
        for item in legacy if isinstance(legacy, list) else [legacy] if legacy else []:
            add(item)
    return list(found.values())


def missing_variables(
    frontmatter: Mapping[str, Any], environ: Mapping[str, str]
) -> list[RequiredVariable]:
    """The required (not optional) variables that are unset or empty in `environ`."""
    return [
        variable
        for variable in required_variables(frontmatter)
        if not variable.optional and not environ.get(variable.name)
    ]


def setup_note(missing: list[RequiredVariable], env_file: str) -> str:
    """What to tell the model and the user when a skill cannot work yet."""
    names = ", ".join(variable.name for variable in missing)
    helps = "; ".join(f"{v.name}: {v.help}" for v in missing if v.help)
    note = (
        f"Setup needed before using this skill: missing {names}. Set it in the environment or "
        f"add it to {env_file} (NAME=value), then start a new session."
    )
    return f"{note} {helps}" if helps else note
