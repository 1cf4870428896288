"""HermesApp: the full-screen face over the same Runtime the CLI uses (DESIGN.md section 10).

Core events arrive from worker threads into the EventForwarder's queue; the app takes them in
batches, at most once a frame, and dispatches them to the widgets (ui/dispatch.py); user intent goes to the core through the session and the
stores' public methods. Turns run in an exclusive thread worker; Esc cancels them.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path
from typing import Any, TypeVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Header, TabbedContent, TabPane

from hermes_tui.core import events as ev
from hermes_tui.core.text import neutralise
from hermes_tui.ui.collector import Collector
from hermes_tui.ui.widgets.chat import AssistantMessage, ChatView
from hermes_tui.ui.widgets.copyable import CopyableMessage
from hermes_tui.ui.widgets.input import ChatInput, SlashHints
from hermes_tui.ui.widgets.memory_pane import MemoryPane
from hermes_tui.ui.widgets.mentions import MentionHints
from hermes_tui.ui.widgets.nudge_bar import NudgeBar
from hermes_tui.ui.widgets.reviews_pane import ReviewsPane
from hermes_tui.ui.widgets.skills_pane import SkillsPane
from hermes_tui.ui.widgets.trace import TracePane

W = TypeVar("W", bound=Widget)

PANES = {"trace": "Trace", "memory": "Memory", "skills": "Skills", "reviews": "Reviews"}


class EventsWaiting(Message):
    """Core events are waiting in the forwarder: the app takes them all at once."""


class MainArea(Horizontal):
    """The chat and the side panel. Says when its size changes: the app's own Resize event
    stops inside Textual, so this is how the panel learns that the window grew."""

    class Resized(Message):
        pass

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class EventForwarder:
    """The runtime's sink: queues core events from any thread and wakes the app to take them.

    A fast provider streams thousands of deltas a second. One message each would queue them in
    front of the user's keys, and the screen would be updated once per delta. Instead events
    wait here, in order, and the app is woken once; it takes everything that arrived, at most
    once a frame (`HermesApp.DELIVERY_INTERVAL`), so a key never waits behind more than one batch.

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


MCP_START_DELAY = 0.5  # seconds after the first frame
WARM_UP_DELAY = 0.3  # seconds after the first frame: the Markdown renderer draws a sample
TERMINAL_GONE = 129  # exit status when the terminal hung up (128 + SIGHUP, as a shell reports it)


class HermesApp(App):
    TITLE = "hermes-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", show=True, priority=False),
        # Priority, so it reaches the app from the message box too; it still copies a selection.
        Binding("ctrl+c", "interrupt", "Cancel · twice quits", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_panel", "Panel"),
        Binding("alt+left", "resize_panel(4)", "Wider panel", show=False),
        Binding("alt+right", "resize_panel(-4)", "Narrower panel", show=False),
        Binding("f1", "pane('trace')", "Trace", show=False),
        Binding("f2", "pane('memory')", "Memory", show=False),
        Binding("f3", "pane('skills')", "Skills", show=False),
        Binding("f4", "pane('reviews')", "Reviews", show=False),
        Binding("f5", "insights", "Insights", show=False),
        Binding("ctrl+n", "new_session", "New"),
        Binding("ctrl+o", "sessions", "Sessions"),
        Binding("f10", "help", "Help"),
        Binding("alt+up", "focus_messages", "Messages", show=False),
    ]
    panel_width = var(44)
    turn_running = var(False)
    DELIVERY_INTERVAL = 1 / 30  # seconds between two batches of core events reaching the screen
    COLLECT_AFTER_PAUSE = 1.0  # seconds without a key or click before a full garbage collection
    COLLECT_DEADLINE = 3.0  # seconds after a reply is drawn: collected then even if typing goes on
    NARROW = 100  # below this many columns the side panel stacks under the chat
    QUIT_WINDOW = 2.0  # seconds within which a second ctrl+c quits
    CURATOR_CHECK_INTERVAL = 15 * 60  # seconds between two looks at whether the curator is due

    def __init__(
        self,
        runtime: Any,
        forwarder: EventForwarder,
        *,
        watch_files: bool = True,
        resume: str | None = None,
        collector: Collector | None = None,
    ) -> None:
        super().__init__()
        # Full garbage collections at quiet moments (ui/collector.py). The process that runs
        # the app owns the collector's settings, so the CLI passes one and tests mostly do not.
        self.collector = collector
        self._last_input = 0.0
        self._collection_timer: Timer | None = None
        self._collection_due: float | None = None  # since when a full collection waits
        self.runtime = runtime
        self.forwarder = forwarder
        forwarder.app = self
        self.session: Any = None
        self.cancel = threading.Event()
        # Approval scopes the user allowed "for this session", and which session that was.
        self.allowed_for_session: tuple[str | None, set[str]] = (None, set())
        self.watch_files_enabled = watch_files
        self.resume_on_start = resume
        self._stop_watch = threading.Event()
        self._last_delivery = 0.0
        self._delivery_timer: Timer | None = None
        self._delivering = asyncio.Lock()
        self._last_interrupt = 0.0
        self._curator_deferred = False  # fell due during a turn: runs when the turn ends
        self._chat_box: ChatInput | None = None  # found once: toasts are lifted above it
        self._parts: dict[type, Any] = {}

    def part(self, kind: type[W]) -> W:
        """The main screen's one widget of `kind` (the chat, the bar, a pane), found once:
        events arrive many times a second while a reply streams, and a query walks the DOM."""
        found = self._parts.get(kind)
        if found is None or not found.is_attached:
            found = self._parts[kind] = self.query_one(kind)
        return found

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast carries outside text (skill names, review summaries, errors): shown literally."""
        super().notify(
            neutralise(message),
            title=neutralise(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    # ---- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with MainArea(id="main"):
            with Vertical(id="chat-column"):
                yield ChatView(id="chat")
                yield SlashHints(id="slash-hints")
                yield MentionHints(id="mention-hints")
                yield ChatInput(id="chat-input")
            with TabbedContent(id="side", initial="memory"):
                with TabPane(PANES["trace"], id="trace"):
                    yield TracePane(id="trace-pane")
                with TabPane(PANES["memory"], id="memory"):
                    yield MemoryPane(self.runtime.memory, id="memory-pane")
                with TabPane(PANES["skills"], id="skills"):
                    yield SkillsPane(self.runtime.skills, id="skills-pane")
                with TabPane(PANES["reviews"], id="reviews"):
                    yield ReviewsPane(self.runtime, id="reviews-pane")
        yield NudgeBar(id="nudge-bar")
        yield Footer()

    def on_mount(self) -> None:
        from hermes_tui.resources import themes_dir
        from hermes_tui.ui.themes import FALLBACK, load_themes

        themes, problems = load_themes(themes_dir(), self.runtime.home / "themes")
        for theme in themes:
            self.register_theme(theme)
        for problem in problems:
            self.notify(
                f"theme {problem.path.name} skipped: {problem.message}",
                severity="warning",
                timeout=8,
            )
        wanted = self.runtime.config.display.theme
        self.theme = wanted if wanted in self.available_themes else FALLBACK
        if wanted not in self.available_themes:
            self.notify(f"theme {wanted!r} not found; using {FALLBACK}", severity="warning")
        self._theme_ready = True
        from hermes_tui.ui.screens.welcome import NAMES as PROVIDER_NAMES

        self.query_one(ChatInput).argument_choices = {
            "/theme": sorted(self.available_themes),
            "/model": PROVIDER_NAMES,
            "/curator": ["dry"],
            "/mcp": ["reload"],
        }
        self.post_message(EventsWaiting())  # whatever the runtime said before the app existed
        if unused := self.runtime.hermes_keys_to_report():
            shown = ", ".join(unused[:8]) + (
                f" and {len(unused) - 8} more" if len(unused) > 8 else ""
            )
            self.notify(
                f"Hermes keys not used by hermes-tui: {shown} (`hermes-tui doctor` lists them)",
                severity="information",
                timeout=12,
            )
        self._show_provider()
        self.panel_width = self.runtime.config.display.panel_width
        self._fit_panel()
        bar = self.query_one(NudgeBar)
        bar.memory_interval = self.runtime.config.memory.nudge_interval
        bar.skills_interval = self.runtime.config.skills.creation_nudge_interval
        self.query_one(ChatInput).focus()
        self.screen.screen_layout_refresh_signal.subscribe(self, self._lift_toasts)
        if not self.is_headless:
            from hermes_tui.ui.terminal import watch_terminal

            watch_terminal(sys.__stdin__.fileno(), self.terminal_gone)
        if self.watch_files_enabled:
            self.watch_home()
        from hermes_tui.core.llm import select

        if select.detect(self.runtime.config) is None:
            self.action_model()
        elif self.resume_on_start:
            self.resume(self.resume_on_start)
        elif self.runtime.is_demo:
            self._start_demo()
        if self.runtime.config.curator.enabled:
            self.curate_if_due()
        # A session left open for days still gets its curator pass when it falls due.
        self.set_interval(self.CURATOR_CHECK_INTERVAL, self.check_curator)
        # The first reply must not pay for the Markdown renderer's lazy imports (Pygments and
        # a lexer: tens of ms, more while a fast stream's thread holds the GIL).
        self.call_after_refresh(self.set_timer, WARM_UP_DELAY, self._warm_up_markdown)
        if self.collector is not None:  # once the first screen is up: its objects stay for good
            self.call_after_refresh(self.collector.start)
        if self.runtime.config.mcp_servers:
            # Half a second after the first frame, on a thread: the first screen never waits
            # for a server (their processes and the SDK's import would otherwise compete with it
            # for the CPU); connecting takes seconds anyway.
            self.call_after_refresh(self.set_timer, MCP_START_DELAY, self._start_mcp)

    def _warm_up_markdown(self) -> None:
        from hermes_tui.ui.markdown_lines import markdown_style, warm_up

        warm_up(markdown_style(self))

    def _show_provider(self) -> None:
        from hermes_tui.core.llm import select

        name = select.detect(self.runtime.config)
        bar = self.query_one(NudgeBar)
        if name is None:
            self.sub_title = "offline: no provider (/model to set one)"
            bar.provider = "offline"
        elif name == "demo":
            self.sub_title = "DEMO: a scripted model in its own home, not a real LLM"
            bar.provider = "demo (scripted, own home)"
        else:
            model = self.runtime.config.model.name or select.DEFAULT_MODELS.get(name, "")
            self.sub_title = neutralise(f"{name} · {model}")
            bar.provider = neutralise(f"{name}/{model}")

    def watch_panel_width(self, width: int) -> None:
        self._fit_panel()

    @on(MainArea.Resized)
    def _main_resized(self) -> None:
        self._fit_panel()

    def _fit_panel(self) -> None:
        """Wide: the panel keeps its chosen width, at most about half the screen, and grows back
        when the window does. Narrow: it stacks under the chat, hidden until asked for."""
        if not (self.is_mounted and self.query("#side")):
            return
        side = self.query_one("#side")
        narrow = self.size.width < self.NARROW
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            side.display = not narrow  # entering narrow hides it; going wide shows it again
        if narrow:
            side.styles.width = None  # the stylesheet's full width
        else:
            side.styles.width = min(self.panel_width, max(30, self.size.width // 2 - 4))

    def _lift_toasts(self, screen: Any) -> None:
        """Toasts stand just above the message box: Textual docks them at the very bottom of
        the screen, over the box and the nudge bar. Follows the box as it grows or moves."""
        # Runs on every layout of the screen (during a stream, many a second): no DOM walks.
        from textual.widgets._toast import ToastRack

        try:
            rack = screen.get_child_by_type(ToastRack)
        except NoMatches:
            return
        box = self._chat_box
        if box is None or box.screen is not screen or not box.is_attached:
            boxes = screen.query(ChatInput)
            if not boxes:
                return
            box = self._chat_box = boxes.first()
        lift = max(1, screen.size.height - box.region.y)
        if rack.styles.margin.bottom != lift:
            rack.styles.margin = (0, 0, lift, 0)

    def watch_theme(self, theme: str) -> None:
        # Compared with what was last saved, not with the config read at start-up: switching
        # away and back must save the way back too.
        saved = getattr(self, "_saved_theme", self.runtime.config.display.theme)
        if getattr(self, "_theme_ready", False) and theme != saved:
            from hermes_tui.config import set_config_value

            set_config_value(self.runtime.user_home, "display", "theme", theme)
            self._saved_theme = theme

    # ---- sending -------------------------------------------------------------------------

    @on(ChatInput.Submitted)
    async def _submitted(self, event: ChatInput.Submitted) -> None:
        text = event.text.strip()
        if not text:
            return
        if text.startswith("/"):
            from hermes_tui.ui.slash import run_slash

            await run_slash(self, text)
            return
        if self.turn_running:
            self.notify(
                "A turn is running: wait for it or press esc to cancel it", severity="warning"
            )
            return
        shown, text = text, self._attach_mentions(text)
        if text is None:
            return
        await self.query_one(ChatView).add_user(shown)
        self.turn_running = True
        self.run_turn(text)

    def workdir(self) -> tuple[Path, Path]:
        """The conversation's working directory and current directory (where `@` looks)."""
        if self.session is not None:
            context = self.session.agent.context
            return Path(context.workdir), Path(context.cwd)
        if self.runtime.is_demo:
            folder = self.runtime.user_home / "demo"
            return folder, folder
        return Path.cwd(), Path.cwd()

    def _attach_mentions(self, text: str) -> str | None:
        """The message with its @-mentioned files attached; None (and the text back in the box)
        when the files tools' path policy refused one: the user decides what to send."""
        from hermes_tui.core.mentions import MENTION, attach
        from hermes_tui.core.tools.path_policy import resolve_rules

        if not MENTION.search(text):
            return text
        workdir, cwd = self.workdir()
        rules = resolve_rules(
            workdir,
            allowed_roots=self.runtime.config.files.allowed_roots,
            hermes_home=self.runtime.home,
        )
        result = attach(text, rules, cwd)
        blocked = [reason for reason in result.refused if "not attached" in reason]
        if blocked:
            box = self.query_one(ChatInput)
            box.text = text
            box.move_cursor(box.document.end)
            self.notify(
                "\n".join(blocked) + "\nNot sent: remove the mention, or share what is needed.",
                title="Mention refused",
                severity="error",
                timeout=10,
            )
            return None
        for note in result.refused:
            self.notify(note, severity="warning", timeout=6)
        if result.files:
            self.notify("Attached " + ", ".join(result.files), timeout=4)
        return result.text

    @work(thread=True, exclusive=True, group="turn", exit_on_error=False)
    def run_turn(self, text: str) -> None:
        from hermes_tui.core.llm.base import ProviderNotConfigured

        self.cancel = threading.Event()
        self.forwarder.turn_started()
        try:
            session = self.ensure_session()
            session.submit(text, self.cancel)
        except ProviderNotConfigured as exc:
            self.forwarder(
                ev.ErrorEvent(str(exc), "Use /model to set a provider or start the demo.")
            )
        except Exception as exc:  # a bug must be shown in the chat, not vanish with the worker
            self.forwarder(
                ev.ErrorEvent(
                    f"unexpected error: {type(exc).__name__}: {exc}",
                    "The conversation so far is kept; please report this.",
                )
            )
            raise
        finally:
            self.call_from_thread(self._turn_done)

    async def _turn_done(self) -> None:
        await self._deliver_events()  # the turn's last events first, then the input is free
        self.turn_running = False
        self._collect_if_settled()

    @on(AssistantMessage.Grew)
    def _reply_grew(self, message: AssistantMessage.Grew) -> None:
        from textual.css.query import NoMatches

        try:
            chat = self.part(ChatView)
        except NoMatches:  # a step drawn while the app closes: its screen is gone
            return
        if chat.current is not None and message.reply is not chat.current:
            return  # an older reply drawn again: not what the provider's thread waits for
        # Once the step is on screen: the provider's thread reads on between steps.
        self.call_after_refresh(self._report_drawn)

    def _report_drawn(self) -> None:
        current = self.part(ChatView).current
        self.forwarder.drawn(0 if current is None else current.undrawn)

    def _stop_turn(self) -> None:
        """Ask the running turn to stop; its thread no longer waits for the screen."""
        self.cancel.set()
        self.forwarder.release()

    @on(AssistantMessage.Settled)
    def _collect_if_settled(self) -> None:
        """A full garbage collection once the turn is over, its reply is drawn and the user
        has paused: it stops the app for a moment (up to a second after a long reply)."""
        if self.collector is None or self.turn_running or self._collection_timer is not None:
            return
        if any(not reply.settled for reply in self.query(AssistantMessage)):
            return  # the last reply posts Settled when it is drawn
        now = time.monotonic()
        if self._collection_due is None:
            self._collection_due = now
        typed, waited = now - self._last_input, now - self._collection_due
        if typed < self.COLLECT_AFTER_PAUSE and waited < self.COLLECT_DEADLINE:
            # The user is typing: after a pause, or at the deadline (garbage must not pile up
            # over many turns: the pause would grow with it).
            wait = min(self.COLLECT_AFTER_PAUSE - typed, self.COLLECT_DEADLINE - waited)
            self._collection_timer = self.set_timer(wait, self._collect_after_pause)
            return
        self._collection_due = None
        self.call_after_refresh(self.collector.settled)  # after the reply's last frame is out

    def _collect_after_pause(self) -> None:
        self._collection_timer = None
        self._collect_if_settled()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollUp, events.Paste)):
            self._last_input = time.monotonic()  # see _collect_if_settled
        await super().on_event(event)

    def ensure_session(self) -> Any:
        if self.session is None:
            self.session = self.runtime.open_session(
                approver=self.approve,
                command_approver=self.approve_command,
                reviewer=self.runtime.reviewer(),
            )
            self.call_from_thread(self._session_opened)
        return self.session

    def _session_opened(self) -> None:
        self.title = f"hermes-tui — {self.session.id}"
        bar = self.query_one(NudgeBar)
        snapshot = self.session.nudges.snapshot()
        bar.memory, bar.memory_interval = snapshot.memory, snapshot.memory_interval
        bar.skills, bar.skills_interval = snapshot.skills, snapshot.skills_interval
        bar.usage = self.session.usage()  # a resumed session's totals so far

    def approve(self, command: str, reason: str) -> bool:
        """Called on the turn's worker thread; blocks until the user answers the modal."""
        from hermes_tui.core.tools.registry import approval_scope
        from hermes_tui.ui.screens.modals import ApprovalScreen

        session_id = getattr(self.session, "id", None)
        if self.allowed_for_session[0] != session_id:
            self.allowed_for_session = (session_id, set())
        scope = approval_scope(command)
        if scope in self.allowed_for_session[1]:
            return True
        decision = self._ask(ApprovalScreen(command, reason))
        if decision == "session":
            self.allowed_for_session[1].add(scope)
        return decision in ("once", "session")

    def approve_command(self, request: Any) -> str:
        """The terminal's question (a CommandApproval): "once", "session" (allow its
        prefixes for this conversation) or "deny"; blocks the turn's worker thread."""
        from hermes_tui.ui.screens.modals import ApprovalScreen

        return self._ask(ApprovalScreen(request.command, request.reason, request.prefixes))

    def _ask(self, screen: Any) -> str:
        answered = threading.Event()
        answer: dict[str, str] = {}

        def done(decision: str | None) -> None:
            answer["decision"] = decision or "deny"
            answered.set()

        self.call_from_thread(self.push_screen, screen, done)
        while not answered.wait(0.1):
            if self.cancel.is_set() or not self.is_running:
                return "deny"
        return answer["decision"]

    def action_cancel_turn(self) -> None:
        """esc: cancel the running turn; from a pane or the chat, back to the message box."""
        if self.turn_running:
            self._stop_turn()
            self.notify("Cancelling: the turn stops after the current chunk or tool", timeout=3)
        if isinstance(self.focused, ChatInput):
            self.query_one(SlashHints).hide()
            self.query_one(MentionHints).hide()
        else:
            self.query_one(ChatInput).focus()

    async def action_interrupt(self) -> None:
        """ctrl+c: copy a selection if there is one; else cancel the running turn; twice quits."""
        focused = self.focused
        selected = getattr(focused, "selected_text", "") if focused is not None else ""
        if selected:
            self.copy_to_clipboard(selected)
            return
        screen_selection = self.screen.get_selected_text()
        if screen_selection:
            self.copy_to_clipboard(screen_selection)
            return
        now = time.monotonic()
        if self.turn_running and not self.cancel.is_set():
            self._last_interrupt = now
            self._stop_turn()
            self.notify(
                "Cancelling: the turn stops after the current chunk or tool (ctrl+c again quits)",
                timeout=self.QUIT_WINDOW,
            )
            return
        if now - self._last_interrupt <= self.QUIT_WINDOW:
            await self.action_quit()
            return
        self._last_interrupt = now
        self.notify("Press ctrl+c again to quit (or ctrl+q)", timeout=self.QUIT_WINDOW)

    # ---- core events ---------------------------------------------------------------------

    @on(EventsWaiting)
    async def _events_waiting(self) -> None:
        wait = self._last_delivery + self.DELIVERY_INTERVAL - time.monotonic()
        if wait > 0:
            if self._delivery_timer is None:
                self._delivery_timer = self.set_timer(wait, self._deliver_events)
            return
        await self._deliver_events()

    async def _deliver_events(self) -> None:
        from hermes_tui.ui.dispatch import show_events

        if self._delivery_timer is not None:
            self._delivery_timer.stop()
            self._delivery_timer = None
        # call_from_thread callbacks run beside the message queue: one batch at a time, in order.
        async with self._delivering:
            try:
                await show_events(self, self.forwarder.take())
            finally:
                # Counted from the end, so that keys always get a gap between two batches.
                self._last_delivery = time.monotonic()

    @on(SkillsPane.EditSkill)
    def _edit_skill(self, message: SkillsPane.EditSkill) -> None:
        from hermes_tui.ui.screens.editor import SkillEditor

        self.push_screen(
            SkillEditor(self.runtime.skills, message.name),
            lambda _name: self.query_one(SkillsPane).refresh_view(),
        )

    @on(SkillsPane.InstallSkills)
    def _install_skills(self) -> None:
        from hermes_tui.ui.screens.install import InstallScreen

        self.push_screen(
            InstallScreen(self.runtime.skills),
            lambda _names: self.query_one(SkillsPane).refresh_view(),
        )

    @on(SkillsPane.ShowHistory)
    def _skill_history(self, message: SkillsPane.ShowHistory) -> None:
        from hermes_tui.ui.screens.editor import HistoryScreen

        self.push_screen(
            HistoryScreen(self.runtime.skills, message.name),
            lambda _: self.query_one(SkillsPane).refresh_view(),
        )

    def check_curator(self) -> None:
        """The curator's schedule inside a long-lived app: run a pass when one is due, but never
        beside a running turn (it would change skills the turn may be loading): then it waits
        for the turn to end."""
        if not self.runtime.config.curator.enabled:
            return
        if self.turn_running:
            self._curator_deferred = True
            return
        self._curator_deferred = False
        self.curate_if_due()

    def watch_turn_running(self, running: bool) -> None:
        if not running and self._curator_deferred:
            self.check_curator()

    @work(thread=True, exclusive=True, group="curator", exit_on_error=False)
    def curate_if_due(self) -> None:
        """The scheduled curator pass (deterministic; the model pass runs on /curator or by config)."""
        if self.runtime.curator().due():
            self.runtime.run_curator()

    # ---- watching files edited outside the app ------------------------------------------

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_home(self) -> None:
        import watchfiles

        memories = self.runtime.home / "memories"
        skills = self.runtime.home / "skills"
        for directory in (memories, skills):
            directory.mkdir(parents=True, exist_ok=True)

        def relevant(_change: Any, path: str) -> bool:
            return not path.endswith((".lock", ".tmp")) and "/.history/" not in path

        async for changes in watchfiles.awatch(
            memories,
            skills,
            watch_filter=relevant,
            debounce=200,
            stop_event=self._stop_watch,
            rust_timeout=500,
        ):
            paths = [Path(p) for _c, p in changes]
            if any(memories in p.parents for p in paths):
                self.query_one(MemoryPane).refresh_all()
            if any(skills in p.parents for p in paths):
                self.query_one(SkillsPane).refresh_view()

    def _start_mcp(self) -> None:
        self.run_worker(self.runtime.start_mcp, thread=True, group="mcp", exit_on_error=False)

    def action_insights(self) -> None:
        from hermes_tui.ui.screens.insights import InsightsScreen

        self.push_screen(InsightsScreen(self.runtime))

    def terminal_gone(self) -> None:
        """The terminal hung up: stop the turn, reviews' wait and MCP servers, and leave."""
        from hermes_tui.ui.terminal import exit_after

        exit_after(5.0, TERMINAL_GONE)  # in case Textual's shutdown blocks on the dead terminal
        self._stop_watch.set()
        self._stop_turn()
        self.runtime.stop_mcp()
        self.exit(return_code=TERMINAL_GONE)

    async def action_quit(self) -> None:
        self._stop_watch.set()
        self._stop_turn()
        self.runtime.stop_mcp()
        await super().action_quit()

    # ---- actions -------------------------------------------------------------------------

    def get_system_commands(self, screen: Any):
        """The command palette: Textual's own (themes, keys, quit) plus panes and slash actions."""
        yield from super().get_system_commands(screen)
        for pane, title in PANES.items():
            yield SystemCommand(
                f"Show {title}", f"open the {title} pane", lambda p=pane: self.action_pane(p)
            )
        from hermes_tui.ui.slash import run_slash
        from hermes_tui.ui.widgets.input import SLASH_COMMANDS

        for name, help_text in SLASH_COMMANDS.items():
            if name in ("/resume", "/theme"):
                continue

            async def invoke(command: str = name) -> None:
                await run_slash(self, command)

            yield SystemCommand(name, help_text, invoke)

    def action_toggle_panel(self) -> None:
        side = self.query_one("#side")
        self.query_one(ChatView).keep_view()
        side.display = not side.display

    def action_resize_panel(self, delta: int) -> None:
        from hermes_tui.config import set_config_value

        self.query_one(ChatView).keep_view()
        self.panel_width = max(28, min(120, self.panel_width + delta))
        set_config_value(self.runtime.user_home, "display", "panel_width", self.panel_width)

    def action_pane(self, pane: str) -> None:
        """Show a pane and focus its content (its keys then work at once); the same key again,
        from inside that pane, goes back to the message box."""
        side = self.query_one("#side", TabbedContent)
        focus_in_panel = self.focused is not None and side in self.focused.ancestors
        if focus_in_panel and side.display and side.active == pane:
            self.query_one(ChatInput).focus()
            return
        if not side.display:
            self.query_one(ChatView).keep_view()
        side.display = True
        side.active = pane
        self.query_one(f"#{pane}-pane").focus_content()

    def action_focus_messages(self) -> None:
        """alt+↑: the newest message takes the focus (↑/↓ move, c copies, esc comes back)."""
        if not self.query_one(ChatView).focus_message():
            self.notify("No messages yet", timeout=2)

    @on(CopyableMessage.Leave)
    def _back_to_input(self, message: CopyableMessage.Leave) -> None:
        box = self.query_one(ChatInput)
        box.focus()
        if message.character:
            box.insert(message.character)

    def action_help(self) -> None:
        from hermes_tui.ui.screens.modals import HelpScreen

        self.push_screen(HelpScreen())

    async def action_new_session(self) -> None:
        if self.turn_running:
            self.notify("Wait for the running turn (or esc) first", severity="warning")
            return
        self.session = None
        chat = self.query_one(ChatView)
        await chat.remove()
        await self.query_one("#chat-column").mount(ChatView(id="chat"), before=0)
        self.query_one(NudgeBar).usage = None
        self.title = "hermes-tui — new session"
        self.notify("New session: the next message starts it with a fresh memory snapshot")

    def action_sessions(self) -> None:
        from hermes_tui.ui.screens.modals import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.resume(session_id)

        self.push_screen(SessionsScreen(self.runtime), chosen)

    @work(thread=True, exclusive=True, group="turn", exit_on_error=False)
    def resume(self, session_id: str) -> None:
        from hermes_tui.core.llm.base import ProviderNotConfigured
        from hermes_tui.core.sessions import SessionError

        try:
            self.session = self.runtime.open_session(
                session_id,
                approver=self.approve,
                command_approver=self.approve_command,
                reviewer=self.runtime.reviewer(),
            )
        except (SessionError, ProviderNotConfigured) as exc:
            self.forwarder(ev.Notice("error", str(exc)))
            return
        self.call_from_thread(self._show_resumed, self._history_items())

    def _history_items(self) -> list[tuple]:
        """The resumed conversation as the chat draws it: messages and their tool rows."""
        import json

        from hermes_tui.core.agent.loop import tool_output
        from hermes_tui.ui.widgets.chat import tool_spec

        registry = self.runtime.tool_registry()
        history = self.session.agent.history
        results = {m.tool_call_id: m.content for m in history if m.role == "tool"}
        items: list[tuple] = []
        for message in history:
            if message.role == "assistant" and getattr(message, "reasoning", ""):
                items.append(("reasoning", message.reasoning))
            if message.role in ("user", "assistant") and message.content:
                items.append((message.role, message.content))
            for call in message.tool_calls if message.role == "assistant" else ():
                try:
                    outcome = json.loads(results.get(call.id, "") or "{}")
                except json.JSONDecodeError:
                    outcome = {"output": results.get(call.id, "")}
                if not isinstance(outcome, dict):
                    outcome = {"output": str(outcome)}
                tool = registry.get(call.name)
                preview = tool.summarise(outcome) if tool else str(outcome.get("error", ""))
                parsed = call.parsed_arguments()  # {} for a call without arguments
                arguments = parsed if parsed is not None else {"_raw": call.arguments}
                ok = bool(outcome.get("success", True))
                items.append(tool_spec(call.name, arguments, ok, preview, tool_output(outcome)))
        return items

    async def _show_resumed(self, items: list[tuple]) -> None:
        await self.action_new_session_view()
        await self.query_one(ChatView).load_history(items)
        self._session_opened()
        messages = sum(1 for item in items if item[0] != "tool")
        self.notify(f"Resumed {self.session.id} ({messages} message{'' if messages == 1 else 's'})")

    async def action_new_session_view(self) -> None:
        chat = self.query_one(ChatView)
        await chat.remove()
        await self.query_one("#chat-column").mount(ChatView(id="chat"), before=0)

    def action_model(self, argument: str = "") -> None:
        """The model picker; `argument` (from /model) preselects a provider or names a model."""
        from hermes_tui.ui.screens.welcome import WelcomeScreen

        self.push_screen(WelcomeScreen(self.runtime.config, argument), self._provider_chosen)

    async def _provider_chosen(self, choice: Any) -> None:
        from hermes_tui.ui.screens.welcome import apply_choice

        runtime = apply_choice(self, choice)
        if runtime is None:
            return
        switched_home = runtime.home != self.runtime.home
        self.runtime = runtime
        self.session = None
        self.query_one(NudgeBar).usage = None
        self._show_provider()
        self.query_one(ReviewsPane).runtime = runtime
        if switched_home:
            # In or out of the demo's own home: every pane shows that home's stores.
            await self.action_new_session_view()
            self.query_one(MemoryPane).use_store(runtime.memory)
            self.query_one(SkillsPane).use_library(runtime.skills)
            self.query_one(ReviewsPane).refresh_reviews()
            if self.watch_files_enabled:
                self.watch_home()
        if runtime.is_demo:
            self._start_demo()

    def _start_demo(self) -> None:
        """The demo's task ready in the box, and where the demo keeps what it learns."""
        from hermes_tui.core.llm.demo import TASK

        box = self.query_one(ChatInput)
        if not box.text.strip():
            box.text = TASK
            box.move_cursor(box.document.end)
        self.notify(
            f"The demo learns in its own home ({self.runtime.home}); your memory and skills are "
            "untouched. Send the prepared task three times and watch the Trace, Skills and Memory "
            "panes.",
            title="Demo",
            timeout=12,
        )
