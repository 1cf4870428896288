"""The files toolset: read with line numbers, write, fuzzy patch, and search by regex and glob.

Relative paths are resolved against the conversation's working directory (the one the
terminal tool keeps), so `cd` in the terminal and a later read_file agree.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Any

from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace
from hermes_tui.core.storage import atomic_write_text
from hermes_tui.core.tools.registry import Tool, ToolContext

DEFAULT_LIMIT = 500
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


def _path(context: ToolContext, raw: str) -> Path:
    path = Path(os.path.expanduser(raw))
    return path if path.is_absolute() else context.cwd / path


def _read_text(path: Path) -> str:
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; use search_files or terminal `ls`")
    data = path.read_bytes()[:MAX_READ_BYTES]
    if b"\x00" in data[:8192]:
        raise ValueError(f"{path} looks like a binary file")
    return data.decode("utf-8", errors="replace")


def make_file_tools() -> list[Tool]:
    def read_file(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        path = _path(context, str(args["path"]))
        try:
            text = _read_text(path)
        except (OSError, ValueError) as exc:
            return {"success": False, "error": str(exc)}
        lines = text.splitlines()
        offset = max(1, int(args.get("offset") or 1))
        limit = max(1, int(args.get("limit") or DEFAULT_LIMIT))
        chosen = lines[offset - 1 : offset - 1 + limit]
        numbered = "\n".join(
            f"{n:>6}|{line[:MAX_LINE]}{' [line cut]' if len(line) > MAX_LINE else ''}"
            for n, line in enumerate(chosen, offset)
        )
        result: dict[str, Any] = {
            "success": True,
            "path": str(path),
            "content": numbered,
            "total_lines": len(lines),
        }
        if offset - 1 + limit < len(lines):
            result["note"] = (
                f"showing lines {offset}-{offset + len(chosen) - 1} of {len(lines)}; use offset to read on"
            )
        return result

    def write_file(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        path = _path(context, str(args["path"]))
        content = str(args.get("content", ""))
        try:
            existed = path.exists()
            atomic_write_text(path, content)
        except OSError as exc:
            return {"success": False, "error": f"cannot write {path}: {exc.strerror or exc}"}
        verb = "overwrote" if existed else "created"
        return {
            "success": True,
            "path": str(path),
            "message": f"{verb} {path} ({len(content):,} chars)",
        }

    def patch(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        path = _path(context, str(args["path"]))
        try:
            text = _read_text(path)
            replaced = find_and_replace(
                text,
                str(args["old_string"]),
                str(args.get("new_string", "")),
                replace_all=bool(args.get("replace_all")),
            )
            atomic_write_text(path, replaced.content)
        except FuzzyMatchError as exc:
            return {"success": False, "error": str(exc)}
        except (OSError, ValueError) as exc:
            return {"success": False, "error": str(exc)}
        return {
            "success": True,
            "path": str(path),
            "match_strategy": replaced.strategy,
            "message": f"patched {path} ({replaced.count} replacement(s), {replaced.strategy} match)",
        }

    def search_files(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        root = _path(context, str(args.get("path") or "."))
        glob = str(args.get("glob") or "*")
        limit = min(int(args.get("max_results") or 50), 500)
        try:
            pattern = re.compile(str(args["pattern"]))
        except re.error as exc:
            return {"success": False, "error": f"pattern is not a valid regular expression: {exc}"}
        if not root.exists():
            return {"success": False, "error": f"{root} does not exist"}
        matches: list[str] = []
        files = [root] if root.is_file() else _walk(root)
        for file in files:
            if not fnmatch.fnmatch(file.name, glob):
                continue
            try:
                text = _read_text(file)
            except (OSError, ValueError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if pattern.search(line):
                    shown = file.relative_to(root) if file != root else file.name
                    matches.append(f"{shown}:{number}: {line.strip()[:200]}")
                    if len(matches) >= limit:
                        return {"success": True, "matches": matches, "truncated": True}
        return {"success": True, "matches": matches, "truncated": False}

    path_prop = {
        "type": "string",
        "minLength": 1,
        "description": "File path, relative to the working directory or absolute.",
    }
    return [
        Tool(
            "read_file",
            "files",
            "Read a text file with line numbers (paged by offset and limit).",
            {
                "type": "object",
                "properties": {
                    "path": path_prop,
                    "offset": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "First line to show (1-based).",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": f"Lines to show (default {DEFAULT_LIMIT}).",
                    },
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            read_file,
            read_only=True,
            preview=lambda r: f"{r.get('total_lines', 0)} lines",
        ),
        Tool(
            "write_file",
            "files",
            "Create or overwrite a file with the given content.",
            {
                "type": "object",
                "properties": {"path": path_prop, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            write_file,
        ),
        Tool(
            "patch",
            "files",
            "Replace text in a file. old_string must identify one place (or set replace_all); small "
            "whitespace or quoting differences are tolerated.",
            {
                "type": "object",
                "properties": {
                    "path": path_prop,
                    "old_string": {"type": "string", "minLength": 1},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean"},
                },
                "required": ["path", "old_string", "new_string"],
                "additionalProperties": False,
            },
            patch,
        ),
        Tool(
            "search_files",
            "files",
            "Search file contents by regular expression, optionally filtered by a filename glob.",
            {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "minLength": 1},
                    "path": path_prop,
                    "glob": {"type": "string", "description": "Filename pattern such as *.py."},
                    "max_results": {"type": "integer", "minimum": 1},
                },
                "required": ["pattern"],
                "additionalProperties": False,
            },
            search_files,
            read_only=True,
            preview=lambda r: f"{len(r.get('matches', []))} matches",
        ),
    ]


def _walk(root: Path):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            yield Path(directory) / name
