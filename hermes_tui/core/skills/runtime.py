"""A skill as it reaches a turn: Hermes' template variables, the user's skill config, setup needs.

Applied when a skill is viewed (skill_view) or invoked (`/<skill-name>`, `chat -s NAME`):
`${HERMES_SKILL_DIR}` becomes the skill's folder and `${HERMES_SESSION_ID}` the session's id (as
Hermes' skill preprocessing does); `skills.config.<name>` values from config.yaml are appended as
a named block; a skill whose required environment variables are unset says so, with how to set
them. Hermes' inline shell (!`command` in the text) is expanded only through the runner the
composition root hands in with `skills.inline_shell: true` (the terminal tool: its sandbox,
policy and approvals); otherwise a snippet stays as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.model import Skill
from hermes_tui.core.skills.requirements import (
    missing_variables,
    platforms,
    runs_here,
    setup_note,
)


@datarecord
class SkillRuntimeSettings:
    """What the composition root knows that a viewed skill may need (plain values)."""

    environ: Mapping[str, str] = field(default_factory=dict)
    env_file: Path = Path(".env")
    # skills.config from config.yaml: skill name → {key: value}.
    skill_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # skills.inline_shell: runs one snippet as a terminal tool call of the conversation
    # (command, its ToolContext) → the tool's result. None: snippets stay as written.
    inline_shell: Callable[[str, Any], Mapping[str, Any]] | None = None


def substitute(text: str, skill: Skill, session_id: str | None) -> str:
    """Hermes' template variables in a skill's text."""
    text = text.replace("${HERMES_SKILL_DIR}", str(skill.directory))
    if session_id:
        text = text.replace("${HERMES_SESSION_ID}", session_id)
    return text


INLINE_SHELL = re.compile(r"!`([^`\n]+)`")
INLINE_OUTPUT_MAX = 4000  # characters of one snippet's output, as Hermes


def expand_inline_shell(text: str, run: Callable[[str], Mapping[str, Any]]) -> str:
    """Hermes' !`command` snippets replaced by what `run` (the terminal tool, with its sandbox,
    policy and approvals) gives back: the output, capped, or an `[inline-shell error: …]`
    marker for a refused, failed or timed-out command. Each distinct command runs once."""
    outputs: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        command = match[1].strip()
        if command not in outputs:
            result = run(command)
            output = str(result.get("output") or "").strip()
            if not result.get("success", True) or result.get("exit_code") not in (None, 0):
                why = result.get("error") or f"exit {result.get('exit_code')}"
                outputs[command] = f"[inline-shell error: {' '.join(str(why).split())[:300]}]"
            else:
                outputs[command] = output[:INLINE_OUTPUT_MAX]
        return outputs[command]

    return INLINE_SHELL.sub(replace, text)


def expand_for(text: str, settings: SkillRuntimeSettings, context: Any) -> str:
    """`text` with its inline shell run, when skills.inline_shell is on and a conversation's
    tool context is at hand; else as it is."""
    runner = settings.inline_shell
    if runner is None or context is None or "!`" not in text:
        return text
    return expand_inline_shell(text, lambda command: runner(command, context))


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
    skill: Skill,
    arguments: str,
    session_id: str | None,
    settings: SkillRuntimeSettings,
    context: Any = None,
) -> str:
    """The user message that loads a skill into a turn (`/<skill-name> args`, `chat -s`);
    `context` (the conversation's ToolContext) lets its inline shell run when that is on."""
    assert skill.document is not None
    body = expand_for(substitute(skill.document.body, skill, session_id), settings, context)
    body += config_block(skill, settings)
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
