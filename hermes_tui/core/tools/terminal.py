"""The terminal toolset: run a shell command in a working directory that persists across calls.

Three steps per call: the shell policy (shell_policy/) decides allow / ask / deny with a
reason; "ask" goes to the approver (the TUI's dialog, which can also allow a prefix for the
session; the CLI refuses unless --yolo); then the command runs with a scrubbed environment,
inside bubblewrap when the sandbox is on (sandbox.py). Output is captured through a temp
file (no pipe can fill up and stall the command) and the exit code returned; the registry
caps what the model sees.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.registry import CommandApproval, Tool, ToolContext
from hermes_tui.core.tools.sandbox import (
    SandboxMode,
    SandboxSpec,
    SandboxStatus,
    bwrap_argv,
    probe,
    scrubbed_env,
)

# A memory bound on what one command may return; what the model sees is capped centrally at
# tools.max_result_chars (results.py), with the whole output saved for paging and the UI.
MAX_OUTPUT = 2_000_000
DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600


@dataclass(frozen=True)
class TerminalSettings:
    """terminal.* from config, plus where the hermes home is (its files stay read-only)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: SandboxMode = "auto"
    network: bool = True
    env_passthrough: tuple[str, ...] = ()
    hermes_home: Path | None = None
    environ: Mapping[str, str] | None = field(default=None, repr=False)  # None: os.environ


class Sandbox:
    """Probes bubblewrap once, on the first command, and wraps commands while active."""

    def __init__(self, settings: TerminalSettings) -> None:
        self.settings = settings
        self._status: SandboxStatus | None = None

    @property
    def status(self) -> SandboxStatus:
        if self._status is None:
            self._status = probe(self.settings.sandbox)
        return self._status

    def argv(self, argv: list[str], context: ToolContext) -> list[str]:
        status = self.status
        if not status.active or status.bwrap is None:
            return argv
        spec = SandboxSpec(
            bwrap=status.bwrap,
            workdir=context.workdir,
            cwd=context.cwd,
            hermes_home=self.settings.hermes_home or Path("/nonexistent"),
            user_home=Path.home(),
            network=self.settings.network,
        )
        return bwrap_argv(spec, argv, exists=os.path.lexists)


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    head, tail = MAX_OUTPUT // 3, MAX_OUTPUT * 2 // 3
    omitted = len(text) - head - tail
    return f"{text[:head]}\n[... {omitted:,} characters of output left out ...]\n{text[-tail:]}"


def run_command(
    command: str,
    context: ToolContext,
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
    wrap: Any = None,
) -> dict[str, Any]:
    """Run `command` with bash in context.cwd; `wrap` turns the argv into a sandboxed one."""
    with tempfile.TemporaryDirectory(prefix="hermes-term-") as scratch:
        out_path = Path(scratch) / "out"
        cwd_path = Path(scratch) / "cwd"
        script = (
            f"{command}\n__hermes_rc=$?\npwd > {shlex.quote(str(cwd_path))}\nexit $__hermes_rc\n"
        )
        with out_path.open("wb") as out:
            argv = ["bash", "-c", script]
            process = subprocess.Popen(
                wrap(argv, context) if wrap is not None else argv,
                cwd=context.cwd,
                env=dict(env) if env is not None else None,
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


def _refusal(text: str) -> dict[str, Any]:
    return {"success": False, "denied": True, "error": text}


def _approved(command: str, verdict: Any, context: ToolContext) -> bool:
    if context.command_approver is None:
        return bool(context.approver(command, verdict.reason))
    decision = context.command_approver(CommandApproval(command, verdict.reason, verdict.prefixes))
    if decision == "session":
        context.command_grants.update(verdict.grants)
    return decision in ("once", "session")


def make_terminal_tools(settings: TerminalSettings | None = None) -> list[Tool]:
    settings = settings or TerminalSettings()
    sandbox = Sandbox(settings)

    def terminal(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        from hermes_tui.core.tools.shell_policy import PolicyConfig, decide

        command = str(args["command"])
        timeout = min(float(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
        verdict = decide(
            command,
            context.cwd,
            context.workdir,
            Path.home(),
            PolicyConfig(settings.allow, settings.deny),
            tuple(context.command_grants),
        )
        if verdict.action == "deny":
            return _refusal(
                f"not run: {verdict.reason}, so it is never run. Do it another way, or ask the "
                "user to run it themselves."
            )
        if verdict.action == "ask" and not _approved(command, verdict, context):
            return _refusal(
                f"not run: this command needs approval ({verdict.reason}) and it was not "
                "approved. Find a safer way, or ask the user to run it themselves."
            )
        if settings.sandbox == "on" and not sandbox.status.active:
            return {
                "success": False,
                "error": f"not run: terminal.sandbox is on but the sandbox is unavailable: "
                f"{sandbox.status.detail}. Tell the user; they can set terminal.sandbox: auto.",
            }
        environ = os.environ if settings.environ is None else settings.environ
        env = scrubbed_env(environ, settings.env_passthrough)
        from hermes_tui.core.tools import gitguard

        before = gitguard.snapshot(context.workdir)
        result = run_command(command, context, timeout, env=env, wrap=sandbox.argv)
        undone = gitguard.restore(before, context.workdir)
        if undone:
            result["success"] = False
            result["error"] = (
                "the command " + "; and ".join(undone) + ". Do not change what git runs; "
                "ask the user to do it themselves."
            )
        return result

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
