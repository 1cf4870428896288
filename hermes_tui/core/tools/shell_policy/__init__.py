"""The shell policy: a bash command line in, allow / ask / deny out, always with a reason.

`decide()` is pure (no I/O besides parsing): it parses the line with tree-sitter-bash
(analyze.py walks every simple command, unwrapping wrappers and nested scripts), then:
deny if any command matches a `terminal.deny` prefix; ask if anything can do lasting
damage, reach a secret or cannot be known before it runs, unless a `terminal.allow` prefix
covers that command or a session grant covers that finding (model.Grant: the same prefix,
category and target); allow otherwise. The terminal tool applies the verdict; the sandbox
(sandbox.py) limits what an allowed or approved command can touch.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from hermes_tui.core.tools.shell_policy.analyze import Script
from hermes_tui.core.tools.shell_policy.model import (
    CANNOT_TELL,
    Analysis,
    Finding,
    Grant,
    Rules,
)

__all__ = [
    "CANNOT_TELL",
    "Finding",
    "Grant",
    "PolicyConfig",
    "PrefixError",
    "Verdict",
    "decide",
    "parse_prefix",
]

Action = Literal["allow", "ask", "deny"]


class PrefixError(ValueError):
    """A terminal.allow / terminal.deny entry that is not a usable command prefix."""


def parse_prefix(text: str) -> tuple[str, ...]:
    """'git push' or 'npm run test:*' (Claude Code style) as words; a trailing * is optional."""
    stripped = text.strip()
    for suffix in (":*", " *", "*"):
        if stripped.endswith(suffix):
            stripped = stripped[: -len(suffix)].rstrip()
            break
    try:
        words = tuple(shlex.split(stripped))
    except ValueError as exc:
        raise PrefixError(f"{text!r} is not a command prefix: {exc}") from exc
    if not words:
        raise PrefixError(f"{text!r} is not a command prefix: it has no words")
    return words


@dataclass(frozen=True)
class PolicyConfig:
    """What the user configured: prefixes always allowed and always refused."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    action: Action
    reason: str
    findings: tuple[Finding, ...] = ()
    # What "allow for this session" would grant, one per finding; empty when some finding
    # cannot be granted ("cannot tell"). `prefixes` says the same in words, for the dialog.
    grants: tuple[Grant, ...] = ()

    @property
    def prefixes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g.describe() for g in self.grants))


def decide(
    command: str,
    cwd: str | PurePosixPath,
    workdir: str | PurePosixPath,
    home: str | PurePosixPath,
    policy: PolicyConfig = PolicyConfig(),
    grants: tuple[Grant, ...] = (),
    realpath: Callable[[str], str] = str,
) -> Verdict:
    """The verdict on running `command` (bash) in `cwd`, for a conversation rooted at
    `workdir`, with `home` as the user's $HOME. `realpath` resolves a path a session grant
    is checked against (the terminal passes os.path.realpath; the default judges words)."""
    rules = Rules(
        workdir=str(PurePosixPath(workdir)),
        home=str(PurePosixPath(home)),
        allow=tuple(parse_prefix(p) for p in policy.allow),
        deny=tuple(parse_prefix(p) for p in policy.deny),
        grants=grants,
        realpath=realpath,
    )
    analysis = Analysis(rules)
    if not command.strip():
        return Verdict("allow", "an empty command runs nothing")
    Script(analysis, 0, "").run(command, (str(PurePosixPath(cwd)),))
    findings = tuple(analysis.findings)
    denied = [f for f in findings if f.category == "deny"]
    if denied:
        return Verdict("deny", "; ".join(f.reason for f in denied), findings)
    if findings:
        reasons = list(dict.fromkeys(f.reason for f in findings))
        grants: tuple[Grant, ...] = ()
        if all(f.prefix for f in findings):
            grants = tuple(
                dict.fromkeys(Grant(f.prefix, f.category, f.target) for f in findings if f.prefix)
            )
        return Verdict("ask", "; and ".join(reasons), findings, grants)
    if analysis.allowed_by:
        rules_used = ", ".join(repr(r) for r in dict.fromkeys(analysis.allowed_by))
        return Verdict("allow", f"allowed by the prefix rule {rules_used}")
    return Verdict("allow", "nothing in it needs approval")
