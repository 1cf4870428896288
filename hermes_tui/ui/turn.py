"""One turn of the conversation, from the message box to the last drawn step (DESIGN.md 3, 10).

`TurnController` owns what a turn shares between the UI thread and the turn's worker thread:
- the conversation (`session`), opened on the worker but only ever assigned on the UI thread;
- the cancel event, made on the UI thread before the worker starts, so an Esc pressed at once
  is not lost;
- the drawing back-pressure: core events wait in the `EventForwarder` and reach the widgets in
  batches at most once a frame, and the provider's thread is held back while too much of the
  reply is undrawn (`reply_grew` and `reply_reset` tell it what the screen drew);
- approvals: the worker posts `ApprovalAsked` carrying a `concurrent.futures.Future`, the app
  shows the screen, and the user's answer (or a cancel) resolves the future.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from concurrent.futures import Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from textual.app import App
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer

from hermes_tui.core import events as ev
from hermes_tui.core.text import neutralise
from hermes_tui.core.transcript import TranscriptItem


class EventsWaiting(Message):
    """Core events are waiting in the forwarder: the app takes them all at once."""


class ApprovalAsked(Message):
    """The turn's worker needs the user's decision: the app shows `screen`, whose answer
    ("once", "session" or "deny") resolves `answer`; the worker waits on it."""

    def __init__(self, screen: ModalScreen[Any], answer: Future[str]) -> None:
        super().__init__()
        self.screen, self.answer = screen, answer


class EventForwarder:
    """The runtime's sink: queues core events from any thread and wakes the app to take them.

    A fast provider streams thousands of deltas a second. One message each would queue them in
    front of the user's keys, and the screen would be updated once per delta. Instead events
    wait here, in order, and the app is woken once; it takes everything that arrived, at most
    once a frame (`TurnController.DELIVERY_INTERVAL`), so a key never waits behind more than one batch.

    It also keeps the provider's thread at most AHEAD characters of reply text ahead of the
    screen. The screen draws a reply at its own pace (`AssistantMessage`), so reading further
    ahead shows nothing sooner; but parsing a fast stream holds the GIL, and a drawing step
    that shared it took two to three times as long, the keys behind it too. Held back, the
    thread reads on right after each step is drawn, between steps rather than during them.
    A screen that draws nothing for STALL seconds (a bug, or the app closing) is not waited for
    again until it draws; `release()` stops the waiting for the rest of the turn (a cancelled
    turn, the app quitting).
    """

    AHEAD = 4000  # characters of reply text read but not yet drawn, at most
    STALL = 0.25  # seconds one delta waits for the screen before it stops waiting

    def __init__(self) -> None:
        self.app: App | None = None
        self._lock = threading.Lock()
        self._drawn = threading.Condition(self._lock)
        self._events: list[ev.Event] = []
        self._woken = False
        self._queued_text = 0  # characters of reply text waiting here
        self._undrawn = 0  # characters of reply text the app has taken and not drawn yet
        self._stalled = False  # the screen did not draw in time: not waited for until it does
        self._released = False  # not waited for until the next turn starts
        self.wakeups = 0  # messages posted to the app (tests check that deltas are batched)
        self.waits = 0  # deltas that waited for the screen (tests check the pacing)

    def __call__(self, event: ev.Event) -> None:
        with self._lock:
            if isinstance(event, ev.TextDelta) and self.app is not None:
                self._keep_pace()
                self._queued_text += len(event.text)
            self._events.append(event)
            app = self.app
            # Events from before the app existed (a damaged sessions.db moved aside at start-up)
            # wait until it is mounted.
            if self._woken or app is None:
                return
            self._woken = True
            self.wakeups += 1
        app.post_message(EventsWaiting())

    def _keep_pace(self) -> None:
        """Wait (holding no GIL) while the screen is AHEAD characters behind. Lock held."""
        if self._stalled or self._released or self._queued_text + self._undrawn <= self.AHEAD:
            return
        self.waits += 1
        deadline = time.monotonic() + self.STALL
        while (
            not (self._stalled or self._released) and self._queued_text + self._undrawn > self.AHEAD
        ):
            left = deadline - time.monotonic()
            if left <= 0:
                self._stalled = True
                return
            self._drawn.wait(left)

    def take(self) -> list[ev.Event]:
        """Everything that arrived since the last call, oldest first; the next event wakes again."""
        with self._lock:
            events, self._events = self._events, []
            self._undrawn += self._queued_text
            self._queued_text = 0
            self._woken = False
        return events

    def drawn(self, undrawn: int) -> None:
        """The screen drew a step of the reply; `undrawn` characters of it are still to draw."""
        with self._lock:
            self._undrawn = undrawn
            self._stalled = False
            self._drawn.notify_all()

    def release(self) -> None:
        """Stop holding the provider's thread back, until the next turn starts."""
        with self._lock:
            self._released = True
            self._drawn.notify_all()

    def turn_started(self) -> None:
        """A new turn: nothing of its reply is on screen, and nothing before it counts."""
        with self._lock:
            self._undrawn = 0
            self._stalled = self._released = False


def resolve_answer(answer: Future[str], decision: str) -> None:
    """The first answer wins: the user's, or the deny of a cancelled turn."""
    with contextlib.suppress(InvalidStateError):  # already answered
        answer.set_result(decision)


class TurnController:
    """The app's running turn: its session, cancel event, pacing and approvals."""

    DELIVERY_INTERVAL = 1 / 30  # seconds between two batches of core events reaching the screen

    def __init__(self, app: Any, forwarder: EventForwarder) -> None:
        self.app = app
        self.forwarder = forwarder
        forwarder.app = app
        self.session: Any = None  # assigned on the UI thread only
        self.cancel = threading.Event()
        self._asking: set[Future[str]] = set()
        self._lock = threading.Lock()
        self._last_delivery = 0.0
        self._delivery_timer: Timer | None = None
        self._delivering = asyncio.Lock()
        self.told: set[str] = set()  # keys of notices already shown (ev.Notice.key)
        self.shell_running = False  # the running "turn" is the user's own `!command`

    # ---- running a turn (UI thread) ------------------------------------------------------

    def start(self, text: str, *, shell: bool = False, title: str | None = None) -> None:
        """Run one user turn (or, `shell`, the user's own `!command`) on a worker thread. Its
        cancel event exists before the worker does, so an Esc pressed at once cancels it.
        `title`: the user's own words in `text`, which name a new session."""
        self.cancel = cancel = threading.Event()
        self.shell_running = shell  # its questions say who asked
        self.forwarder.turn_started()
        self.app.turn_running = True
        self.app.run_worker(
            lambda: self._run(text, cancel, shell, title),
            thread=True,
            exclusive=True,
            group="turn",
            exit_on_error=False,
            description="turn",
        )

    def stop(self) -> None:
        """Ask the running turn to stop: its thread no longer waits for the screen, and a
        question it is waiting on is answered "deny"."""
        self.cancel.set()
        self.forwarder.release()
        with self._lock:
            asking = list(self._asking)
        for answer in asking:
            resolve_answer(answer, "deny")

    def forget_session(self) -> None:
        """The next message starts a new conversation (/new, a new provider or home)."""
        from hermes_tui.ui.widgets.todo import TodoPanel

        if self.session is not None and not self.app.turn_running:
            self.session.close()  # a running turn's is closed with its retired runtime
        self.session = None
        for panel in self.app.query(TodoPanel):
            panel.items = ()

    def resume(self, session_id: str) -> None:
        """Open a stored conversation on a worker; the app draws its transcript."""
        self.app.run_worker(
            lambda: self._resume(session_id),
            thread=True,
            exclusive=True,
            group="turn",
            exit_on_error=False,
            description="resume",
        )

    # ---- on the worker thread -------------------------------------------------------------

    def _run(
        self, text: str, cancel: threading.Event, shell: bool = False, title: str | None = None
    ) -> None:
        from hermes_tui.core.llm.base import ProviderNotConfigured

        try:
            session = self.session or self._open(without_provider=shell)
            if shell:
                session.run_shell(text, cancel)
                self.app.call_from_thread(self._show_shell_output)
            else:
                session.submit(text, cancel, title=title)
        except ProviderNotConfigured as exc:
            self.forwarder(
                ev.ErrorEvent(str(exc), "Use /model to set a provider or start the demo.")
            )
        except Exception as exc:  # a bug must be shown in the chat, not vanish with the worker
            redact = self.app.runtime.redactor.text  # an exception may quote a key
            self.forwarder(
                ev.ErrorEvent(
                    redact(f"unexpected error: {type(exc).__name__}: {exc}"),
                    "The conversation so far is kept; please report this.",
                )
            )
            raise
        finally:
            self.app.call_from_thread(self._done)

    def _open(self, session_id: str | None = None, *, without_provider: bool = False) -> Any:
        """`without_provider`: for a `!command`, which needs no model (Runtime.open_session)."""
        runtime = self.app.runtime
        session = runtime.open_session(
            session_id,
            ask=self.ask_human,
            reviewer=runtime.reviewer(),
            without_provider=without_provider,
        )
        self.app.call_from_thread(self._adopt, session)
        return session

    def _resume(self, session_id: str) -> None:
        from hermes_tui.core.llm.base import ProviderNotConfigured
        from hermes_tui.core.sessions import SessionError

        try:
            session = self._open(session_id)
        except (SessionError, ProviderNotConfigured) as exc:
            self.forwarder(ev.Notice("error", str(exc)))
            return
        self.app.call_from_thread(self._show_resumed, session.transcript())

    def _adopt(self, session: Any) -> None:
        from hermes_tui.ui.commands import session_adopted
        from hermes_tui.ui.widgets.nudge_bar import NudgeBar

        if self.session is not None and self.session is not session:
            self.session.close()  # another conversation resumed in its place
        self.session = session
        self.show_title()
        session_adopted(self.app, session, new=not session.agent.history)
        bar = self.app.query_one(NudgeBar)
        snapshot = session.nudges.snapshot()
        bar.memory, bar.memory_interval = snapshot.memory, snapshot.memory_interval
        bar.skills, bar.skills_interval = snapshot.skills, snapshot.skills_interval
        bar.usage = session.usage()  # a resumed session's totals so far
        bar.mode = session.approval_mode
        from hermes_tui.ui.widgets.todo import TodoPanel

        self.app.query_one(TodoPanel).items = session.todos.items  # a resumed session's list

    def show_title(self) -> None:
        """The window's title: the conversation's name (its first message, or the one given
        in the sessions dialog), else its id."""
        from hermes_tui.core.sessions import SessionError

        session = self.session
        if session is None:
            return
        try:
            title = self.app.runtime.sessions.get(session.id).title
        except SessionError:
            title = ""
        self.app.title = neutralise(f"hermes-tui — {title or session.id}")

    async def _show_resumed(self, items: list[TranscriptItem]) -> None:
        from hermes_tui.ui.widgets.chat import ChatView

        await self.app.action_new_session_view()
        await self.app.query_one(ChatView).load_history(items)
        # Counted as the sessions list counts them: every stored message, tool results too.
        count = self.session.info.message_count
        self.app.notify(f"Resumed {self.session.id} ({count} message{'' if count == 1 else 's'})")

    async def _show_shell_output(self) -> None:
        from hermes_tui.ui.widgets.chat import ChatView

        await self.deliver()  # the call's row first
        chat = self.app.part(ChatView)
        chat.expand_last_tool()

    async def _done(self) -> None:
        from hermes_tui.ui.commands import after_turn

        await self.deliver()  # the turn's last events first, then the input is free
        self.show_title()  # a new conversation is named by its first message
        self.app.turn_running = False
        self.app.turn_ended()
        # /init's file, then a /queue'd message (given back to the box if the user stopped it)
        self.app.call_later(after_turn, self.app, self.cancel.is_set())

    # ---- approvals ----------------------------------------------------------------------

    def ask_human(self, request: Any) -> str:
        """The core's question (an ApprovalRequest): "once", "session" (the grant it names,
        kept by the core Session) or "deny"; blocks the turn's worker thread."""
        from hermes_tui.ui.screens.modals import ApprovalScreen

        grants = (request.grants,) if request.grants is not None else ()
        asker = "You want" if self.shell_running else "The agent wants"
        redact = self.app.runtime.redactor.text
        return self.ask(ApprovalScreen(request.what, request.reason, grants, asker, redact))

    def ask(self, screen: ModalScreen[Any]) -> str:
        """Show `screen` and wait (on the worker) for its answer; "deny" once cancelled."""
        answer: Future[str] = Future()
        with self._lock:
            if self.cancel.is_set():
                return "deny"
            self._asking.add(answer)
        try:
            self.app.post_message(ApprovalAsked(screen, answer))
            while True:  # an app that ends by any road (not only quit) answers "deny"
                try:
                    return answer.result(timeout=0.5)
                except FutureTimeout:
                    if not self.app.is_running:
                        return "deny"
        finally:
            with self._lock:
                self._asking.discard(answer)

    # ---- events and pacing (UI thread) ----------------------------------------------------

    async def events_waiting(self) -> None:
        wait = self._last_delivery + self.DELIVERY_INTERVAL - time.monotonic()
        if wait > 0:
            if self._delivery_timer is None:
                self._delivery_timer = self.app.set_timer(wait, self.deliver)
            return
        await self.deliver()

    async def deliver(self) -> None:
        """Everything the core said since the last batch, to the widgets (ui/dispatch.py)."""
        from hermes_tui.ui.dispatch import show_events

        if self._delivery_timer is not None:
            self._delivery_timer.stop()
            self._delivery_timer = None
        # call_from_thread callbacks run beside the message queue: one batch at a time, in order.
        async with self._delivering:
            events = self.forwarder.take()
            if not self._screen_alive():
                return  # the app closing by any road: its widgets are gone, nothing to draw on
            try:
                await show_events(self.app, events)
            finally:
                # Counted from the end, so that keys always get a gap between two batches.
                self._last_delivery = time.monotonic()

    def _screen_alive(self) -> bool:
        """Whether the main screen's chat and bar are still there to show events on (a batch
        that lands while the app shuts down found neither, and raised NoMatches)."""
        from textual.css.query import NoMatches

        from hermes_tui.ui.widgets.chat import ChatView
        from hermes_tui.ui.widgets.nudge_bar import NudgeBar

        try:
            self.app.part(ChatView)
            self.app.part(NudgeBar)
        except NoMatches:
            return False
        return True

    def reply_grew(self, reply: Any) -> None:
        """A step of `reply` was laid out."""
        current = self._streaming_reply()
        if current is not None and reply is not current:
            return  # an older reply drawn again: not what the provider's thread waits for
        # Once the step is on screen: the provider's thread reads on between steps.
        self.app.call_after_refresh(self._report_drawn)

    def _report_drawn(self) -> None:
        current = self._streaming_reply()
        self.forwarder.drawn(0 if current is None else current.undrawn)

    def _streaming_reply(self) -> Any:
        """The reply now streaming, or None; also None once the chat is gone (the app closing,
        a step landing after it): the provider's thread is then told nothing waits to be drawn."""
        from textual.css.query import NoMatches

        from hermes_tui.ui.widgets.chat import ChatView

        try:
            return self.app.part(ChatView).current
        except NoMatches:
            return None

    def reply_reset(self) -> None:
        """The provider restarted its reply: the text counted as undrawn is gone."""
        self.forwarder.drawn(0)
