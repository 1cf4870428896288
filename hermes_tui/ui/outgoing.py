"""What the message box sends: the text with its @-mentioned files attached, or held back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_tui.ui.widgets.input import ChatInput


def workdir(app: Any) -> tuple[Path, Path]:
    """The conversation's working directory and current directory (where `@` looks)."""
    session = app.turn.session
    if session is not None:
        context = session.agent.context
        return Path(context.workdir), Path(context.cwd)
    if app.runtime.is_demo:
        folder = app.runtime.user_home / "demo"
        return folder, folder
    return Path.cwd(), Path.cwd()


def own_homes(app: Any) -> tuple[Path, ...]:
    """The app's own homes (the demo's, and the user's it sits in): never offered by `@`."""
    return (app.runtime.home, app.runtime.user_home)


def attach_mentions(app: Any, text: str) -> str | None:
    """The message with its @-mentioned files attached; None (and the text back in the box)
    when the files tools' path policy refused one: the user decides what to send."""
    from hermes_tui.core.mentions import MENTION, attach
    from hermes_tui.core.tools.path_policy import resolve_rules

    if not MENTION.search(text):
        return text
    folder, cwd = workdir(app)
    rules = resolve_rules(
        folder, allowed_roots=app.runtime.config.files.allowed_roots, hermes_home=app.runtime.home
    )
    result = attach(text, rules, cwd, app.runtime.redactor.text)
    if result.blocked:
        box = app.query_one(ChatInput)
        box.text = text
        box.move_cursor(box.document.end)
        app.notify(
            "\n".join(result.blocked) + "\nNot sent: remove the mention, or share what is needed.",
            title="Mention refused",
            severity="error",
            timeout=10,
        )
        return None
    for note in result.refused:
        app.notify(note, severity="warning", timeout=6)
    if result.files:
        app.notify("Attached " + ", ".join(result.files), timeout=4)
    return result.text


def past_messages(app: Any, sessions: int = 30, longest: int = 4000) -> list[str]:
    """What the user sent in the latest sessions, oldest first, for ctrl+r in the box (a long
    message, a file attached to it, is left out: it would fill the box)."""
    store = app.runtime.sessions
    texts: list[str] = []
    for info in reversed(store.list(sessions)):
        for stored in store.messages(info.id):
            message = stored.message
            if message.role == "user" and 0 < len(message.content) <= longest:
                texts.append(message.content)
    return texts
