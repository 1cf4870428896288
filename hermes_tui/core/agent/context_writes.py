"""The files tools' writes to the project's instruction files, as the write gate sees them.

The system prompt of every later session carries the project's instruction file (prompt.py:
.hermes.md, AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/*.mdc), so a write_file or
patch on one is learned text like a memory entry (DESIGN §13, attack4's A4-18: a README's
planted note copied word for word into AGENTS.md). The gate (taint.py) judges only what the
write adds: a copied run must take in 5 words the file did not hold before, and the scanner
reads the lines that changed, so editing an AGENTS.md the conversation has read is not a
"copy" of it, nor are the user's own words the agent's.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.agent.prompt import is_context_file
from hermes_tui.core.records import datarecord

if TYPE_CHECKING:
    from hermes_tui.core.tools.registry import ToolContext

FILE_WRITE_TOOLS = frozenset({"write_file", "patch"})
MAX_READ_BYTES = 5 * 1024 * 1024  # the files tools' own read cap


@datarecord
class ContextFileWrite:
    """A files-tool call that would change an instruction file: where, and its text before,
    after and added."""

    path: Path  # resolved: a link to AGENTS.md is a write to AGENTS.md
    before: str | None  # None: the file does not exist yet
    after: str
    added: str  # the lines of `after` that `before` does not hold


def planned_context_write(
    tool: str, arguments: dict[str, Any], context: ToolContext
) -> ContextFileWrite | None:
    """The change `tool(arguments)` would make to an instruction file; None when it writes no
    such file, or cannot run (the tool then gives its own error)."""
    raw = arguments.get("path")
    if tool not in FILE_WRITE_TOOLS or not isinstance(raw, str) or not raw.strip():
        return None
    expanded = os.path.expanduser(raw)
    absolute = Path(expanded if os.path.isabs(expanded) else os.path.join(context.cwd, expanded))
    path = Path(os.path.realpath(absolute))
    if not (is_context_file(path) or is_context_file(Path(os.path.normpath(absolute)))):
        return None
    before = _current_text(path)
    if tool == "write_file":
        after = str(arguments.get("content", ""))
    else:
        if before is None:
            return None
        from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

        try:
            after = find_and_replace(
                before,
                str(arguments.get("old_string", "")),
                str(arguments.get("new_string", "")),
                replace_all=bool(arguments.get("replace_all")),
            ).content
        except (FuzzyMatchError, KeyError):
            return None
    return ContextFileWrite(path, before, after, added_text(before or "", after))


def _current_text(path: Path) -> str | None:
    try:
        if not path.is_file():  # absent, or a pipe the tool refuses anyway
            return None
        with path.open("rb") as handle:
            return handle.read(MAX_READ_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def added_text(before: str, after: str) -> str:
    """The lines of `after` that `before` does not hold (inserted or replaced blocks), for the
    scanner: what the user's file already said is theirs, not the agent's."""
    old_lines = before.splitlines(keepends=True)
    new_lines = after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    return "".join(
        "".join(new_lines[j1:j2])
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
    )
