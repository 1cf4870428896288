"""Core events → widgets: where each event the agent, a review or a store emits shows up."""

from __future__ import annotations

from typing import Any

from textual.css.query import NoMatches

from hermes_tui.core import events as ev
from hermes_tui.core.memory import FILENAMES, parse_entries
from hermes_tui.core.text import neutralise
from hermes_tui.ui.widgets.chat import ChatView
from hermes_tui.ui.widgets.memory_pane import MemoryPane
from hermes_tui.ui.widgets.nudge_bar import NudgeBar
from hermes_tui.ui.widgets.reviews_pane import ReviewsPane
from hermes_tui.ui.widgets.skills_pane import SkillsPane
from hermes_tui.ui.widgets.todo import TodoPanel
from hermes_tui.ui.widgets.trace import TracePane

SEVERITY = {"info": "information", "warning": "warning", "error": "error"}


def headline(summary: str) -> str:
    """'skill flask-k8s-deploy created · memory +1' reads better with a capital."""
    return summary[:1].upper() + summary[1:] if summary else "Nothing to save"


async def show_events(app: Any, events: list[ev.Event]) -> None:
    """A batch of events in order; a run of text (or reasoning) deltas is one write to the chat."""
    try:
        app.part(ChatView)
    except NoMatches:
        return  # the app is closing (a worker's last events arrive after the screen went)
    run: list[ev.TextDelta | ev.ReasoningDelta] = []

    async def flush() -> None:
        if run:
            await show_event(app, type(run[0])("".join(delta.text for delta in run)))
            run.clear()

    for event in events:
        if isinstance(event, (ev.TextDelta, ev.ReasoningDelta)):
            if run and type(run[0]) is not type(event):
                await flush()
            run.append(event)
            continue
        await flush()
        await show_event(app, event)
    await flush()


async def show_event(app: Any, event: ev.Event) -> None:
    chat = app.part(ChatView)
    bar = app.part(NudgeBar)
    if isinstance(event, ev.TextDelta):
        await chat.stream(event.text)
    elif isinstance(event, ev.ReasoningDelta):
        from hermes_tui.ui.commands.settings import reasoning_shown

        if reasoning_shown(app):  # /reasoning hide: the model still reasons, unseen
            await chat.reasoning(event.text)
    elif isinstance(event, ev.TextReset):
        await chat.reset_stream()
        app.turn.reply_reset()
        app.notify(f"Provider hiccup, retrying: {event.reason}", severity="warning", timeout=4)
    elif isinstance(event, ev.ServerWaiting):
        if event.source == "main":
            bar.waiting = int(event.seconds)
    elif isinstance(event, ev.ToolCallStarted):
        app.part(TracePane).started(event.call_id, event.source, event.name, event.arguments)
        if event.source == "main":
            await chat.tool_started(event.call_id, event.name, event.arguments)
    elif isinstance(event, ev.ToolCallFinished):
        app.part(TracePane).finished(
            event.call_id, event.source, event.ok, event.duration, event.preview, event.output
        )
        if event.source == "main":
            chat.tool_finished(
                event.call_id, event.ok, event.duration, event.preview, event.output, event.diff
            )
    elif isinstance(event, ev.TurnFinished):
        bar.waiting = 0
        await chat.turn_finished(event.interrupted)
        app.part(SkillsPane).refresh_detail()  # the skills it loaded were counted
        if event.last_input_tokens:
            bar.context_share = event.last_input_tokens / max(
                1, app.runtime.config.model.context_length
            )
            bar.cached_share = event.last_cached_tokens / event.last_input_tokens
    elif isinstance(event, ev.UsageUpdated):
        bar.usage = event
    elif isinstance(event, ev.NudgeCounters):
        bar.memory, bar.memory_interval = event.memory, event.memory_interval
        bar.skills, bar.skills_interval = event.skills, event.skills_interval
    elif isinstance(event, ev.ReviewStarted):
        bar.reviews_running += 1
        app.notify(f"Background review started ({event.kind})", title="Learning", timeout=3)
    elif isinstance(event, ev.ReviewFinished):
        bar.reviews_running = max(0, bar.reviews_running - 1)
        severity = "error" if event.status == "failed" else "information"
        app.notify(headline(event.summary), title="Review finished", severity=severity, timeout=8)
        app.part(ReviewsPane).refresh_reviews()
        app.part(SkillsPane).refresh_detail()
    elif isinstance(event, ev.MemoryChanged):
        _memory_changed(app, event)
    elif isinstance(event, ev.SkillChanged):
        app.part(SkillsPane).refresh_view()
        # A review's changes are announced together when it finishes; the user's own are not news.
        if event.origin in ("agent", "curator") and event.action not in ("pin", "unpin"):
            app.notify(
                f"Skill {event.name}: {event.action} ({event.origin})", title="Learned", timeout=6
            )
    elif isinstance(event, ev.WriteHeld):
        app.part(MemoryPane).refresh_held()
        why = f" — {event.source}" if event.source and not event.copies else ""
        app.notify(
            neutralise(f"{event.kind} {event.target} {event.action}: {event.reason}{why}")
            + ". Review it with /pending.",
            title="Held for your approval",
            severity="warning",
            timeout=12,
        )
    elif isinstance(event, ev.TodoChanged):
        if app.session is not None and event.session_id == app.session.id:
            app.part(TodoPanel).items = event.items
    elif isinstance(event, ev.Notice):
        if event.key:  # one fact said once per run, however often the core repeats it
            if event.key in app.turn.told:
                return
            app.turn.told.add(event.key)
        app.notify(event.text, severity=SEVERITY[event.level], timeout=6)
    elif isinstance(event, ev.ErrorEvent):
        await chat.error(event.text, event.detail)


def _memory_changed(app: Any, event: ev.MemoryChanged) -> None:
    fresh = None
    if event.origin != "user":
        fresh = set(parse_entries(event.after)) - set(parse_entries(event.before))
    app.part(MemoryPane).refresh_all(event.target, fresh)
    if event.origin == "agent" and app.runtime.config.display.memory_notifications:
        app.notify(f"{FILENAMES[event.target]}: {event.action} (agent)", title="Learned", timeout=6)
