"""The terminal toolset: run a shell command in a working directory that persists across calls.

Output is captured through a temp file (no pipe can fill up and stall the command) and the
exit code returned; the registry caps what the model sees. Commands that can do lasting damage
are passed to the approver first (the TUI asks the user; the CLI refuses unless --yolo).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.registry import Tool, ToolContext

# A memory bound on what one command may return; what the model sees is capped centrally at
# tools.max_result_chars (results.py), with the whole output saved for paging and the UI.
MAX_OUTPUT = 2_000_000
DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600

DANGEROUS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), reason)
    for pattern, reason in (
        (r"(?:^|[;&|]\s*|\s)sudo\b", "runs a command as root (sudo)"),
        (r"\bmkfs(?:\.\w+)?\b", "formats a filesystem (mkfs)"),
        (r"(?:^|[;&|]\s*)dd\b[^\n]*\bof=", "writes raw bytes with dd"),
        (
            r"\bchmod\s+(?:-\w*R\w*\s+)+0?777\b|\bchmod\s+0?777\s+-\w*R",
            "makes a tree world-writable (chmod -R 777)",
        ),
        (
            r"\bgit\s+push\b[^\n;&|]*(?:--force(?!-with-lease)\b|\s-\w*f\w*\b|\s\+\S+)",
            "force-pushes over remote history",
        ),
        (
            r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b",
            "pipes a download into a shell",
        ),
        (r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}", "a fork bomb"),
    )
)


def _recursive_rm_outside(command: str, cwd: Path, workdir: Path) -> str | None:
    for segment in re.split(r"[;&|]+|\n", command):
        try:
            words = shlex.split(segment)
        except ValueError:
            words = segment.split()
        if not words or os.path.basename(words[0]) != "rm":
            continue
        flags = [w for w in words[1:] if w.startswith("-")]
        if not any(
            f == "--recursive" or (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags
        ):
            continue
        root = workdir.resolve()
        for target in (w for w in words[1:] if not w.startswith("-")):
            expanded = Path(os.path.expanduser(os.path.expandvars(target)))
            resolved = (
                (cwd / expanded).resolve() if not expanded.is_absolute() else expanded.resolve()
            )
            if resolved == root or root not in resolved.parents:
                return f"recursively deletes {target}, outside the working directory {workdir}"
    return None


def danger(command: str, cwd: Path, workdir: Path) -> str | None:
    """Why `command` needs approval, or None."""
    for pattern, reason in DANGEROUS:
        if pattern.search(command):
            return reason
    return _recursive_rm_outside(command, cwd, workdir)


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    head, tail = MAX_OUTPUT // 3, MAX_OUTPUT * 2 // 3
    omitted = len(text) - head - tail
    return f"{text[:head]}\n[... {omitted:,} characters of output left out ...]\n{text[-tail:]}"


def run_command(command: str, context: ToolContext, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hermes-term-") as scratch:
        out_path = Path(scratch) / "out"
        cwd_path = Path(scratch) / "cwd"
        script = (
            f"{command}\n__hermes_rc=$?\npwd > {shlex.quote(str(cwd_path))}\nexit $__hermes_rc\n"
        )
        with out_path.open("wb") as out:
            process = subprocess.Popen(
                ["bash", "-c", script],
                cwd=context.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            deadline = time.monotonic() + timeout
            stopped = ""
            while process.poll() is None:
                if context.cancel.is_set():
                    stopped = "cancelled by the user"
                elif time.monotonic() > deadline:
                    stopped = f"timed out after {timeout:g}s"
                if stopped:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                    break
                time.sleep(0.02)
        output = out_path.read_bytes().decode("utf-8", errors="replace")
        if cwd_path.exists():
            new_cwd = Path(cwd_path.read_text(encoding="utf-8").strip())
            if new_cwd.is_dir():
                context.cwd = new_cwd
    result: dict[str, Any] = {
        "success": not stopped and process.returncode == 0,
        "exit_code": process.returncode,
        "output": _cap(output),
        "cwd": str(context.cwd),
    }
    if stopped:
        result["error"] = f"command {stopped}; output so far is included"
    elif process.returncode != 0:
        result["error"] = f"command exited with status {process.returncode}"
    return result


def make_terminal_tools() -> list[Tool]:
    def terminal(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        command = str(args["command"])
        timeout = min(float(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
        reason = danger(command, context.cwd, context.workdir)
        if reason and not context.approver(command, reason):
            return {
                "success": False,
                "denied": True,
                "error": f"not run: the command {reason}, and it was not approved. Find a safer way "
                "or ask the user to run it themselves.",
            }
        return run_command(command, context, timeout)

    def preview(result: dict[str, Any]) -> str:
        lines = len(result.get("output", "").splitlines())
        return f"exit {result.get('exit_code')} · {lines:,} line{'' if lines == 1 else 's'}"

    schema = {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "minLength": 1,
                "description": "A bash command. The working directory persists between calls.",
            },
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": f"Seconds before the command is killed (default {DEFAULT_TIMEOUT}).",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    return [
        Tool(
            "terminal",
            "terminal",
            "Run a shell command and get its output and exit code.",
            schema,
            terminal,
            preview=preview,
        )
    ]
