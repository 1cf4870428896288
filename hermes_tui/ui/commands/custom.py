"""The user's commands in the app: prompt files, Hermes' quick_commands, and /init."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from hermes_tui.core.custom_commands import CustomCommand, CustomCommands
from hermes_tui.ui.commands import state


def load(app: Any) -> CustomCommands:
    """The custom commands for the app's working directory and home (read again each time: a
    few files; a new one works without a restart)."""
    from hermes_tui.core.custom_commands import load_custom_commands
    from hermes_tui.ui.commands import handlers
    from hermes_tui.ui.outgoing import workdir
    from hermes_tui.ui.widgets.input import SLASH_COMMANDS

    reserved = [*SLASH_COMMANDS, *handlers()]
    skills = app.runtime.skills
    return load_custom_commands(
        workdir(app)[0],
        app.runtime.home,
        app.runtime.config.hermes_sections,
        reserved,
        is_skill=lambda name: skills.get(name) is not None,
    )


def offer(app: Any) -> None:
    """Tab completion and hints learn the custom commands; problems are said once."""
    from hermes_tui.ui.widgets.input import SLASH_COMMANDS, ChatInput

    found = load(app)
    box = app.query_one(ChatInput)
    box.commands = {
        **SLASH_COMMANDS,
        **{f"/{name}": c.help_text() for name, c in sorted(found.commands.items())},
    }
    for problem in found.problems:
        app.notify(f"Custom command: {problem}", severity="warning", timeout=8)


async def run(app: Any, text: str) -> bool:
    """Run `text` if it names a custom command; False if it does not."""
    from hermes_tui.core.custom_commands import AliasLoop, expand, resolve
    from hermes_tui.ui.commands.conversation import BUSY, send

    try:
        found = resolve(load(app), text)
    except AliasLoop as exc:
        app.notify(str(exc), severity="error")
        return True
    if found is None:
        return False
    command, arguments = found
    if command.kind == "alias":  # to a built-in command or a skill
        from hermes_tui.ui.slash import run_slash

        await run_slash(app, f"{command.body} {arguments}".strip())
    elif app.turn_running:
        app.notify(BUSY, severity="warning")
    elif command.kind == "prompt":
        await send(app, expand(command, arguments))
    else:
        run_shell(app, command)
    return True


def command_tools(app: Any) -> tuple[Any, Any]:
    """(tool registry, tool context) for a command the user runs: the conversation's (a copy of
    its context, so a `cd` stays there), or a new conversation's before the first message."""
    from hermes_tui.core.tools.approvals import Approvals
    from hermes_tui.core.tools.registry import ToolContext

    session = app.session
    if session is not None:
        context = dataclasses.replace(session.agent.context, cancel=threading.Event())
        return session.agent.registry, context
    from hermes_tui.ui.outgoing import workdir

    folder = workdir(app)[0]
    context = ToolContext(
        origin="user",
        cwd=folder,
        workdir=folder,
        approvals=Approvals(app.turn.ask_human),
        approval_mode=app.runtime.approval_mode(),
    )
    return app.runtime.tool_registry(), context


def run_shell(app: Any, command: CustomCommand) -> None:
    """A quick command of type exec: through the terminal tool (sandbox, policy, approvals, as
    the agent's commands), in the conversation's folder; its output is shown, not sent."""
    from hermes_tui.core.custom_commands import run_quick

    registry, context = command_tools(app)

    def work() -> None:
        run = run_quick(command, registry, context)
        app.call_from_thread(_show, app, f"/{command.name}", f"$ {command.body}", run.text)

    app.run_worker(work, thread=True, group="quick-command", exit_on_error=False)


async def _show(app: Any, name: str, head: str, output: str) -> None:
    from hermes_tui.ui.widgets.chat import ChatView

    await app.query_one(ChatView).note(f"{head}\n{output}", name)


async def init(app: Any, argument: str) -> None:
    """/init: a turn in which the agent explores the folder and answers with an AGENTS.md;
    when it ends, the answer is scanned and written (core/agents_init.py)."""
    from hermes_tui.core.agents_init import init_prompt
    from hermes_tui.ui.commands.conversation import BUSY
    from hermes_tui.ui.outgoing import workdir
    from hermes_tui.ui.widgets.chat import ChatView

    if app.turn_running:
        app.notify(BUSY, severity="warning")
        return
    folder = workdir(app)[0]
    await app.query_one(ChatView).add_user("/init")
    state(app).after_turn.append(lambda app: _write_agents_md(app, folder))
    app.turn.start(init_prompt(folder))


async def _write_agents_md(app: Any, folder: Any) -> None:
    from hermes_tui.core.agents_init import InitError, InitHeld, write_agents_md

    session = app.session
    history = session.agent.history if session else []
    replies = [m for m in history if m.role == "assistant" and m.content]
    reply = replies[-1].content if replies else ""
    gate = session.gate_file_write if session else None
    try:
        path = write_agents_md(folder, reply, app.runtime.scanner, gate)
    except (InitError, OSError) as exc:
        severity = "warning" if isinstance(exc, InitHeld) else "error"
        app.notify(f"/init: {exc}", severity=severity, timeout=12)
        return
    app.notify(f"Wrote {path}: the next conversation reads it (/new)", timeout=10)
