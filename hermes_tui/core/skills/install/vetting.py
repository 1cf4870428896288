"""Vetting a skill from outside, whole: every file, whatever its language, before it is installed.

A candidate is a folder holding a SKILL.md. It passes only if it parses, has a name we would write
ourselves, fits the size limits, and its findings allow it:
- the skill guard (guard.py) over every file: patterns by category, symlinks, binaries, sizes;
- shell (scripts, and SKILL.md's shell blocks) through the judge handed in by the composition root
  (the terminal's `strict` mode: what is not proven harmless is at least caution);
- Python, JavaScript, Ruby, Perl and PHP (scripts and code blocks) through scripts.py;
- the description through the whole injection scanner (refused: it sits in every prompt's skills
  index), the Markdown through our patterns a paragraph at a time.
The verdict (safe / caution / dangerous / invalid) and the source's trust tier decide what the
installer does (`decide`): bundled, trusted (listed in `skills.trusted_sources`) or community.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.skills import frontmatter, guard
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.install import scripts
from hermes_tui.core.skills.install.scripts import FENCE_LANGUAGES, language_of
from hermes_tui.core.skills.install.sources import SourceSpec
from hermes_tui.core.skills.model import DEFAULT_CATEGORY, MAX_SUPPORT_BYTES

Verdict = Literal["invalid", "dangerous", "caution", "safe"]
Tier = Literal["bundled", "trusted", "community"]
Action = Literal["install", "notice", "force", "refuse"]
ShellOpinion = Literal["harmless", "ask", "refuse"]
# The terminal's judgement of a script: (opinion, reason). Built in runtime.py from the shell
# policy, so that core/skills does not reach into core/tools.
ShellJudge = Callable[[str], tuple[ShellOpinion, str]]
SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".archive"}

# What each tier's verdict needs (Hermes' INSTALL_POLICY, with caution from a trusted source
# installed with a notice rather than silently, and nothing dangerous installed from anywhere).
POLICY: dict[Tier, dict[str, Action]] = {
    "bundled": {"safe": "install", "caution": "install", "dangerous": "refuse"},
    "trusted": {"safe": "install", "caution": "notice", "dangerous": "refuse"},
    "community": {"safe": "install", "caution": "force", "dangerous": "refuse"},
}


@dataclass(frozen=True)
class Vetter:
    """What vetting needs from outside core/skills: the shell judge and the trust settings."""

    shell: ShellJudge
    trusted_sources: tuple[str, ...] = ()
    bundled_dir: Path | None = None

    def tier(self, spec: SourceSpec) -> Tier:
        if spec.kind == "folder" and self.bundled_dir is not None:
            real = Path(os.path.realpath(spec.location))
            bundled = self.bundled_dir.resolve()
            if real == bundled or bundled in real.parents:
                return "bundled"
        location = _normal(spec.location)
        for prefix in self.trusted_sources:
            trusted = _normal(prefix)
            if trusted and (location == trusted or location.startswith(trusted + "/")):
                return "trusted"
        return "community"


def _normal(source: str) -> str:
    return source.strip().rstrip("/").removesuffix(".git").lower()


def decide(verdict: Verdict, tier: Tier, force: bool) -> Action:
    """install / notice (installs, saying what was found) / force (needs --force) / refuse."""
    if verdict == "invalid":
        return "refuse"
    action = POLICY[tier][verdict]
    return "install" if action == "force" and force else action


@dataclass(frozen=True)
class Candidate:
    name: str
    directory: Path
    relative: str
    category: str
    description: str = ""
    problems: tuple[str, ...] = ()
    report: guard.GuardReport = field(default_factory=lambda: guard.GuardReport("safe", ()))

    @property
    def verdict(self) -> Verdict:
        return "invalid" if self.problems else self.report.verdict

    def explain(self) -> str:
        if self.problems:
            return "; ".join(self.problems)
        return "; ".join(
            f"{f.id} in {f.file}{f':{f.line}' if f.line else ''}: {f.description}"
            for f in self.report.findings
        )


def find_candidates(root: Path, vetter: Vetter, category: str | None = None) -> list[Candidate]:
    """Every skill folder under `root`, each validated and vetted whole."""
    found: list[Candidate] = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        if "SKILL.md" in files:
            found.append(_vet(root, Path(directory), category, vetter))
            subdirs[:] = []  # a skill's own folders are its files, not more skills
    return found


def _vet(root: Path, directory: Path, category: str | None, vetter: Vetter) -> Candidate:
    relative = str(directory.relative_to(root)) if directory != root else "."
    problems: list[str] = []
    name, description = directory.name, ""
    skill_md = directory / "SKILL.md"
    try:
        document = frontmatter.parse(skill_md.read_bytes().decode("utf-8"), f"{relative}/SKILL.md")
        name, description = document.name, document.description
        if problem := frontmatter.check_name(name):
            problems.append(problem)
    except UnicodeDecodeError:
        problems.append(f"{relative}/SKILL.md is not valid UTF-8")
    except SkillFormatError as exc:
        problems.append(str(exc))
    for path in directory.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.stat().st_size > MAX_SUPPORT_BYTES:
            problems.append(
                f"{path.relative_to(directory)} is {path.stat().st_size:,} bytes "
                f"(over {MAX_SUPPORT_BYTES:,})"
            )
    report = guard.scan_directory(directory)
    extra = (
        shell_findings(directory, vetter.shell)
        + script_findings(directory)
        + text_findings(directory, description)
    )
    seen = {(f.file, f.line, f.id) for f in report.findings}
    extra = [f for f in extra if (f.file, f.line, f.id) not in seen]
    if extra:
        findings = (*report.findings, *extra)
        report = guard.GuardReport(_worst(report.verdict, extra), findings)
    parent = Path(relative).parent.name if relative != "." else ""
    chosen = category or (parent if parent and not frontmatter.check_name(parent) else "")
    return Candidate(
        name=name,
        directory=directory,
        relative=relative,
        category=chosen or DEFAULT_CATEGORY,
        description=description,
        problems=tuple(problems),
        report=report,
    )


_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1", re.M | re.S)
_SHELL_FENCES = {"bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession", "ksh"}
_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".command")


def _blocks(path: Path, text: str) -> list[tuple[str, int, str]]:
    """(language, first line, code) of what in this file is code: the whole of a script, or
    each fenced block of a Markdown file. An unlabelled block counts as shell when a line of it
    starts with a `$ ` prompt."""
    if path.suffix == ".md":
        found = []
        for match in _FENCE.finditer(text):
            label, code = match.group(2).lower(), match.group(3)
            line = text[: match.start(3)].count("\n") + 1
            if label in _SHELL_FENCES or (
                not label and any(row.startswith("$ ") for row in code.splitlines())
            ):
                found.append(("shell", line, code))
            elif label in FENCE_LANGUAGES:
                found.append((FENCE_LANGUAGES[label], line, code))
        return found
    first = text.split("\n", 1)[0]
    if path.suffix in _SHELL_SUFFIXES or (
        first.startswith("#!") and re.search(r"\b(?:ba|z|k|da)?sh\b", first)
    ):
        return [("shell", 1, text)]
    if language := language_of(path.name, text):
        return [(language, 1, text)]
    return []


def _code_files(directory: Path) -> Iterator[tuple[str, Path, str]]:
    for path in sorted(directory.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield str(path.relative_to(directory)), path, _read_text(path)


def shell_findings(directory: Path, judge: ShellJudge) -> list[guard.GuardFinding]:
    """What the terminal in `strict` mode would say of every command the skill has the agent run.

    A playbook's shell blocks and scripts are commands the agent will later run on the user's
    machine, so they are judged now as strict mode judges them: only what is proven harmless
    passes; anything else makes the skill "caution", and what the policy refuses "dangerous".
    """
    findings: list[guard.GuardFinding] = []
    for relative, path, text in _code_files(directory):
        for language, line, block in _blocks(path, text):
            if language != "shell":
                continue
            script = "\n".join(
                row[2:] if row.startswith("$ ") else row for row in block.splitlines()
            )  # console transcripts: the commands after the prompt
            if not script.strip():
                continue
            opinion, reason = judge(script)
            if opinion == "harmless":
                continue
            refused = opinion == "refuse"
            findings.append(
                guard.GuardFinding(
                    relative,
                    line,
                    "shell_policy_" + ("deny" if refused else "ask"),
                    "command",
                    "high" if refused else "medium",
                    f"the terminal would {'refuse' if refused else 'ask before'} "
                    f"running this: {reason}"[:300],
                )
            )
    return findings


def script_findings(directory: Path) -> list[guard.GuardFinding]:
    """Python, JavaScript, Ruby, Perl and PHP, in script files and in SKILL.md's code blocks."""
    findings: list[guard.GuardFinding] = []
    for relative, path, text in _code_files(directory):
        for language, line, block in _blocks(path, text):
            if language == "shell":
                continue
            for found in scripts.check(block, language):
                findings.append(
                    guard.GuardFinding(
                        relative,
                        line + found.line - 1,
                        found.id,
                        "script",
                        found.severity,
                        f"{language}: {found.description}",
                    )
                )
    return findings


def text_findings(directory: Path, description: str) -> list[guard.GuardFinding]:
    """The injection scanner (ours + xaidr, over decoded views) on what the agent will read.

    The description goes into every session's skills index, so it gets the whole scanner, as
    memory does. The Markdown is what the agent reads when it loads the skill: it gets our own
    patterns over every decoded view, a paragraph at a time so a finding names its line (the
    library reads prose about security, such as our own shell-safety skill, as attacks). A
    finding the scanner would refuse in memory makes the skill dangerous, one it would hold
    makes it "caution".
    """
    from hermes_tui.core.threats import scan, tier_of

    findings: list[guard.GuardFinding] = []
    for finding in _description_scanner().assess_skill(description).findings:
        if tier_of(finding) != "flag":  # a weak signal weighs only in a tainted turn
            findings.append(_as_guard_finding("SKILL.md", None, finding, "refuse"))
    pieces: list[tuple[str, int, str]] = []
    for path in sorted(directory.rglob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = str(path.relative_to(directory))
        line = 1
        for paragraph in re.split(r"(\n[ \t]*\n)", _read_text(path)):
            if paragraph.strip():
                pieces.append((relative, line, paragraph))
            line += paragraph.count("\n")
    for relative, line, text in pieces:
        for finding in scan(text):
            findings.append(_as_guard_finding(relative, line, finding, tier_of(finding)))
    return list(dict.fromkeys(findings))


@functools.cache
def _description_scanner() -> Any:
    """One scanner for every description vetted in this process: it remembers its verdicts by
    text, so a skill vetted again (its update, the same hub offered as a folder and as an
    archive) is not scanned again. Built on the first vetting, with the threats package."""
    from hermes_tui.core.threats import Scanner

    return Scanner()


def _as_guard_finding(file: str, line: int | None, finding: Any, tier: str) -> guard.GuardFinding:
    return guard.GuardFinding(
        file,
        line,
        finding.id,
        finding.category,
        "high" if tier == "refuse" else "medium",
        ("description: " if line is None else "") + finding.description,
    )


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    return "" if b"\x00" in data[:8192] else data.decode("utf-8", errors="replace")


def _worst(verdict: guard.Verdict, extra: list[guard.GuardFinding]) -> guard.Verdict:
    if verdict == "dangerous" or any(f.severity in ("high", "critical") for f in extra):
        return "dangerous"
    return "caution"
