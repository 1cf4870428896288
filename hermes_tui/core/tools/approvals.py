"""The one approval protocol: a tool asks, the face asks the human, the conversation keeps grants.

A tool that needs the user's word builds an `ApprovalRequest`: what would run or be touched,
the policy's category, its reasons, and the exact `grant` "allow for this session" would make
(None: it can only be allowed once). `Approvals.ask()` answers from the grants this
conversation already holds, else puts the request to the face's `AskHuman` ("once",
"session" or "deny") and keeps a session answer's grant. One `Approvals` belongs to one core
`Session` (runtime.py hands it to the session and its ToolContext); faces hold no grants.

Invariants:
- a grant names what it grants and nothing wider: a path grant is the REAL path (links
  resolved when it is made, and the path asked about is resolved again when it is checked,
  so a symlink planted later does not widen it); an MCP grant is one tool of one server; a
  host grant is one host; a command grant is one exact command line in one directory;
- a face that fails to ask, or has no human (`ask` None), has not said yes;
- grants end with the conversation: nothing here is written to disk.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, Literal

from hermes_tui.core.records import datarecord

if TYPE_CHECKING:  # the shell policy (tree-sitter) loads on the first command, not here
    from hermes_tui.core.tools.shell_policy.model import Grant as ShellGrant

Decision = Literal["once", "session", "deny"]
Category = str  # the policy's word: "deletion", "privilege", "strict mode", "files", "mcp", …


@datarecord
class _Worded:
    """A grant whose words are its fields put into its class's WORDS."""

    WORDS: ClassVar[str] = ""

    def describe(self) -> str:
        return self.WORDS.format_map(vars(self))


@datarecord
class PathGrant(_Worded):
    """One tool on one real path (files outside the roots)."""

    WORDS = "{tool} on {path}"
    tool: str
    path: str


@datarecord
class McpGrant(_Worded):
    """Every call of one tool of one MCP server (set to ask before every call)."""

    WORDS = "every call of {server}.{tool}"
    server: str
    tool: str


@datarecord
class HostGrant(_Worded):
    """Connections to one host not on terminal.network_allow."""

    WORDS = "connections to {host}"
    host: str


@datarecord
class CommandGrant(_Worded):
    """One exact command line run in one directory (strict mode's question)."""

    WORDS = "exactly `{command}` in {cwd}"
    command: str
    cwd: str


@datarecord
class ShellGrants:
    """The shell policy's grants for a command's findings (shell_policy.Grant: a prefix with
    the category and target of one finding); the policy checks them when it judges."""

    grants: tuple[ShellGrant, ...]  # noqa: F821 - see TYPE_CHECKING

    def describe(self) -> str:
        return ", ".join(dict.fromkeys(g.describe() for g in self.grants))


SessionGrant = PathGrant | McpGrant | HostGrant | CommandGrant | ShellGrants


@datarecord
class ApprovalRequest:
    """A question for the human: `what` would run or be touched, exactly as it would."""

    what: str
    category: Category
    reasons: tuple[str, ...]
    grant: SessionGrant | None = None

    @property
    def reason(self) -> str:
        return "; and ".join(dict.fromkeys(self.reasons))

    @property
    def grants(self) -> str | None:
        """What "allow for this session" would grant, in words; None: once only."""
        return self.grant.describe() if self.grant is not None else None


AskHuman = Callable[[ApprovalRequest], Decision]


class Approvals:
    """One conversation's approvals: the grants it holds and the face that asks the human."""

    def __init__(
        self, ask: AskHuman | None = None, *, realpath: Callable[[str], str] = os.path.realpath
    ) -> None:
        self._ask = ask
        self.realpath = realpath
        self._grants: list[SessionGrant] = []
        self._lock = threading.Lock()

    def ask(self, request: ApprovalRequest) -> bool:
        """True when the request may go ahead: a held grant covers it, or the human said yes."""
        if request.grant is not None and self.holds(request.grant):
            return True
        decision: Decision = "deny"
        if self._ask is not None:
            try:
                decision = self._ask(request)
            except Exception:  # a face that failed to ask has not said yes
                decision = "deny"
        if decision == "session" and request.grant is not None:
            self._keep(request.grant)
        return decision in ("once", "session")

    def holds(self, grant: SessionGrant) -> bool:
        """Whether `grant` is already held; a path is compared by where it really is now."""
        wanted = self._resolved(grant)
        with self._lock:
            return wanted in self._grants

    def shell_grants(self) -> tuple[ShellGrant, ...]:
        """The shell policy's grants held, for `shell_policy.decide` (targets are real paths)."""
        with self._lock:
            held = list(self._grants)
        return tuple(g for grants in held if isinstance(grants, ShellGrants) for g in grants.grants)

    def held(self) -> list[SessionGrant]:
        with self._lock:
            return list(self._grants)

    def _keep(self, grant: SessionGrant) -> None:
        grant = self._resolved(grant)
        with self._lock:
            if grant not in self._grants:
                self._grants.append(grant)

    def _resolved(self, grant: SessionGrant) -> SessionGrant:
        """`grant` with its paths resolved: links followed, so it names the real place."""
        if isinstance(grant, PathGrant):
            return replace(grant, path=self.realpath(grant.path))
        if isinstance(grant, ShellGrants):
            return ShellGrants(
                tuple(
                    replace(g, target=self.realpath(g.target))
                    if g.target is not None and g.target.startswith("/")
                    else g
                    for g in grant.grants
                )
            )
        return grant


LABEL = re.compile(r"\[REDACTED ([^\]\n]{1,80})\]")  # what core/redaction writes for a secret


def shown_command(command: str) -> str:
    """The command as a question shows it, in every face (the TUI's dialog, an ACP editor's
    permission request): trailing blanks dropped, and runs of blank lines or of spaces said in
    words, so padding cannot push the part that asks out of sight (attack4's A4-16: `ls -la`,
    400 spaces and 80 empty lines before a `curl … | sh`; attack9's A9-12 in the ACP face)."""
    shown: list[str] = []
    blank = 0
    for line in command.splitlines():
        if not line.strip():
            blank += 1
            continue
        if blank:
            shown.append(f"⋯ {blank} blank lines ⋯" if blank > 1 else "")
            blank = 0
        shown.append(
            re.sub(r"[ \t]{8,}", lambda m: f" ⋯ {len(m.group())} blanks ⋯ ", line.rstrip())
        )
    return "\n".join(shown)


def carried_labels(shown: str) -> list[str]:
    """The known secrets a (redacted) command carries, by their labels."""
    return sorted(set(LABEL.findall(shown)))
