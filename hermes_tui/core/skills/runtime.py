"""A skill as it reaches a turn: Hermes' template variables, the user's skill config, setup needs.

Applied when a skill is viewed (skill_view) or invoked (`/<skill-name>`, `chat -s NAME`):
`${HERMES_SKILL_DIR}` becomes the skill's folder and `${HERMES_SESSION_ID}` the session's id (as
Hermes' skill preprocessing does); `skills.config.<name>` values from config.yaml are appended as
a named block; a skill whose required environment variables are unset says so, with how to set
them. Nothing here runs anything: inline shell in skills stays off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.skills.model import Skill
from hermes_tui.core.skills.requirements import (
    missing_variables,
    platforms,
    runs_here,
    setup_note,
)


@dataclass(frozen=True)
class SkillRuntimeSettings:
    """What the composition root knows that a viewed skill may need (plain values)."""

    environ: Mapping[str, str] = field(default_factory=dict)
    env_file: Path = Path(".env")
    # skills.config from config.yaml: skill name → {key: value}.
    skill_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def substitute(text: str, skill: Skill, session_id: str | None) -> str:
    """Hermes' template variables in a skill's text."""
    text = text.replace("${HERMES_SKILL_DIR}", str(skill.directory))
    if session_id:
        text = text.replace("${HERMES_SESSION_ID}", session_id)
    return text


def config_block(skill: Skill, settings: SkillRuntimeSettings) -> str:
    values = settings.skill_config.get(skill.name)
    if not isinstance(values, Mapping) or not values:
        return ""
    lines = [f"- {key}: {value}" for key, value in values.items()]
    return (
        f"\n\n## Configuration (config.yaml skills.config.{skill.name})\n" + "\n".join(lines) + "\n"
    )


def readiness(skill: Skill, settings: SkillRuntimeSettings) -> dict[str, Any]:
    """Hermes' readiness fields for skill_view: setup_needed, the missing variables, a note."""
    assert skill.document is not None
    frontmatter = skill.document.frontmatter
    result: dict[str, Any] = {}
    if not runs_here(frontmatter):
        result["unsupported"] = (
            f"this skill is for {', '.join(platforms(frontmatter))}, not this platform"
        )
    missing = missing_variables(frontmatter, settings.environ)
    result["setup_needed"] = bool(missing)
    if missing:
        result["missing_environment_variables"] = [v.name for v in missing]
        result["setup_note"] = setup_note(missing, str(settings.env_file))
    return result


def invocation(
    skill: Skill, arguments: str, session_id: str | None, settings: SkillRuntimeSettings
) -> str:
    """The user message that loads a skill into a turn (`/<skill-name> args`, `chat -s`)."""
    assert skill.document is not None
    body = substitute(skill.document.body, skill, session_id) + config_block(skill, settings)
    ready = readiness(skill, settings)
    notes = [ready[key] for key in ("unsupported", "setup_note") if key in ready]
    text = (
        f'[The user loaded the skill "{skill.name}" for this turn. Follow it.]\n\n'
        f'<skill name="{skill.name}" path="{skill.skill_md}">\n{body.strip()}\n</skill>'
    )
    if notes:
        text += "\n\n" + "\n".join(f"[{note}]" for note in notes)
    request = arguments.strip()
    return f"{text}\n\n{request}" if request else text
