"""The terminal's `strict` judgement of a skill's shell, handed by runtime.py to skill vetting
(core/skills/install/vetting.py) as a plain callable, so core/skills never imports the policy."""

from __future__ import annotations

from typing import Literal

from hermes_tui.core.tools.shell_policy import decide
from hermes_tui.core.tools.shell_policy.readonly import prove_read_only


def judge_skill_shell(script: str) -> tuple[Literal["harmless", "ask", "refuse"], str]:
    """A skill's shell as the terminal in `strict` mode sees it, in a project folder of a user:
    what the policy refuses is refused, what it would ask about or what is not proven read-only
    is asked about. Handed to core/skills' vetting as a plain callable."""
    workdir, home = "/home/user/project", "/home/user"
    verdict = decide(script, workdir, workdir, home)
    if verdict.action == "deny":
        return "refuse", verdict.reason
    if verdict.action == "ask":
        return "ask", verdict.reason
    proof = prove_read_only(script, workdir, workdir)
    if not proof.proven:
        return "ask", f"not proven read-only ({proof.reason})"
    return "harmless", ""
