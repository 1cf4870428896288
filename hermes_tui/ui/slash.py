"""Slash commands typed in the message box: each maps to an app action or a core call."""

from __future__ import annotations

from typing import Any

from hermes_tui.ui.widgets.input import SLASH_COMMANDS


async def run_slash(app: Any, text: str) -> None:
    """Run a slash command. A bug in one never ends the app: its traceback goes to
    logs/errors.log and a toast says so."""
    command = text.split(None, 1)[0] if text.strip() else text
    try:
        await _run_slash(app, text)
    except Exception as exc:  # any bug: shown in one line, kept in the log, the app goes on
        from hermes_tui.core.errors_log import log_exception

        runtime = app.runtime
        try:
            where = f"details in {log_exception(runtime.home, exc, command, _redact(runtime))}"
        except OSError as log_error:
            where = f"and the error log could not be written: {log_error}"
        app.notify(
            f"{command} failed: {type(exc).__name__}: {exc} ({where})", severity="error", timeout=12
        )


def _redact(runtime: Any):
    return runtime.result_limits().redactor.text


async def _run_slash(app: Any, text: str) -> None:
    from hermes_tui.ui.commands import custom, handlers

    command, *rest = text.split(None, 1)  # a line break after the name ends it too
    argument = rest[0].strip() if rest else ""
    handler = handlers().get(command)
    if handler is not None:
        await handler(app, argument)
        return
    if command not in SLASH_COMMANDS:
        if await custom.run(app, text):
            return
        if app.runtime.skills.get(command[1:]) is not None:
            await invoke_skill(app, command[1:], argument)
            return
        app.notify(
            f"unknown command {command}; /help lists them (a skill's name works too)",
            severity="warning",
        )
        return
    if command == "/quit":
        await app.action_quit()
    elif command == "/help":
        app.action_help()
    elif command == "/new":
        await app.action_new_session()
    elif command == "/sessions":
        app.action_sessions()
    elif command == "/resume":
        if argument:
            app.resume(argument)
        else:
            app.action_sessions()
    elif command in ("/memory", "/skills"):
        app.action_pane(command[1:])
    elif command == "/model":
        app.action_model(argument)
    elif command == "/mode":
        from hermes_tui.ui.modes import mode_command

        mode_command(app, argument)
    elif command == "/pending":
        from hermes_tui.ui.screens.modals import PendingScreen

        app.push_screen(PendingScreen(app.runtime))
    elif command == "/theme":
        if argument in app.available_themes:
            app.theme = argument
            app.notify(f"Theme {argument} (saved to config.yaml)")
        else:
            app.notify("themes: " + ", ".join(sorted(app.available_themes)), timeout=8)
    elif command == "/refine":
        refine(app, argument or None)
    elif command == "/curator":
        curate(app, dry_run=argument.startswith("dry"))
    elif command == "/compress":
        compress(app)
    elif command == "/export":
        export(app, argument)
    elif command == "/rewind":
        app.rewinder.open()
    elif command == "/mcp":
        from hermes_tui.ui.screens.mcp import McpScreen

        # The screen already open reloads; else a new one reloads once it is composed.
        shown = next((s for s in app.screen_stack if isinstance(s, McpScreen)), None)
        if shown is None:
            app.push_screen(McpScreen(app.runtime, reload_on_open=argument == "reload"))
        elif argument == "reload":
            shown.action_reload()


async def run_shell(app: Any, text: str) -> None:
    """`!command`: run it through the terminal tool as the agent's commands run (the same
    sandbox, approval mode and questions), show the call with its output, and send that output
    with the next message as context."""
    from hermes_tui.ui.widgets.chat import ChatView

    command = text[1:].strip()
    if not command:
        app.notify("Type a shell command after !, e.g. !git status", severity="warning")
        return
    if app.turn_running:
        app.notify("A turn is running: wait for it or press esc to cancel it", severity="warning")
        return
    await app.query_one(ChatView).add_user(f"!{command}")
    app.turn.start(command, shell=True)


async def invoke_skill(app: Any, name: str, argument: str) -> None:
    """`/<skill-name> [request]`: a turn that starts with the skill loaded, as in Hermes."""
    from hermes_tui.core.skills.library import SkillError
    from hermes_tui.ui.widgets.chat import ChatView

    if app.turn_running:
        app.notify("A turn is running: wait for it or press esc to cancel it", severity="warning")
        return
    session_id = app.session.id if app.session is not None else None
    if app.runtime.config.skills.inline_shell:
        invoke_with_inline_shell(app, name, argument, session_id)
        return
    try:
        text = app.runtime.skill_invocation(name, argument, session_id)
    except SkillError as exc:
        app.notify(str(exc), severity="error")
        return
    shown = f"/{name} {argument}".rstrip()
    await app.query_one(ChatView).add_user(shown)
    app.turn_running = True
    app.turn.start(text, title=shown)


def invoke_with_inline_shell(app: Any, name: str, argument: str, session_id: str | None) -> None:
    """skills.inline_shell: the skill's snippets run first, on a worker (a command may wait for
    the user's approval), through the conversation's terminal tool; then the turn starts."""
    from hermes_tui.core.skills.library import SkillError
    from hermes_tui.ui.commands.custom import command_tools

    tools = command_tools(app)
    app.turn_running = True  # nothing else starts while the snippets run

    def work() -> None:
        try:
            text = app.runtime.skill_invocation(name, argument, session_id, tools)
        except SkillError as exc:
            app.call_from_thread(_not_invoked, app, str(exc))
            return
        app.call_from_thread(_start_invoked, app, f"/{name} {argument}".rstrip(), text)

    _worker(app, work, "skill-inline-shell")


def _not_invoked(app: Any, error: str) -> None:
    app.turn_running = False
    app.notify(error, severity="error")


async def _start_invoked(app: Any, shown: str, text: str) -> None:
    from hermes_tui.ui.widgets.chat import ChatView

    await app.query_one(ChatView).add_user(shown)
    app.turn.start(text, title=shown)


def _worker(app: Any, function, name: str) -> None:
    app.run_worker(function, thread=True, exclusive=True, group=name, exit_on_error=False)


def refine(app: Any, focus: str | None) -> None:
    session = app.session
    if session is None:
        app.notify("Nothing to review yet: send a message first", severity="warning")
        return

    def run() -> None:
        agent = session.agent
        app.runtime.reviewer().run(
            agent.system_prompt,
            list(agent.history),
            session.id,
            agent.context.cwd,
            "combined",
            focus,
            taint=agent.taint.export(),
        )

    _worker(app, run, "refine")


def curate(app: Any, dry_run: bool) -> None:
    def run() -> None:
        report = app.runtime.run_curator(dry_run=dry_run)
        app.call_from_thread(
            app.notify, f"Curator: {report.summary()} — report in {report.report}", timeout=10
        )

    _worker(app, run, "curator")


def compress(app: Any) -> None:
    session = app.session
    if session is None:
        app.notify("Nothing to compress yet", severity="warning")
        return

    def run() -> None:
        done = session.compress_now()
        text = (
            f"Compressed; continuing in session {session.id}" if done else "Too short to compress"
        )
        app.call_from_thread(app.notify, text)

    _worker(app, run, "compress")


def export(app: Any, argument: str) -> None:
    """The session as Markdown, to FILE or hermes-<session id>.md in the working directory."""
    from pathlib import Path

    from hermes_tui.core.export import session_markdown
    from hermes_tui.core.storage import atomic_write_text

    session = app.session
    if session is None:
        app.notify("Nothing to export yet: send a message first", severity="warning")
        return
    store = app.runtime.sessions
    info = store.get(session.id)
    messages = [stored.message for stored in store.messages(info.id)]
    text = app.runtime.redactor.text(session_markdown(info, messages))  # no secret leaves in it
    path = Path(argument).expanduser() if argument else Path.cwd() / f"hermes-{info.id}.md"
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        app.notify(f"Could not write {path}: {exc}", severity="error")
        return
    app.notify(f"Exported the session to {path}")


def palette_commands(app: Any, panes: dict[str, str]):
    """The command palette's own entries: show each pane, and every slash command that needs
    no argument."""
    from textual.app import SystemCommand

    from hermes_tui.ui.widgets.input import SLASH_COMMANDS

    for pane, title in panes.items():
        yield SystemCommand(
            f"Show {title}", f"open the {title} pane", lambda p=pane: app.action_pane(p)
        )
    for name, help_text in SLASH_COMMANDS.items():
        if name in ("/resume", "/theme", "/queue", "/background"):  # need an argument
            continue

        async def invoke(command: str = name) -> None:
            await run_slash(app, command)

        yield SystemCommand(name, help_text, invoke)
