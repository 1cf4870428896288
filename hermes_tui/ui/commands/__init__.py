"""Slash commands beyond the first fifteen (ui/slash.py dispatches to them), and the app's state
they keep between turns.

`CommandState` lives on the app (`app.slash_state`, made on first use): messages queued for
after the turn, the mode /yolo returns to, the personality chosen for this run's
conversations, a title given before the conversation existed, work waiting for the turn's end
(/init). Three hooks: `offer_custom` at start (ui/switch.py), `session_adopted` when a
conversation opens and `after_turn` when a turn ends (ui/turn.py).
The commands' logic is in the core (Session.undo_last_exchange, core/custom_commands.py);
these functions read the user's intent and show the outcome.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

Handler = Callable[[Any, str], Awaitable[None]]


@dataclass
class CommandState:
    queued: deque[str] = field(default_factory=deque)  # /queue, oldest first
    mode_before_yolo: str | None = None  # the mode /yolo goes back to
    personality: str | None = None  # /personality's choice ("" for none) for new conversations
    title: str | None = None  # /title before the first message
    after_turn: list[Callable[[Any], Awaitable[None]]] = field(default_factory=list)
    show_reasoning: bool | None = None  # /reasoning show|hide (None: display.show_reasoning)
    background: int = 0  # /background tasks still running
    background_started: int = 0
    skill_names: set[str] = field(default_factory=set)  # as last looked at (/reload-skills)


def state(app: Any) -> CommandState:
    found = getattr(app, "slash_state", None)
    if found is None:
        found = app.slash_state = CommandState()
    return found


def handlers() -> dict[str, Handler]:
    from hermes_tui.ui.commands import conversation, custom, settings

    return {
        "/retry": conversation.retry,
        "/undo": conversation.undo,
        "/title": conversation.title,
        "/clear": conversation.clear,
        "/queue": conversation.queue,
        "/background": conversation.background,
        "/bg": conversation.background,  # Hermes' alias
        "/usage": settings.usage,
        "/insights": settings.insights,
        "/tools": settings.tools,
        "/reload-skills": settings.reload_skills,
        "/yolo": settings.yolo,
        "/reasoning": settings.reasoning,
        "/personality": settings.personality,
        "/init": custom.init,
    }


def offer_custom(app: Any) -> None:
    """The message box completes the user's custom commands too."""
    from hermes_tui.ui.commands.custom import offer

    offer(app)
    state(app).skill_names = {skill.name for skill in app.runtime.skills.scan()}


def session_adopted(app: Any, session: Any, new: bool) -> None:
    """A conversation opened (new or resumed): it gets what was chosen for this run."""
    from hermes_tui.ui.commands.settings import adopt_settings

    adopt_settings(app, session, new)
    found = state(app)
    if found.title and new:
        app.runtime.sessions.rename(session.id, found.title)
        found.title = None
    info = app.runtime.sessions.get(session.id)
    if info.title:
        app.title = f"hermes-tui — {info.title}"


async def after_turn(app: Any, stopped: bool = False) -> None:
    """The turn ended: work waiting for it (/init's file), then the next queued message.

    A turn the user `stopped` (Esc, ctrl+c) sends nothing more: its queued messages go back
    into the message box, above what is being typed, to be edited or sent again.
    """
    from hermes_tui.ui.commands.conversation import send

    found = state(app)
    waiting, found.after_turn = found.after_turn, []
    for job in waiting:
        await job(app)
    if stopped and found.queued:
        _give_back(app, list(found.queued))
        found.queued.clear()
    elif found.queued and not app.turn_running:
        await send(app, found.queued.popleft())


def _give_back(app: Any, messages: list[str]) -> None:
    from hermes_tui.ui.widgets.input import ChatInput

    box = app.query_one(ChatInput)
    box.text = "\n\n".join([*messages, box.text] if box.text.strip() else messages)
    box.move_cursor(box.document.end)
    count = len(messages)
    app.notify(
        f"Stopped: {count} queued message{'' if count == 1 else 's'} put back in the box, not sent",
        timeout=6,
    )
