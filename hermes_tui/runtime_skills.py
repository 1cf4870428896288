"""The Runtime's skills at work: what a viewed or invoked skill gets (runtime.py composes it).

A mixin of `Runtime`, like runtime_learning.py: it builds from what the runtime holds. Inline
shell (Hermes' !`command` in a SKILL.md) runs only with `skills.inline_shell: true`, and then as
a terminal tool call of the conversation: the same sandbox, policy, approval mode and
approvals as the agent's own commands, its output redacted like every tool result.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_tui.core.skills.runtime import SkillRuntimeSettings
    from hermes_tui.core.tools.registry import ToolContext, ToolRegistry


class SkillParts:
    config: Any
    home: Path
    skills: Any
    _environ: dict[str, str] | None
    tool_registry: Callable[[], ToolRegistry]

    def skill_runtime_settings(
        self, registry: Callable[[], ToolRegistry] | None = None
    ) -> SkillRuntimeSettings:
        """What a viewed or invoked skill may need: the environment (with .env), skills.config,
        and with skills.inline_shell the terminal tool of `registry` to run its snippets."""
        from hermes_tui.core.skills.runtime import SkillRuntimeSettings

        environ = os.environ if self._environ is None else self._environ
        shell = None
        if self.config.skills.inline_shell and registry is not None:
            timeout = self.config.skills.inline_shell_timeout

            def shell(command: str, context: ToolContext) -> Mapping[str, Any]:
                # A copy: a snippet's `cd` does not move the conversation's directory.
                call = {"command": command, "timeout": timeout}
                return registry().run("terminal", call, dataclasses.replace(context)).result

        return SkillRuntimeSettings(
            environ={**self.config.env, **environ},
            env_file=self.home / ".env",
            skill_config=self.config.skills.config,
            inline_shell=shell,
        )

    def skill_invocation(
        self,
        name: str,
        arguments: str,
        session_id: str | None,
        tools: tuple[ToolRegistry, ToolContext] | None = None,
    ) -> str:
        """The message that loads skill `name` into a turn (`/<skill-name>`, `chat -s`);
        raises SkillError when there is no such usable skill. `tools` (the conversation's
        registry and context) runs its inline shell when skills.inline_shell is on; without
        them the snippets stay as written. Call it where a command may wait for approval."""
        from hermes_tui.core.skills.library import SkillError
        from hermes_tui.core.skills.runtime import invocation

        skill = self.skills.require(name)
        if skill.broken or skill.document is None:
            raise SkillError(f"skill {name!r} is broken and cannot be used: {skill.error}")
        self.skills.usage.record_view(skill.name)
        registry, context = tools if tools is not None else (None, None)
        settings = self.skill_runtime_settings((lambda: registry) if registry else None)
        return invocation(skill, arguments, session_id, settings, context)
