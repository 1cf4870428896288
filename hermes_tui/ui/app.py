"""HermesApp: the full-screen face over the same Runtime the CLI uses (DESIGN.md section 10).

The app composes the screen, binds keys and runs actions. A turn (its session, cancel event,
event delivery with back-pressure, and approvals) belongs to `TurnController` (ui/turn.py);
core events reach the widgets through ui/dispatch.py; user intent goes to the core through the
session and the stores' public methods.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TypeVar

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Footer, Header, TabbedContent, TabPane

from hermes_tui.core.text import neutralise
from hermes_tui.core.transcript import Said, TranscriptItem
from hermes_tui.ui import switch, textual_compat
from hermes_tui.ui.collector import Collector
from hermes_tui.ui.housekeeping import Housekeeping
from hermes_tui.ui.turn import ApprovalAsked, EventForwarder, EventsWaiting, TurnController
from hermes_tui.ui.turn import resolve_answer as resolve
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


class MainArea(Horizontal):
    """The chat and the side panel. Says when its size changes: the app's own Resize event
    stops inside Textual, so this is how the panel learns that the window grew."""

    class Resized(Message):
        pass

    def on_resize(self) -> None:
        self.post_message(self.Resized())


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
        self.housekeeping = Housekeeping(self, collector)
        self.runtime = runtime
        self.forwarder = forwarder
        self.turn = TurnController(self, forwarder)
        self.watch_files_enabled = watch_files
        self.resume_on_start = resume
        self._last_interrupt = 0.0
        self._chat_box: ChatInput | None = None  # found once: toasts are lifted above it
        self._parts: dict[type, Any] = {}
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
        from hermes_tui.ui.themes import install_themes

        install_themes(self)
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
        switch.show_provider(self)
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
            switch.start_demo(self)
        if self.runtime.config.curator.enabled:
            self.housekeeping.curate_if_due()
        # A session left open for days still gets its curator pass when it falls due.
        self.set_interval(self.CURATOR_CHECK_INTERVAL, self.check_curator)
        # The first reply must not pay for the Markdown renderer's lazy imports (Pygments and
        # a lexer: tens of ms, more while a fast stream's thread holds the GIL).
        self.call_after_refresh(self.set_timer, WARM_UP_DELAY, self._warm_up_markdown)
        if collector := self.housekeeping.collector:  # once the first screen is up: for good
            self.call_after_refresh(collector.start)
        if self.runtime.config.mcp_servers:
            # Half a second after the first frame, on a thread: the first screen never waits
            # for a server (their processes and the SDK's import would otherwise compete with it
            # for the CPU); connecting takes seconds anyway.
            self.call_after_refresh(self.set_timer, MCP_START_DELAY, self._start_mcp)

    def _warm_up_markdown(self) -> None:
        from hermes_tui.ui.markdown_lines import markdown_style, warm_up

        warm_up(markdown_style(self))

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
        box = self._chat_box
        if box is None or box.screen is not screen or not box.is_attached:
            boxes = screen.query(ChatInput)
            if not boxes:
                return
            box = self._chat_box = boxes.first()
        textual_compat.lift_toasts(screen, max(1, screen.size.height - box.region.y))

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
        from hermes_tui.ui.outgoing import attach_mentions

        shown, text = text, attach_mentions(self, text)
        if text is None:
            return
        await self.query_one(ChatView).add_user(shown)
        self.turn.start(text)

    def workdir(self) -> tuple[Path, Path]:
        """The conversation's working directory and current directory (where `@` looks)."""
        from hermes_tui.ui.outgoing import workdir

        return workdir(self)

    def streaming_reply(self) -> AssistantMessage | None:
        return self.part(ChatView).current

    @on(AssistantMessage.Grew)
    def _reply_grew(self, message: AssistantMessage.Grew) -> None:
        self.turn.reply_grew(message.reply, self.part(ChatView).current)

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
        await super().on_event(event)

    def session_opened(self, session: Any) -> None:
        self.title = f"hermes-tui — {session.id}"
        bar = self.query_one(NudgeBar)
        snapshot = session.nudges.snapshot()
        bar.memory, bar.memory_interval = snapshot.memory, snapshot.memory_interval
        bar.skills, bar.skills_interval = snapshot.skills, snapshot.skills_interval
        bar.usage = session.usage()  # a resumed session's totals so far

    def action_cancel_turn(self) -> None:
        """esc: cancel the running turn; from a pane or the chat, back to the message box."""
        if self.turn_running:
            self.turn.stop()
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

    # ---- core events ---------------------------------------------------------------------

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
        self.housekeeping.check_curator()

    def watch_turn_running(self, running: bool) -> None:
        if not running:
            self.housekeeping.turn_ended()

    def watch_home(self) -> None:
        self.housekeeping.watch_home()

    def _start_mcp(self) -> None:
        self.run_worker(self.runtime.start_mcp, thread=True, group="mcp", exit_on_error=False)

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
        self.turn.forget_session()
        await self.action_new_session_view()
        self.query_one(NudgeBar).usage = None
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

    async def show_resumed(self, items: list[TranscriptItem]) -> None:
        await self.action_new_session_view()
        await self.query_one(ChatView).load_history(items)
        said = sum(1 for item in items if isinstance(item, Said))
        self.notify(f"Resumed {self.session.id} ({said} message{'' if said == 1 else 's'})")

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
