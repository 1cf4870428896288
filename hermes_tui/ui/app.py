"""HermesApp: the full-screen face over the same Runtime the CLI uses (DESIGN.md section 10).

The app composes the screen, binds keys and runs actions. A turn (its session, cancel event,
event delivery with back-pressure, and approvals) belongs to `TurnController` (ui/turn.py);
core events reach the widgets through ui/dispatch.py; user intent goes to the core through the
session and the stores' public methods.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TypeVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Header, TabbedContent, TabPane

from hermes_tui.core.text import neutralise
from hermes_tui.ui import modes, switch
from hermes_tui.ui import textual_compat as compat
from hermes_tui.ui.collector import Collector
from hermes_tui.ui.housekeeping import Housekeeping
from hermes_tui.ui.rewind import Rewinder
from hermes_tui.ui.text import pasted
from hermes_tui.ui.turn import ApprovalAsked, EventForwarder, EventsWaiting, TurnController
from hermes_tui.ui.turn import resolve_answer as resolve
from hermes_tui.ui.widgets.chat import AssistantMessage, ChatView
from hermes_tui.ui.widgets.copyable import CopyableMessage
from hermes_tui.ui.widgets.input import ChatInput, SlashHints
from hermes_tui.ui.widgets.main_area import PANES, MainArea, fit_panel, show_pane
from hermes_tui.ui.widgets.memory_pane import MemoryPane
from hermes_tui.ui.widgets.mentions import MentionHints
from hermes_tui.ui.widgets.nudge_bar import NudgeBar
from hermes_tui.ui.widgets.reviews_pane import ReviewsPane
from hermes_tui.ui.widgets.skills_pane import SkillsPane
from hermes_tui.ui.widgets.todo import TodoPanel
from hermes_tui.ui.widgets.trace import TracePane

W = TypeVar("W", bound=Widget)

TERMINAL_GONE = 129  # exit status when the terminal hung up (128 + SIGHUP, as a shell reports it)


class HermesApp(compat.SafeCrashOutput, compat.SafeTerminalInput, compat.QuietScreens, App):
    TITLE = "hermes-tui"
    CSS_PATH = "app.tcss"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", show=True, priority=False),
        # Priority, so it reaches the app from the message box too; it still copies a selection.
        Binding("ctrl+c", "interrupt", "Cancel · twice quits", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_panel", "Panel"),
        Binding("shift+tab", "cycle_mode", "Mode", show=False, priority=True),  # ui/modes.py
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
        self.housekeeping = Housekeeping(self, collector)
        self.runtime = runtime
        self.forwarder = forwarder
        self.turn = TurnController(self, forwarder)
        self.rewinder = Rewinder(self)
        self.watch_files_enabled = watch_files
        self.resume_on_start = resume
        self._last_interrupt = 0.0
        self._parts: dict[type, Any] = {}
        self.saved_theme: str | None = None  # the theme in config.yaml, once themes are loaded
        self.retired: list[Any] = []  # runtimes replaced while a turn used them: closed after

    @property
    def session(self) -> Any:
        """The conversation on screen (None before the first message)."""
        return self.turn.session

    def part(self, kind: type[W]) -> W:
        """The main screen's one widget of `kind` (the chat, the bar, a pane), found once:
        events arrive many times a second while a reply streams, and a query walks the DOM."""
        found = self._parts.get(kind)
        if found is None or not found.is_attached:
            found = self._parts[kind] = self.query_one(kind)
        return found

    def notify(self, message: str, *, title: str = "", **options: Any) -> None:
        """Every toast carries outside text (skill names, review summaries, errors): shown
        literally, whatever `markup` a caller asks for (severity and timeout pass through)."""
        options["markup"] = False
        super().notify(neutralise(message), title=neutralise(title), **options)

    # ---- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with MainArea(id="main"):
            with Vertical(id="chat-column"):
                yield ChatView(id="chat")
                yield TodoPanel(id="todo")
                yield SlashHints(id="slash-hints")
                yield MentionHints(id="mention-hints")
                yield ChatInput(id="chat-input")
            with TabbedContent(id="side", initial="memory"):
                with TabPane(PANES["trace"], id="trace"):
                    yield TracePane(id="trace-pane")
                with TabPane(PANES["memory"], id="memory"):
                    yield MemoryPane(self.runtime.memory, self.runtime.pending, id="memory-pane")
                with TabPane(PANES["skills"], id="skills"):
                    yield SkillsPane(
                        self.runtime.skills, self.runtime.skill_installer, id="skills-pane"
                    )
                with TabPane(PANES["reviews"], id="reviews"):
                    yield ReviewsPane(self.runtime, id="reviews-pane")
        yield NudgeBar(id="nudge-bar")
        yield compat.QuietFooter()

    def on_load(self) -> None:
        from hermes_tui.ui.themes import install_themes

        install_themes(self)  # before anything is styled: styled once, in its colours

    def on_mount(self) -> None:
        from hermes_tui.ui.outgoing import past_messages
        from hermes_tui.ui.screens.welcome import NAMES as PROVIDER_NAMES

        self.query_one(ChatInput).past_messages = lambda: past_messages(self)
        self.query_one(ChatInput).argument_choices = {
            "/theme": sorted(self.available_themes),
            "/model": PROVIDER_NAMES,
            "/curator": ["dry"],
            "/mcp": ["reload"],
            "/mode": list(modes.APPROVAL_MODES),
        }
        self.post_message(EventsWaiting())  # whatever the runtime said before the app existed
        switch.report_unused_keys(self)
        switch.show_provider(self)
        self.panel_width = self.runtime.config.display.panel_width
        fit_panel(self)
        bar = self.query_one(NudgeBar)
        bar.memory_interval = self.runtime.config.memory.nudge_interval
        bar.skills_interval = self.runtime.config.skills.creation_nudge_interval
        self.query_one(ChatInput).focus()
        if not self.is_headless:
            from hermes_tui.ui.terminal import watch_terminal

            watch_terminal(sys.__stdin__.fileno(), self.terminal_gone)
        switch.first_screen(self, self.resume_on_start)
        self.housekeeping.start()

    def watch_panel_width(self, width: int) -> None:
        fit_panel(self)

    @on(MainArea.Resized)
    def _main_resized(self) -> None:
        fit_panel(self)

    def watch_theme(self, theme: str) -> None:
        from hermes_tui.ui.themes import save_theme

        save_theme(self, theme)

    # ---- sending -------------------------------------------------------------------------

    @on(ChatInput.Submitted)
    async def _submitted(self, event: ChatInput.Submitted) -> None:
        text = event.text.strip()
        if not text:
            return
        if text[0] in "/!":  # a command, or the user's own shell command
            from hermes_tui.ui.slash import run_shell, run_slash

            await (run_slash if text[0] == "/" else run_shell)(self, text)
            return
        if self.turn_running:
            self.notify(
                "A turn is running: wait for it or press esc to cancel it", severity="warning"
            )
            return
        from hermes_tui.ui.outgoing import attach_mentions

        shown, text = text, attach_mentions(self, text)
        if text is None:
            return
        await self.query_one(ChatView).add_user(shown)
        self.turn.start(text, title=event.typed)

    @on(AssistantMessage.Grew)
    def _reply_grew(self, message: AssistantMessage.Grew) -> None:
        self.turn.reply_grew(message.reply)

    @on(EventsWaiting)
    async def _events_waiting(self) -> None:
        await self.turn.events_waiting()

    @on(ApprovalAsked)
    def _approval_asked(self, message: ApprovalAsked) -> None:
        answer = message.answer
        if not answer.done():  # not already denied by a cancel
            self.push_screen(message.screen, lambda decision: resolve(answer, decision or "deny"))

    def turn_ended(self) -> None:
        switch.close_retired(self)
        self.housekeeping.collect_if_settled()

    @on(AssistantMessage.Settled)
    def _collect_if_settled(self) -> None:
        self.housekeeping.collect_if_settled()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollUp, events.Paste)):
            self.housekeeping.input_seen()  # garbage is collected when the user pauses
        if isinstance(event, events.Paste):
            event.text = pasted(event.text)  # every widget gets a paste with controls visible
        await super().on_event(event)

    def action_cancel_turn(self) -> None:
        """esc: cancel the running turn; from a pane or the chat, back to the message box."""
        if self.turn_running:
            self.turn.stop()
            self.notify("Cancelling: the turn stops after the current chunk or tool", timeout=3)
        if isinstance(self.focused, ChatInput):
            self.query_one(SlashHints).hide()
            self.query_one(MentionHints).hide()
            self.rewinder.escape(self.focused.text)  # esc esc on an empty box: /rewind
        else:
            self.query_one(ChatInput).focus()

    async def action_interrupt(self) -> None:
        """ctrl+c: copy a selection; else clear the message box; else cancel the turn; twice quits."""
        focused = self.focused
        selected = getattr(focused, "selected_text", "") if focused is not None else ""
        if selected:
            self.copy_to_clipboard(selected)
            return
        screen_selection = self.screen.get_selected_text()
        if screen_selection:
            self.copy_to_clipboard(screen_selection)
            return
        if isinstance(focused, ChatInput) and focused.clear_draft():
            return
        now = time.monotonic()
        if self.turn_running and not self.turn.cancel.is_set():
            self._last_interrupt = now
            self.turn.stop()
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

    def check_curator(self) -> None:
        self.housekeeping.check_curator()

    def watch_turn_running(self, running: bool) -> None:
        if not running:
            self.housekeeping.turn_ended()

    def action_insights(self) -> None:
        from hermes_tui.ui.screens.insights import InsightsScreen

        self.push_screen(InsightsScreen(self.runtime))

    def terminal_gone(self) -> None:
        """The terminal hung up: stop the turn, reviews' wait and MCP servers, and leave."""
        from hermes_tui.ui.terminal import exit_after

        exit_after(5.0, TERMINAL_GONE)  # in case Textual's shutdown blocks on the dead terminal
        self.housekeeping.stop_watch.set()
        self.turn.stop()
        self.runtime.close()
        self.exit(return_code=TERMINAL_GONE)

    async def action_quit(self) -> None:
        self.housekeeping.stop_watch.set()
        self.turn.stop()
        self.runtime.close()
        await super().action_quit()

    # ---- actions -------------------------------------------------------------------------

    def get_system_commands(self, screen: Any):
        """The command palette: Textual's own (themes, keys, quit) plus panes and slash actions."""
        from hermes_tui.ui.slash import palette_commands

        yield from super().get_system_commands(screen)
        yield from palette_commands(self, PANES)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # shift+tab switches the mode on the main screen only; in a dialog it moves focus back.
        return action != "cycle_mode" or len(self.screen_stack) == 1

    def action_cycle_mode(self) -> None:
        modes.cycle_mode(self)

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
        """Show a pane and focus its content; the same key again, from it, leaves it."""
        show_pane(self, pane)

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

        self.push_screen(HelpScreen(self.query_one(ChatInput).commands))

    async def action_new_session(self) -> None:
        if self.turn_running:
            self.notify("Wait for the running turn (or esc) first", severity="warning")
            return
        self.turn.forget_session()
        await self.action_new_session_view()
        self.query_one(NudgeBar).new_session()
        self.title = "hermes-tui — new session"
        self.notify("New session: the next message starts it with a fresh memory snapshot")

    def action_sessions(self) -> None:
        from hermes_tui.ui.screens.modals import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.resume(session_id)

        self.push_screen(SessionsScreen(self.runtime), chosen)

    def resume(self, session_id: str) -> None:
        self.turn.resume(session_id)

    async def action_new_session_view(self) -> None:
        chat = self.query_one(ChatView)
        await chat.remove()
        await self.query_one("#chat-column").mount(ChatView(id="chat"), before=0)

    def action_model(self, argument: str = "") -> None:
        """The model picker; `argument` (from /model) preselects a provider or names a model."""
        from hermes_tui.ui.screens.welcome import WelcomeScreen

        self.push_screen(WelcomeScreen(self.runtime.config, argument), self._provider_chosen)

    async def _provider_chosen(self, choice: Any) -> None:
        from hermes_tui.ui import switch
        from hermes_tui.ui.screens.welcome import apply_choice

        runtime = apply_choice(self, choice)
        if runtime is not None:
            await switch.use_runtime(self, runtime)
