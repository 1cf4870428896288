"""The system prompt, built once per session in three tiers (DESIGN.md section 8).

stable (identity or SOUL.md, tool, memory and skill guidance, the skills index) → context
(the project's instruction file as Hermes picks it: .hermes.md/HERMES.md up to the git root,
else AGENTS.md, else CLAUDE.md, else .cursorrules and .cursor/rules/*.mdc) → volatile (the frozen memory snapshot and today's date,
without a time). Every one of them is scanned on its way in: SOUL.md and AGENTS.md that fail
are left out with a note, memory entries and index lines that fail are replaced by markers
(memory.py, skills/index.py). The text is then stored with the session and sent byte-identical on every
call of that session, the background review's included, so provider prefix caches keep hitting.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from hermes_tui.core import threats
from hermes_tui.core.memory import MemorySnapshot
from hermes_tui.core.records import datarecord

IDENTITY = """You are Hermes, a coding and operations agent working in the user's terminal. You \
act through tools: you run commands, read and edit files, and keep notes that outlive this \
conversation. Be direct and concrete; show what you did and what you found. Prefer doing the \
work over describing it, and check your results before you report them."""

TOOL_GUIDANCE = """## Working with tools
- Read before you edit; after a change, run the relevant check (tests, a build, the command).
- The terminal keeps its working directory between calls. Commands that can do lasting damage \
(sudo, force pushes, recursive deletes outside the project, piping downloads into a shell) need \
the user's approval and may be refused: look for a safer way first.
- A failed tool call tells you why. Fix the cause instead of repeating the same call."""

MEMORY_GUIDANCE = """## Memory
You have two small, bounded notebooks that are loaded into every future session: MEMORY (your \
notes on environments, projects, conventions and tool quirks) and USER (who the user is, their \
preferences and how they like to work). Save with the memory tool when you learn something that \
will still be true next week: a stable fact, a preference, a correction the user made. Write \
short declarative facts ("Deploys use helm 3.14 via make deploy"), not instructions, not logs \
of what happened in this task, nothing secret. When a notebook is nearly full, merge or drop \
entries. Changes you save now reach the prompt in the next session.
Before asking the user to repeat something they may have told you in an earlier session, use \
session_search."""

SKILL_GUIDANCE = """## Skills
Skills are playbooks saved from experience. When a task matches one in the index below, load it \
with skill_view before you start and follow it. If a loaded skill turned out wrong, incomplete \
or outdated, patch it with skill_manage (action patch) once the task is done. After a \
non-trivial task that needed several steps, some trial and error, or a correction from the \
user, save the approach as a new skill (action create) written for the whole class of task, \
not this one instance; prefer patching an existing skill over creating a near-duplicate."""


@datarecord
class PromptInputs:
    """Everything the system prompt is built from, gathered once per session."""

    skills_index: str
    memory: MemorySnapshot
    cwd: Path
    today: datetime.date
    soul: str | None = None
    memory_enabled: bool = True
    user_enabled: bool = True
    scanner: threats.Scanner | None = None


# Hermes' order: the first kind of project file found is the one loaded (only one kind, so a
# project carrying both AGENTS.md and a copy as CLAUDE.md does not pay for it twice).
CONTEXT_FILE_MAX_CHARS = 20_000
HERMES_FILE_NAMES = (".hermes.md", "HERMES.md")  # from the working directory up to the git root
PROJECT_FILE_NAMES = (("AGENTS.md", "agents.md"), ("CLAUDE.md", "claude.md"))
CURSOR_RULES_FILE = ".cursorrules"
CURSOR_RULES_DIR = (".cursor", "rules")  # every *.mdc in it
CURSOR_RULES_GLOB = "*.mdc"


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _first_file(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        path = folder / name
        if path.is_file():
            return path
    return None


def context_file_paths(cwd: Path) -> list[Path]:
    """The project files Hermes reads into the prompt, the first kind found, in this order:
    .hermes.md / HERMES.md (from the working directory up to its git root), AGENTS.md,
    CLAUDE.md, then .cursorrules with .cursor/rules/*.mdc (the working directory only)."""
    base = cwd.resolve()
    root = _git_root(base)
    for folder in (base, *base.parents):
        found = _first_file(folder, HERMES_FILE_NAMES)
        if found is not None:
            return [found]
        if root is None or folder == root:
            break
    for names in PROJECT_FILE_NAMES:
        found = _first_file(base, names)
        if found is not None:
            return [found]
    rules = [base / CURSOR_RULES_FILE] if (base / CURSOR_RULES_FILE).is_file() else []
    cursor = base.joinpath(*CURSOR_RULES_DIR)
    if cursor.is_dir():
        rules += sorted(p for p in cursor.glob(CURSOR_RULES_GLOB) if p.is_file())
    return rules


def is_context_file(path: Path) -> bool:
    """Whether a session started in `path`'s folder (or, for .hermes.md, below it) would load
    `path` into its prompt when no file earlier in the order is there: judged by its name and
    place alone, wherever it is, since the next session may start anywhere."""
    names = {*HERMES_FILE_NAMES, *(name for pair in PROJECT_FILE_NAMES for name in pair)}
    if path.name in names or path.name == CURSOR_RULES_FILE:
        return True
    return path.match(str(Path(*CURSOR_RULES_DIR, CURSOR_RULES_GLOB)))


def _capped(text: str, path: Path, limit: int, total: str = "") -> str:
    """Hermes' cut: the head and the tail, with a marker that says how to read the rest."""
    if len(text) <= limit:
        return text
    head, tail = limit * 7 // 10, limit * 2 // 10
    return (
        f"{text[:head]}\n\n[... {path.name} cut: kept {head:,} + {tail:,} of "
        f"{total or f'{len(text):,} characters'}; read the file for the rest ...]\n\n"
        + text[-tail:]
    )


def _read_ends(target: Path, limit: int) -> tuple[str, str]:
    """(the file's text, "" or how long it is when only its ends were read): never more than
    the cut keeps in memory (a sparse 8 GB AGENTS.md a command made was read whole at every
    start: attack4's A4-8)."""
    size = target.stat().st_size
    room = limit * 4  # the most bytes `limit` characters take in UTF-8
    if size <= 2 * room:
        return target.read_text(encoding="utf-8", errors="replace"), ""
    with target.open("rb") as file:
        head = file.read(room)
        file.seek(size - room)
        tail = file.read(room)
    text = head.decode("utf-8", errors="replace") + "\n" + tail.decode("utf-8", errors="replace")
    return text, f"{size:,} bytes"


def context_file_text(
    path: Path, project: Path, scanner: threats.Scanner, limit: int = CONTEXT_FILE_MAX_CHARS
) -> str:
    """One context file for the prompt, named, scanned and capped ('' if unreadable)."""
    try:
        target = path.resolve()
        if project.resolve() not in target.parents:
            # A link out of the project (to ~/.netrc, say) would send that file to the provider.
            return (
                f"[{path} was not loaded: it is a link to {target}, outside the project. "
                "Copy the instructions into the project to use them.]"
            )
        if not target.is_file():  # a FIFO a command made would hang every start here
            return f"[{path} was not loaded: it is not a regular file.]"
        text, total = _read_ends(target, limit)
    except OSError:
        return ""
    # Only refuse-tier findings count: context files are the user's own project's files.
    ids = scanner.refused(text[: threats.MAX_SCAN_CHARS])
    if ids:
        return (
            f"[{path} was not loaded: it matched threat pattern(s) "
            f"{ids}. Tell the user if they expected it to apply.]"
        )
    return f"## Project instructions ({path})\n{_capped(text.strip(), path, limit, total)}"


def context_files(cwd: Path, scanner: threats.Scanner | None = None) -> str:
    """The context tier: the project's instruction files as Hermes picks them ('' if none)."""
    scanner = scanner or threats.Scanner()
    paths = context_file_paths(cwd)
    if not paths:
        return ""
    # .hermes.md may sit above the working directory, up to the git root: that is the project.
    project = _git_root(cwd.resolve()) or cwd
    parts = [context_file_text(path, project, scanner) for path in paths]
    return "\n\n".join(part for part in parts if part)


def agents_md(cwd: Path, scanner: threats.Scanner | None = None) -> str:
    """The working directory's AGENTS.md alone ('' if none or unsafe)."""
    path = cwd / "AGENTS.md"
    if not path.is_file():
        return ""
    return context_file_text(path, cwd, scanner or threats.Scanner())


def identity(soul: str | None, scanner: threats.Scanner) -> str:
    """SOUL.md when it is set and passes the scan; otherwise the default identity."""
    if not soul or not soul.strip():
        return IDENTITY
    ids = scanner.refused(soul[: threats.MAX_SCAN_CHARS])
    if ids:
        return (
            f"{IDENTITY}\n\n[SOUL.md was not loaded: it matched threat pattern(s) {ids}. "
            "Tell the user if they expected their persona to apply.]"
        )
    return soul.strip()


def build_system_prompt(inputs: PromptInputs) -> str:
    scanner = inputs.scanner or threats.Scanner()
    identity_text = identity(inputs.soul, scanner)
    stable = [identity_text, TOOL_GUIDANCE]
    if inputs.memory_enabled or inputs.user_enabled:
        stable.append(MEMORY_GUIDANCE)
    stable.append(SKILL_GUIDANCE)
    if inputs.skills_index:
        stable.append("## Skills index (load one with skill_view)\n" + inputs.skills_index)
    context = context_files(inputs.cwd, scanner)
    volatile = []
    if inputs.memory_enabled and inputs.memory.memory:
        volatile.append(inputs.memory.memory)
    if inputs.user_enabled and inputs.memory.user:
        volatile.append(inputs.memory.user)
    volatile.append(f"Today's date: {inputs.today.isoformat()}. Working directory: {inputs.cwd}")
    return "\n\n".join(part for part in [*stable, context, *volatile] if part)
