"""Commands that change the conversation: /retry /undo /title /clear /queue /background."""

from __future__ import annotations

import threading
from typing import Any

from hermes_tui.core import events as ev
from hermes_tui.ui.commands import state

BUSY = "A turn is running: wait for it or press esc to cancel it"


async def send(app: Any, text: str) -> None:
    """Send `text` as if typed in the message box (its @-mentions attached)."""
    from hermes_tui.ui.outgoing import attach_mentions
    from hermes_tui.ui.widgets.chat import ChatView

    shown, sent = text, attach_mentions(app, text)
    if sent is None:
        return
    await app.query_one(ChatView).add_user(shown)
    app.turn.start(sent, title=shown)


async def _redraw(app: Any) -> None:
    """The chat drawn again from the conversation as the core now holds it."""
    from hermes_tui.ui.widgets.chat import ChatView

    await app.action_new_session_view()
    await app.query_one(ChatView).load_history(app.session.transcript())


def _drop_last_exchange(app: Any) -> str | None:
    """Undo the last exchange in the core; its user text, or None (and why, shown)."""
    from hermes_tui.core.sessions import SessionError

    if app.turn_running:
        app.notify(BUSY, severity="warning")
        return None
    if app.session is None:
        app.notify("Nothing to undo yet: send a message first", severity="warning")
        return None
    try:
        return app.session.undo_last_exchange()
    except SessionError as exc:
        app.notify(str(exc), severity="warning")
        return None


async def retry(app: Any, argument: str) -> None:
    """/retry: your last message again, its reply (and tool calls) dropped first."""
    text = _drop_last_exchange(app)
    if text is None:
        return
    await _redraw(app)
    from hermes_tui.ui.widgets.chat import ChatView

    await app.query_one(ChatView).add_user(text)
    app.turn.start(text)


async def undo(app: Any, argument: str) -> None:
    """/undo: the last message and its reply leave the conversation (files stay as they are);
    the message goes back in the box, to edit and send again (a draft there is kept in ↑)."""
    from hermes_tui.core.mentions import without_attachments
    from hermes_tui.ui.widgets.input import ChatInput

    text = _drop_last_exchange(app)
    if text is None:
        return
    await _redraw(app)
    box = app.query_one(ChatInput)
    box.put_back(without_attachments(text))  # the @-mentions attach their files again on send
    box.focus()
    app.notify(
        "Removed your last message and its reply from the conversation; the message is back "
        "in the box to edit and send. Files the agent changed and commands it ran are not "
        "undone.",
        timeout=8,
    )


async def title(app: Any, argument: str) -> None:
    """/title NAME: the session's name, in the title bar and the sessions list."""
    from hermes_tui.core.sessions import SessionError

    name = " ".join(argument.split())
    session = app.session
    if not name:
        current = app.runtime.sessions.get(session.id).title if session else ""
        app.notify(f"Title: {current}" if current else "Usage: /title NAME", timeout=6)
        return
    if session is None:
        state(app).title = name
        app.notify(f"The next conversation will be titled {name!r}")
        return
    try:
        app.runtime.sessions.rename(session.id, name)
    except SessionError as exc:
        app.notify(str(exc), severity="error")
        return
    app.title = f"hermes-tui — {name}"
    app.notify(f"Session titled {name!r}")


async def clear(app: Any, argument: str) -> None:
    """/clear: a new conversation on a clear screen (the old one stays in /sessions)."""
    await app.action_new_session()


async def queue(app: Any, argument: str) -> None:
    """/queue MESSAGE: sent when the running turn ends (at once when none runs)."""
    text = argument.strip()
    if not text:
        waiting = state(app).queued
        app.notify(f"{len(waiting)} message(s) queued" if waiting else "Usage: /queue MESSAGE")
        return
    if not app.turn_running:
        await send(app, text)
        return
    state(app).queued.append(text)
    count = len(state(app).queued)
    app.notify(f"Queued ({count} waiting): sent when this turn ends", timeout=4)


class _Collect:
    """A background task's sink: its answer is kept, tool calls counted, the rest dropped
    (its events must not draw into the conversation on screen)."""

    def __init__(self) -> None:
        self.tools = 0

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolCallStarted):
            self.tools += 1


async def background(app: Any, argument: str) -> None:
    """/background PROMPT: a separate conversation runs it on its own thread; its answer is
    announced (toast and chat) when it ends, and it stays in /sessions."""
    prompt = argument.strip()
    if not prompt:
        app.notify("Usage: /background PROMPT", severity="warning")
        return
    found = state(app)
    found.background += 1
    found.background_started += 1
    number = found.background_started

    def run() -> None:
        collect = _Collect()
        try:
            session = app.runtime.open_session(ask=app.turn.ask_human)
            session.agent.sink = collect
            app.runtime.sessions.update(session.id, title=f"[background] {prompt[:70]}")
            result = session.submit(prompt, threading.Event())
        except Exception as exc:  # shown, not lost with the thread
            app.call_from_thread(_announce, app, number, prompt, "", f"{type(exc).__name__}: {exc}")
            return
        error = result.error.user_message() if result.error is not None else ""
        detail = f"{session.id} · {collect.tools} tool call(s)"
        app.call_from_thread(_announce, app, number, prompt, result.text, error, detail)

    app.notify(f"Background task {number} started: {prompt[:60]}", timeout=4)
    app.run_worker(run, thread=True, group=f"background-{number}", exit_on_error=False)


async def _announce(
    app: Any, number: int, prompt: str, text: str, error: str, detail: str = ""
) -> None:
    from hermes_tui.ui.widgets.chat import ChatView

    state(app).background -= 1
    head = f"Background task {number} ({prompt[:60]})"
    if error:
        app.notify(f"{head} failed: {error}", severity="error", timeout=10)
        await app.query_one(ChatView).note(f"{head} failed: {error}", f"background task {number}")
        return
    app.notify(f"{head} finished: {text[:120]}", title="Background task", timeout=10)
    await app.query_one(ChatView).note(
        f"{head} · {detail}\n\n{text.strip()}", f"background task {number}"
    )
