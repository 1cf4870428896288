"""The files toolset: read with line numbers, write, fuzzy patch, and search by regex and glob.

Relative paths are resolved against the conversation's working directory (the one the
terminal tool keeps), so `cd` in the terminal and a later read_file agree. Every path is
judged by path_policy.py before it is touched: inside the working directory or
`files.allowed_roots` it is used; elsewhere, for well-known secret files anywhere, and for a
write to what runs later outside the sandbox (run_later.py: git's configs and hooks, `.envrc`,
`.vscode/`, …, the list the sandbox holds read-only for commands), the user is asked
(approvals.py: the TUI asks; `chat -q` refuses unless --yolo); the hermes home's own stores are
never written here. The resolved path is the one opened.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.storage import atomic_write_text
from hermes_tui.core.tools import schemas
from hermes_tui.core.tools.approvals import ApprovalRequest, PathGrant
from hermes_tui.core.tools.registry import Tool, ToolContext
from hermes_tui.core.tools.results import DISPLAY_KEY, ResultLimits

# The path policy and the fuzzy matcher are imported by the first call that needs them: a
# conversation that touches no file never pays for them (bench/oneshot.py).
if TYPE_CHECKING:
    from hermes_tui.core.tools.path_policy import Access, PathRules

DIFF_MAX_LINES = 2000  # a diff longer than this is cut (the faces say how much was left out)
DEFAULT_LIMIT = schemas.DEFAULT_LIMIT
MAX_LINE = 2000
MAX_READ_BYTES = 5 * 1024 * 1024
SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)


def edit_diff(path: Path, before: str, after: str, workdir: Path) -> str:
    """The edit as a unified diff with three lines of context, for the faces (not the model)."""
    import difflib

    try:
        name = str(path.relative_to(workdir))
    except ValueError:
        name = str(path)
    lines = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"a/{name}" if before else "/dev/null",
            tofile=f"b/{name}",
            lineterm="",
        )
    )
    if len(lines) > DIFF_MAX_LINES:
        left = len(lines) - DIFF_MAX_LINES
        lines = [*lines[:DIFF_MAX_LINES], f"… {left:,} more diff lines not shown"]
    return "\n".join(lines)


class PathRefused(Exception):
    """The policy (or the user) said no; the message is what the model reads."""


def _read_text(path: Path) -> str:
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; use search_files or terminal `ls`")
    if not path.is_file():
        # A FIFO would block the turn forever, a device could stream without end.
        raise ValueError(f"{path} is not a regular file (a pipe, socket or device)")
    with path.open("rb") as handle:  # at most the cap, whatever the file's size
        data = handle.read(MAX_READ_BYTES)
    if b"\x00" in data[:8192]:
        raise ValueError(f"{path} looks like a binary file")
    return data.decode("utf-8", errors="replace")


def _read(context: ToolContext, path: Path) -> str:
    """The file's text as the user sees it: the editor's buffer when the face has one."""
    editor = context.editor
    if editor is None or not editor.can_read or (path.exists() and not path.is_file()):
        return _read_text(path)  # the local checks name a folder, a pipe or a missing file
    try:
        text = editor.read_text(path)
    except OSError as exc:
        raise OSError(f"the editor could not read {path}: {exc}") from exc
    if "\x00" in text[:8192]:
        raise ValueError(f"{path} looks like a binary file")
    return text[:MAX_READ_BYTES]


def _write(context: ToolContext, path: Path, text: str) -> None:
    """Through the editor when it writes files (its buffer and the disk stay one), else atomic."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        # A named pipe would block the snapshot (and the turn) forever; a device, a socket or a
        # folder is not the agent's to replace.
        raise OSError(f"{path} is not a regular file (a pipe, socket, device or folder)")
    editor = context.editor
    if editor is not None and editor.can_write:
        editor.write_text(path, text)
        return
    # Saved first for /rewind (core/checkpoints.py); an editor's writes are the editor's to undo.
    if context.file_writes is not None:
        context.file_writes.before(path)
    atomic_write_text(path, text)
    if context.file_writes is not None:
        context.file_writes.after(path)


def make_file_tools(
    *,
    allowed_roots: Iterable[str | Path] = (),
    hermes_home: Path | None = None,
    limits: ResultLimits | None = None,
    skill_dirs: Iterable[Path] = (),
    server_paths: Iterable[Path] = (),
) -> list[Tool]:
    """The files tools; `allowed_roots`, `hermes_home`, `skill_dirs` (the user's external
    skills folders) and `server_paths` (what the MCP servers start from: both asked about
    where a writable place holds them) feed the path policy,
    `limits` the size a read stops at (and the session's scratch folder, readable without
    asking)."""
    skill_dirs, server_paths = tuple(skill_dirs), tuple(server_paths)
    limits = limits or ResultLimits()
    roots = tuple(allowed_roots)

    def rules_for(
        context: ToolContext, extra_read_roots: tuple[Path, ...] = (), *, write: bool = False
    ) -> PathRules:
        from hermes_tui.core.tools.path_policy import resolve_rules

        scratch = limits.scratch_dir(context.session_id)
        return resolve_rules(
            context.workdir,
            allowed_roots=roots,
            read_roots=(*((scratch,) if scratch is not None else ()), *extra_read_roots),
            hermes_home=hermes_home,
            write=write,
            skill_dirs=skill_dirs,
            server_paths=server_paths,
        )

    def checked(tool: str, access: Access, raw: str, context: ToolContext) -> Path:
        """The path to open for `raw`, after the policy (and maybe the user) allowed it."""
        from hermes_tui.core.tools.path_policy import decide, gather, secret_file_ids

        write = access == "write"  # what runs later outside the sandbox asks (run_later.py)
        rules = rules_for(context, write=write)
        facts = gather(raw, context.cwd, rules, write=write)
        if facts.links > 1:  # maybe a hard link to a secret file under an innocent name
            rules = dataclasses.replace(
                rules, secret_ids=secret_file_ids(rules.user_home, rules.hermes_home)
            )
        verdict = decide(access, facts, rules)
        if verdict.action == "allow":
            return verdict.path
        if verdict.action == "deny":
            raise PathRefused(f"not done: {tool} {verdict.reason}.")
        request = ApprovalRequest(
            f"{tool} {verdict.path}", "files", (verdict.reason,), PathGrant(tool, str(verdict.path))
        )
        if context.approvals.ask(request):
            return verdict.path
        if verdict.runs_later:
            advice = "Tell the user what the file should say; they can make the change themselves."
        else:
            advice = (
                "Work inside the working directory, or ask the user to add the folder to "
                "files.allowed_roots or to share what you need."
            )
        raise PathRefused(
            f"not done: {tool} {verdict.reason}, and the user did not approve it. {advice}"
        )

    def read_file(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        try:
            path = checked("read_file", "read", str(args["path"]), context)
            text = _read(context, path)
        except PathRefused as exc:
            return {"success": False, "denied": True, "error": str(exc)}
        except (OSError, ValueError) as exc:
            return {"success": False, "error": str(exc)}
        lines = text.splitlines()
        offset = max(1, int(args.get("offset") or 1))
        limit = max(1, int(args.get("limit") or DEFAULT_LIMIT))
        # Stop at whole lines before the result cap, so paging by offset loses nothing.
        budget = limits.max_chars - 1_000
        shown: list[str] = []
        used = 0
        for n, line in enumerate(lines[offset - 1 : offset - 1 + limit], offset):
            row = f"{n:>6}|{line[:MAX_LINE]}{' [line cut]' if len(line) > MAX_LINE else ''}"
            used += len(row) + 2 + row.count("\\") + row.count('"')
            if shown and used > budget:
                break
            shown.append(row)
        result: dict[str, Any] = {
            "success": True,
            "path": str(path),
            "content": "\n".join(shown),
            "total_lines": len(lines),
        }
        last = offset + len(shown) - 1
        if last < len(lines):
            cut = " (stopped at tools.max_result_chars)" if len(shown) < limit else ""
            result["note"] = (
                f"showing lines {offset}-{last} of {len(lines)}{cut}; "
                f"read on with offset={last + 1}"
            )
        return result

    def hooks_checked(
        tool: str, path: Path, before: str | None, after: str, context: ToolContext
    ) -> None:
        """The working directory's package.json: a change to its commit-hook keys (run at the
        user's next commit, outside the sandbox) asks, as the hook runners' own files do."""
        from hermes_tui.core.tools import package_hooks

        if path != Path(os.path.realpath(context.workdir)) / package_hooks.NAME:
            return
        change = package_hooks.hook_change(before, after)
        if change is None:
            return
        reason = f"changes {path}'s {change}, which runs later outside the sandbox: " + (
            package_hooks.WHY
        )
        request = ApprovalRequest(f"{tool} {path}", "files", (reason,), PathGrant(tool, str(path)))
        if not context.approvals.ask(request):
            raise PathRefused(
                f"not done: {tool} {reason}, and the user did not approve it. Tell the user "
                "what the file should say; they can make the change themselves."
            )

    def write_file(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        content = str(args.get("content", ""))
        try:
            path = checked("write_file", "write", str(args["path"]), context)
            existed = path.exists()
            try:
                before = _read(context, path) if existed else ""
            except (OSError, ValueError):
                before = ""  # binary or unreadable: the diff shows the new text whole
            hooks_checked("write_file", path, before if existed else None, content, context)
        except PathRefused as exc:
            return {"success": False, "denied": True, "error": str(exc)}
        try:
            _write(context, path, content)
        except OSError as exc:
            return {"success": False, "error": f"cannot write {path}: {exc.strerror or exc}"}
        verb = "overwrote" if existed else "created"
        return {
            "success": True,
            "path": str(path),
            "message": f"{verb} {path} ({len(content):,} chars)",
            DISPLAY_KEY: {"diff": edit_diff(path, before, content, context.workdir)},
        }

    def patch(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

        try:
            path = checked("patch", "write", str(args["path"]), context)
            text = _read(context, path)
            replaced = find_and_replace(
                text,
                str(args["old_string"]),
                str(args.get("new_string", "")),
                replace_all=bool(args.get("replace_all")),
            )
            hooks_checked("patch", path, text, replaced.content, context)
            _write(context, path, replaced.content)
        except PathRefused as exc:
            return {"success": False, "denied": True, "error": str(exc)}
        except FuzzyMatchError as exc:
            return {"success": False, "error": str(exc)}
        except (OSError, ValueError) as exc:
            return {"success": False, "error": str(exc)}
        return {
            "success": True,
            "path": str(path),
            DISPLAY_KEY: {"diff": edit_diff(path, text, replaced.content, context.workdir)},
            "match_strategy": replaced.strategy,
            "message": f"patched {path} ({replaced.count} replacement(s), {replaced.strategy} match)",
        }

    def search_files(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        try:
            root = checked("search_files", "read", str(args.get("path") or "."), context)
        except PathRefused as exc:
            return {"success": False, "denied": True, "error": str(exc)}
        glob = str(args.get("glob") or "*")
        limit = min(int(args.get("max_results") or 50), 500)
        from hermes_tui.core.tools.bounded_regex import BoundedSearch, SearchStopped

        try:
            pattern = BoundedSearch(str(args["pattern"]), context.cancel)
        except ValueError as exc:
            return {"success": False, "error": str(exc)}
        if not root.exists():
            return {"success": False, "error": f"{root} does not exist"}
        matches: list[str] = []
        # Files found under an allowed (or approved) root are judged one by one, without
        # asking: a secret file or a symlink out of the root is skipped and counted.
        from hermes_tui.core.tools.path_policy import decide, gather, secret_file_ids

        file_rules = rules_for(context, (root,))
        skipped: list[str] = []

        def texts() -> Iterator[tuple[Path | str, str]]:
            nonlocal file_rules
            for file in [root] if root.is_file() else _walk(root):
                if not fnmatch.fnmatch(file.name, glob):
                    continue
                if file != root:
                    facts = gather(str(file), context.cwd, file_rules)
                    if facts.links > 1:
                        file_rules = dataclasses.replace(
                            file_rules,
                            secret_ids=secret_file_ids(
                                file_rules.user_home, file_rules.hermes_home
                            ),
                        )
                    if decide("read", facts, file_rules).action != "allow":
                        skipped.append(str(file.relative_to(root)))
                        continue
                try:
                    text = _read_text(file)
                except (OSError, ValueError):
                    continue
                yield (file.relative_to(root) if file != root else file.name), text

        with pattern:
            try:
                for shown, text, numbers in pattern.search(texts()):
                    lines = text.splitlines() if numbers else []
                    for number in numbers:
                        matches.append(f"{shown}:{number}: {lines[number - 1].strip()[:200]}")
                        if len(matches) >= limit:
                            return _found(matches, True, skipped)
            except SearchStopped as exc:
                return {"success": False, "error": str(exc), "matches": matches}
        return _found(matches, False, skipped)

    return [
        Tool(**schemas.READ_FILE, handler=read_file, preview=_lines_preview),
        Tool(**schemas.WRITE_FILE, handler=write_file),
        Tool(**schemas.PATCH, handler=patch),
        Tool(**schemas.SEARCH_FILES, handler=search_files, preview=_matches_preview),
    ]


def _lines_preview(result: dict[str, Any]) -> str:
    return f"{result.get('total_lines', 0)} lines"


def _matches_preview(result: dict[str, Any]) -> str:
    return f"{len(result.get('matches', []))} matches"


def _found(matches: list[str], truncated: bool, skipped: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {"success": True, "matches": matches, "truncated": truncated}
    if skipped:
        shown = ", ".join(skipped[:10]) + (
            f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""
        )
        result["skipped"] = (
            f"not searched: {shown} (secret files, or links out of the folder); read_file asks "
            "the user for one if you need it"
        )
    return result


def _walk(root: Path):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(directory) / name
            if path.is_file():  # not pipes, sockets or devices: reading one can block forever
                yield path
