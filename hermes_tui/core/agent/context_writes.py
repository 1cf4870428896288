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

import contextlib
import dataclasses
import os
import stat
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.agent.prompt import (
    CURSOR_RULES_DIR,
    CURSOR_RULES_FILE,
    CURSOR_RULES_GLOB,
    HERMES_FILE_NAMES,
    PROJECT_FILE_NAMES,
    is_context_file,
)
from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import atomic_write_bytes

if TYPE_CHECKING:
    from hermes_tui.core.tools.registry import ToolContext

FILE_WRITE_TOOLS = frozenset({"write_file", "patch"})
CTIME_SLACK = 1.0  # seconds: a file system's coarse timestamps
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
    named = is_context_file(path) or is_context_file(Path(os.path.normpath(absolute)))
    # README.md while AGENTS.md is a link to it: the prompt reads README.md's text; a new
    # .mdc in docs/rules while .cursor/rules links there (attack6's A6-8) is a rule too.
    folders = watched_folders(context)
    linked = {Path(os.path.realpath(p)) for p in watched_paths(folders)}
    rules = {Path(os.path.realpath(folder.joinpath(*CURSOR_RULES_DIR))) for folder in folders}
    in_rules = path.parent in rules and path.match(CURSOR_RULES_GLOB)
    if not named and path not in linked and not in_rules:
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
    """The lines of `after` that `before` does not hold (each line of `before` cancels one
    equal line of `after`; the rest kept in order), for the scanner: what the user's file
    already said is theirs, not the agent's. Linear: a line diff (difflib) of a 10,000-line
    file with a comment after each line held a turn two minutes (attack6's A6-11)."""
    left = Counter(before.splitlines(keepends=True))
    added = []
    for line in after.splitlines(keepends=True):
        if left[line]:
            left[line] -= 1
        else:
            added.append(line)
    return "".join(added)


# A command's changes (core/agent/taint.py WriteGate.after_command): the instruction files of the
# working directory and the conversation's current folder, before and after it runs.


@datarecord
class FileState:
    """A watched path as a command found or left it: a file's bytes or a link's target, and
    the text a prompt would read there."""

    link: str | None
    data: bytes | None
    text: str | None


def watched_folders(context: ToolContext) -> tuple[Path, ...]:
    """The working directory, the folder the conversation is in now, and those above the
    working directory up to its git root: a .hermes.md there is loaded by every session below
    it, an AGENTS.md by one started there, and a process outside the sandbox (an MCP server
    rooted at the repository) can write them (attack8's A8-2)."""
    from hermes_tui.core.agent.prompt import _git_root

    real = Path(os.path.realpath(context.workdir))
    root = _git_root(real)
    above = []
    if root is not None and root in real.parents:
        above = [folder for folder in real.parents if folder == root or root in folder.parents]
    return tuple(dict.fromkeys((context.workdir, context.cwd, *above)))


def watched_paths(folders: tuple[Path, ...]) -> list[Path]:
    """The instruction files a session started in one of `folders` would load (those there
    and those that could be made)."""
    names = [*HERMES_FILE_NAMES, *(n for pair in PROJECT_FILE_NAMES for n in pair)]
    paths: list[Path] = []
    for folder in folders:
        paths += [folder / name for name in (*names, CURSOR_RULES_FILE)]
        rules = folder.joinpath(*CURSOR_RULES_DIR)
        try:
            paths += sorted(rules.glob(CURSOR_RULES_GLOB)) if rules.is_dir() else []
        except OSError:
            continue
    return list(dict.fromkeys(paths))


@datarecord
class Watch:
    """The instruction files of some folders as they were before a command ran."""

    folders: tuple[Path, ...]
    roots: list[Path]  # where a link may lead for the prompt to load what it points to
    states: dict[Path, FileState | None]
    started: float = 0.0  # when the command started (time.time())
    # Where the folders of the watched files (and each folder's .cursor/rules) led before the
    # command, links on the way resolved.
    places: dict[Path, str] = dataclasses.field(default_factory=dict)


def snapshot(folders: tuple[Path, ...]) -> Watch:
    """The instruction files of `folders` (those there and those that could be made) and those
    below the working directory (the walk of `_instruction_files`), as they are: an
    existing pkg/AGENTS.md a command rewrites is put back with its own text, not only moved
    aside."""
    roots = _projects(folders)
    paths = [*watched_paths(folders), *_instruction_files(folders[0])[0]]
    states = {path: _state(path, roots) for path in dict.fromkeys(paths)}
    parents = [
        *folders,
        *(f.joinpath(*CURSOR_RULES_DIR) for f in folders),
        *(p.parent for p in states),
    ]
    places = {parent: os.path.realpath(parent) for parent in dict.fromkeys(parents)}
    return Watch(folders, roots, states, time.time(), places)


def in_place(watch: Watch, path: Path) -> bool:
    """Whether `path`'s folder is still where it lay before the command: no folder between a
    watched folder and the file was swapped for a link (`mv pkg pkg.old && ln -s ~/.claude
    pkg`: reading or putting back through it would read or overwrite the user's files
    elsewhere, attack7's A7-14). A folder made anew in its place is in place; a folder the
    command made is judged from the nearest folder known before."""
    now = os.path.realpath(path.parent)
    if path.parent in watch.places:
        return now == watch.places[path.parent]
    for known in sorted(watch.places, key=lambda p: len(p.parts), reverse=True):
        if known in path.parent.parents:
            rest = path.parent.relative_to(known)
            return now == os.path.normpath(os.path.join(watch.places[known], rest))
    return False


def _projects(folders: tuple[Path, ...]) -> list[Path]:
    """Where a link may lead for the prompt to load it (prompt.context_file_text's rule): the
    folders and their git roots."""
    from hermes_tui.core.agent.prompt import _git_root

    roots = [Path(os.path.realpath(folder)) for folder in folders]
    return [*roots, *(root for folder in roots if (root := _git_root(folder)) is not None)]


def _state(path: Path, roots: list[Path]) -> FileState | None:
    try:
        link = os.readlink(path) if path.is_symlink() else None
        target = Path(os.path.realpath(path))
        # A link out of the project is not loaded: its target (~/.aws/…) is not read here.
        outside = link is not None and not any(
            root == target or root in target.parents for root in roots
        )
        if outside or not path.is_file():  # absent, a folder, a pipe: none is loaded
            return FileState(link, None, None) if link is not None else None
        with path.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
    except OSError:
        return None
    whole = link is None and len(data) <= MAX_READ_BYTES  # what put_back can write again
    text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
    return FileState(link, data if whole else None, text)


def changed_by_command(before: Watch) -> tuple[list[ContextFileWrite], bool]:
    """The instruction files whose text (what a prompt would read) a command changed or made:
    those there before it ran (in the watched folders and below the working directory, where
    a session may start in pkg/), by their text then; a new one below, found as a file whose
    inode changed while it ran (a command cannot set a file's ctime back), its past unknown
    (`before` None). Removing one is not learning anything. And whether every folder below
    was looked at (folder_walk.py: only a first look at a huge tree may fall short)."""
    changes = []
    files, complete = _instruction_files(before.folders[0])
    below = [
        path for path in files if path not in before.states and _changed_since(path, before.started)
    ]
    for path in dict.fromkeys([*before.states, *watched_paths(before.folders), *below]):
        if not in_place(before, path):
            continue  # neither read nor written through a swapped folder: its past is elsewhere
        old, new = before.states.get(path), _state(path, before.roots)
        old_text = old.text if old is not None else None
        if new is None or new.text is None or new.text == old_text:
            continue
        changes.append(
            ContextFileWrite(path, old_text, new.text, added_text(old_text or "", new.text))
        )
    return changes, complete


def _instruction_files(workdir: Path) -> tuple[list[Path], bool]:
    """Every file below `workdir` named as an instruction file (folder_walk.py: complete, only
    changed folders listed again; dependency and cache folders skipped as the git guard
    skips them), every .cursor/rules/*.mdc, and whether every folder was looked at."""
    from hermes_tui.core.tools.folder_walk import files_named
    from hermes_tui.core.tools.gitdirs import SKIPPED

    names = frozenset(
        {*HERMES_FILE_NAMES, *(n for pair in PROJECT_FILE_NAMES for n in pair), CURSOR_RULES_FILE}
    )
    paths, complete = files_named(str(workdir), names | {CURSOR_RULES_DIR[1]}, SKIPPED | {".git"})
    found = [Path(path) for path in paths]
    rules = [p for p in found if p.name == CURSOR_RULES_DIR[1] and p.parent.name == ".cursor"]
    files = [p for p in found if p.name in names]
    mdc = [mdc for folder in rules for mdc in sorted(folder.glob(CURSOR_RULES_GLOB))]
    return [*files, *mdc], complete


def _changed_since(path: Path, started: float) -> bool:
    try:
        return os.lstat(path).st_ctime >= started - CTIME_SLACK
    except OSError:
        return False


def put_back(path: Path, state: FileState | None, known: bool = True) -> None:
    """The path as it was before the command: a link, a file's bytes, or nothing. A path
    whose past is unknown (`known` False) is moved aside beside it; when the command made
    that impossible (a file where the folder beside goes, a folder it cannot write: attack8's
    A8-8), it is removed: the held text is in pending/, and a live one would reach the next
    prompt."""
    from hermes_tui.core.tools.sweep import aside_folder, writable_again

    writable_again(path.parent)  # `chmod 555 .` by the command (A8-9)
    if not known:
        try:
            place = aside_folder(path.parent)  # never through a link the command put there
            name = f"{path.name.lstrip('.')}.held"  # not a name any prompt loads
            target, serial = place / name, 1
            while os.path.lexists(target):
                serial += 1
                target = place / f"{name}.{serial}"
            os.replace(path, target)
        except OSError:
            os.unlink(path)
            return
        if stat.S_ISREG(os.lstat(target).st_mode):
            os.chmod(target, 0o600)  # held text, never a program
        return
    if state is None:
        if os.path.lexists(path):
            os.unlink(path)
    elif state.link is not None:
        temporary = path.with_name(f".{path.name}.hermes-put-back")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.symlink(state.link, temporary)
        os.replace(temporary, path)
    elif state.data is not None:
        atomic_write_bytes(path, state.data)  # over a link the command made, the link goes
    else:
        raise OSError(f"{path} was too large to keep a copy of")
