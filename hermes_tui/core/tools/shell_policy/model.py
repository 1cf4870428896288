"""What the analysis works with: findings, streams between commands, scopes and rules."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.words import Word

Category = Literal[
    "privilege",
    "deletion",
    "device",
    "permissions",
    "network",
    "git",
    "fork bomb",
    "system",
    "secret",
    "persistence",
    "unknown",
    "deny",
]
CANNOT_TELL = "cannot tell what this runs"
# Builtins that set the variables named by their arguments.
SETS_VARIABLES = frozenset({"read", "mapfile", "readarray", "getopts", "let", "printf", "export"})
MAX_DEPTH = 6


@dataclass(frozen=True)
class Finding:
    category: Category
    reason: str
    prefix: str | None = None  # words the user may allow for the session; None: not allowable
    # What it acts on: an absolute path (a session grant covers it and what lies under it),
    # or any other text (a URL, refs, a command) a grant covers only when equal; None: nothing.
    target: str | None = None


@dataclass(frozen=True)
class Stream:
    """What flows into a command's stdin (or out of a pipeline stage)."""

    kind: Literal["none", "network", "literal", "unknown"] = "none"
    text: str = ""
    source: str = ""
    target: str = ""  # what a download fetches (its URL), for session grants
    names: str = ""  # a folder holding secrets whose entries' names flow here (find ~/.aws)


NONE = Stream()


@dataclass(frozen=True)
class Grant:
    """What "allow for this session" gave: one approved finding's command prefix, category
    and target. It covers a later finding of a command with that prefix in the same category
    whose target is the same, or (for a path) lies under it; never a stronger category, a
    path the approved command did not name, another download, or another command line as root."""

    prefix: str
    category: Category
    target: str | None = None

    def covers(
        self,
        finding: Finding,
        forms: Sequence[Sequence[str]],
        realpath: Callable[[str], str] = str,
    ) -> bool:
        """`realpath` resolves the finding's path where it is now (a grant's own target was
        resolved when it was made, approvals.py), so a link planted since does not widen it."""
        if finding.category != self.category or not any(
            prefix_matches(tuple(self.prefix.split()), form) for form in forms
        ):
            return False
        if self.target is None or finding.target is None:
            return self.target == finding.target
        if self.target.startswith("/") and finding.target.startswith("/"):
            where = realpath(finding.target)
            return where == self.target or cmds.inside(where, self.target)
        return finding.target == self.target

    def describe(self) -> str:
        """In words, for the approval dialog's session button."""
        target = self.target
        if target is None:
            return self.prefix
        if target.startswith("/"):
            return f"{self.prefix} on {target}"
        if " | " in target:
            return target  # a download fed to a program: that URL into that program
        if target.startswith(("?", "printed")):
            return f"this {self.prefix} command again"
        return f"exactly `{target}`"


@dataclass
class Rules:
    workdir: str
    home: str
    allow: tuple[tuple[str, ...], ...] = ()
    deny: tuple[tuple[str, ...], ...] = ()
    grants: tuple[Grant, ...] = ()
    realpath: Callable[[str], str] = str  # where a granted path really is, at judging time


@dataclass
class Analysis:
    rules: Rules
    findings: list[Finding] = field(default_factory=list)
    allowed_by: list[str] = field(default_factory=list)
    downloaded: set[str] = field(default_factory=set)  # "*" when a download's name is unknown
    written: dict[str, str | None] = field(default_factory=dict)  # scripts written in this line
    renames: dict[str, str] = field(default_factory=dict)  # ln -s /usr/bin/sudo s: s -> sudo

    def add(self, finding: Finding) -> None:
        if finding not in self.findings:
            self.findings.append(finding)


def prefix_matches(rule: tuple[str, ...], words: Sequence[str]) -> bool:
    if len(words) < len(rule):
        return False
    first, *rest = rule
    name = words[0]
    if first != name and first != posixpath.basename(name):
        return False
    return list(words[1 : len(rule)]) == rest


def suggest_prefix(base: str, args: Sequence[Word]) -> str:
    """The words a session rule would start with: the program and its subcommand, if any."""
    words = [base]
    if base == "git":
        sub = git_subcommand(args)
        if sub is not None:
            words.append(sub)
        return " ".join(words)
    for word in args[:1]:
        if word.value and re.fullmatch(r"[a-z][a-z0-9._-]*", word.value):
            words.append(word.value)
    return " ".join(words)


def git_subcommand(args: Sequence[Word]) -> str | None:
    i = 0
    while i < len(args):
        text = args[i].value
        if text is None:
            return None
        if not text.startswith("-"):
            return text
        i += 2 if text in cmds.GIT_VALUE_OPTIONS else 1
    return None


def git_without_globals(words: Sequence[str]) -> list[str] | None:
    """`git -C dir -c k=v push -f` as `git push -f`, so a prefix rule sees the subcommand."""
    i = 1
    while i < len(words):
        text = words[i]
        if not text.startswith("-"):
            return [words[0], *words[i:]]
        i += 2 if text in cmds.GIT_VALUE_OPTIONS else 1
    return None


@dataclass
class Scope:
    """Where relative paths point: every directory the shell may be in at this point."""

    cwds: tuple[str, ...] | None

    def copy(self) -> Scope:
        return Scope(self.cwds)

    def cd(self, target: Word, home: str) -> None:
        if self.cwds is None:
            return
        if target.values is None or target.glob:
            self.cwds = None
            return
        # A cd may fail, so the old directory stays possible.
        new = list(self.cwds)
        for value in target.values:
            for cwd in self.cwds:
                new.append(posixpath.normpath(posixpath.join(cwd, value or home)))
        self.cwds = tuple(dict.fromkeys(new))[:16]


def fetcher_in(sources: frozenset[str]) -> str | None:
    return next((s for s in sorted(sources) if s in cmds.FETCHERS), None)
