"""Small modals: dangerous-command approval, sessions browser, pending writes, help."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ListItem, ListView, Markdown, Static
from textual_diff_view import DiffView

from hermes_tui.core.pending import why_held
from hermes_tui.core.text import neutralise
from hermes_tui.core.tools.approvals import carried_labels, shown_command
from hermes_tui.ui.textual_compat import QuietScreen

Decision = Literal["once", "session", "deny"]


COMMAND_LINES_SHOWN = 8  # the command box's height before it scrolls


class ApprovalScreen(QuietScreen, ModalScreen[Decision]):
    """Asked from the turn's worker thread; the worker waits for the answer.

    `prefixes`: what "a" would allow, in the core's words ("rm on /srv/x", "write_file on
    /srv/notes.md"); with none (the core cannot name a grant) there is no session answer,
    only once or no.
    """

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical { width: 90%; max-width: 110; height: auto; max-height: 100%; border: thick $warning; background: $surface; padding: 1 2; }
    ApprovalScreen #approval-body { height: auto; max-height: 14; }
    ApprovalScreen .command { background: $panel; padding: 0 1; margin: 1 0; height: auto; max-height: 8; overflow-y: auto; }
    ApprovalScreen .reason, ApprovalScreen .scope { height: auto; }
    ApprovalScreen .scope { color: $text-muted; }
    ApprovalScreen Horizontal { height: auto; align-horizontal: right; margin: 1 0 0 0; }
    ApprovalScreen Button { margin: 0 0 0 1; }
    """
    BINDINGS = [
        Binding("y", "once", "Allow once"),
        Binding("a", "session", "Allow for session"),
        Binding("n,escape", "deny", "Deny"),
    ]

    def __init__(
        self,
        command: str,
        reason: str,
        prefixes: tuple[str, ...] = (),
        asker: str = "The agent wants",
        redact: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self.command, self.reason, self.prefixes = command, reason, prefixes
        self.asker = asker  # "You want" for the user's own `!command`
        # Known secrets shown by their label (the command runs with the value itself).
        self.redact = redact or (lambda text: text)

    def session_scope(self) -> str | None:
        """What "a" allows for the rest of the session, in words; None when it is not offered."""
        # The core's words for what it grants: the same prefix, kind of risk and target
        # ("rm on /srv/x"), never the bare program name.
        return ", ".join(map(self.redact, self.prefixes)) if self.prefixes else None

    def compose(self) -> ComposeResult:
        scope = self.session_scope()
        with Vertical():
            # The command and reason scroll; the choices below them are always on screen
            # (at 80x24 too), each with a short label: what "a" allows is said above them.
            body = VerticalScroll(id="approval-body")
            body.can_focus = False  # the first choice has the focus: enter denies
            with body:
                yield Static(f"{self.asker} to run:", markup=False)
                shown = shown_command(self.redact(self.command))
                yield Static(neutralise(shown), classes="command", markup=False)
                if (lines := shown.count("\n") + 1) > COMMAND_LINES_SHOWN:
                    yield Static(f"({lines} lines: scroll the box to read them all)")
                if carried := carried_labels(shown):
                    yield Static(
                        neutralise(
                            f"It carries your {', '.join(carried)}: shown here by name, the "
                            "command runs with the value itself."
                        ),
                        classes="reason",
                        markup=False,
                    )
                yield Static(
                    neutralise(f"It needs your approval: {self.reason}."),
                    classes="reason",
                    markup=False,
                )
                if scope is not None:
                    yield Static(
                        neutralise(f"a: always allow {scope} this session"),
                        classes="scope",
                        markup=False,
                    )
            with Horizontal():
                yield Button("Deny (n)", id="deny", variant="error")
                if scope is not None:
                    yield Button("This session (a)", id="session")
                yield Button("Allow once (y)", id="once", variant="warning")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)  # type: ignore[arg-type]

    def action_once(self) -> None:
        self.dismiss("once")

    def action_session(self) -> None:
        if self.prefixes:
            self.dismiss("session")

    def action_deny(self) -> None:
        self.dismiss("deny")


class SessionItem(ListItem):
    def __init__(self, session_id: str, text: str) -> None:
        super().__init__(Static(neutralise(text), markup=False))
        self.session_id = session_id


class SessionsScreen(QuietScreen, ModalScreen[str | None]):
    """Past sessions with full-text search, one line per session; Enter resumes one."""

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical { width: 90%; height: 85%; border: thick $primary; background: $surface; }
    SessionsScreen ListView { height: 1fr; }
    /* A long title is cut to its line with an ellipsis, never wrapped onto the next. */
    SessionsScreen SessionItem Static { text-wrap: nowrap; text-overflow: ellipsis; }
    SessionsScreen .hint { color: $text-muted; }
    SessionsScreen #session-rename { display: none; }
    SessionsScreen #session-rename.-visible { display: block; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+r", "rename", "Rename"),
        Binding("ctrl+d", "delete", "Delete"),
        Binding("down", "to_list", "List", show=False),
    ]

    def __init__(self, runtime: Any) -> None:
        super().__init__()
        self.runtime = runtime

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Sessions — type to search all messages; enter resumes")
            yield Static(
                "ctrl+r renames, ctrl+d deletes the selected session; esc closes",
                classes="hint",
            )
            yield Input(placeholder="search (FTS5)…", id="session-query")
            yield Input(placeholder="new title, enter saves", id="session-rename")
            yield ListView(id="session-list")

    async def on_mount(self) -> None:
        await self._fill("")

    @on(Input.Changed, "#session-query")
    async def _search(self, event: Input.Changed) -> None:
        await self._fill(event.value)

    @on(Input.Submitted, "#session-query")
    def _resume_first(self) -> None:
        """Enter in the search box resumes the highlighted (at first, the best) session."""
        chosen = self._selected()
        if chosen is not None:
            self.dismiss(chosen)

    def action_to_list(self) -> None:
        if isinstance(self.focused, Input) and self.focused.id == "session-query":
            self.query_one(ListView).focus()

    async def _fill(self, query: str, select: str | None = None) -> None:
        listing = self.query_one(ListView)
        store = self.runtime.catalog  # ours and Hermes' (read-only)
        items: list[ListItem] = []
        if query.strip():
            for match in store.search_sessions(query, limit=50):
                more = f" (+{match.hits - 1} more)" if match.hits > 1 else ""
                title = " ".join((match.title or "").split()) or "untitled"
                items.append(
                    SessionItem(
                        match.session_id,
                        f"{match.session_id}  {title}\n    {match.best.role}: "
                        f"{match.best.snippet}{more}",
                    )
                )
            if not items:
                items.append(ListItem(Static("No session matches.")))
        else:
            for entry in store.list(100):
                info = entry.info
                mark = f"  [Hermes {entry.source}]" if entry.origin == "hermes" else ""
                title = " ".join((info.title or "").split())
                items.append(
                    SessionItem(info.id, f"{info.id}  {info.message_count:>4} msgs  {title}{mark}")
                )
        await listing.clear()
        await listing.extend(items)
        ids = [getattr(item, "session_id", None) for item in items]
        listing.index = ids.index(select) if select in ids else 0 if items else None

    def _selected(self) -> str | None:
        item = self.query_one(ListView).highlighted_child
        return item.session_id if isinstance(item, SessionItem) else None

    @on(ListView.Selected)
    def _chosen(self, event: ListView.Selected) -> None:
        if isinstance(event.item, SessionItem):
            self.dismiss(event.item.session_id)

    def action_rename(self) -> None:
        chosen = self._selected()
        if chosen is None:
            return
        box = self.query_one("#session-rename", Input)
        box.value = self.runtime.sessions.get(chosen).title
        box.add_class("-visible")
        box.focus()

    @on(Input.Submitted, "#session-rename")
    async def _renamed(self, event: Input.Submitted) -> None:
        from hermes_tui.core.sessions import SessionError

        chosen = self._selected()
        event.input.remove_class("-visible")
        if chosen is None:
            return
        try:
            self.runtime.sessions.rename(chosen, event.value)
        except SessionError as exc:
            self.app.notify(str(exc), severity="error")
            return
        if (turn := getattr(self.app, "turn", None)) is not None:
            turn.show_title()  # the open session renamed: the window says so
        await self._refill(chosen)

    def action_delete(self) -> None:
        chosen = self._selected()
        if chosen is None:
            return
        current = getattr(self.app, "session", None)
        if current is not None and current.id == chosen:
            self.app.notify(
                "That is the open session: start a new one (ctrl+n) first", severity="warning"
            )
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                self.runtime.sessions.delete(chosen)
                self.app.notify(f"Deleted session {chosen}")
                await self._refill(None)

        self.app.push_screen(
            ConfirmScreen(f"Delete session {chosen} and all its messages? This cannot be undone."),
            answered,
        )

    async def _refill(self, select: str | None) -> None:
        await self._fill(self.query_one("#session-query", Input).value, select)
        self.query_one(ListView).focus()

    def action_close(self) -> None:
        self.dismiss(None)


class PendingItem(ListItem):
    def __init__(self, record: Any) -> None:
        super().__init__(
            Static(
                neutralise(f"{record.id}  {record.kind} {record.target} {record.action}"),
                markup=False,
            )
        )
        self.record = record


class PendingScreen(QuietScreen, ModalScreen[None]):
    """Staged writes (write approval, taint, scanner holds): why, diff, then accept or reject."""

    DEFAULT_CSS = """
    PendingScreen { align: center middle; }
    PendingScreen > Vertical { width: 95%; height: 90%; border: thick $primary; background: $surface; }
    PendingScreen #pending-list { height: 8; }
    PendingScreen VerticalScroll { height: 1fr; }
    PendingScreen .pending-why { color: $warning; margin-bottom: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("y", "accept", "Accept"),
        Binding("n", "reject", "Reject"),
    ]

    def __init__(self, runtime: Any) -> None:
        super().__init__()
        self.runtime = runtime

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Pending writes (reviews, held or tainted writes) — y accepts, n rejects")
            yield ListView(id="pending-list")
            yield VerticalScroll(id="pending-diff")

    def on_mount(self) -> None:
        self._fill()

    def _fill(self) -> None:
        listing = self.query_one(ListView)
        listing.clear()
        records = self.runtime.pending.list()
        for record in records:
            listing.append(PendingItem(record))
        if records:
            listing.index = 0
        else:
            listing.append(
                ListItem(Static("Nothing is waiting for approval (reviews wrote directly)."))
            )

    @on(ListView.Highlighted)
    async def _show(self, event: ListView.Highlighted) -> None:
        container = self.query_one("#pending-diff", VerticalScroll)
        await container.remove_children()
        if isinstance(event.item, PendingItem):
            record = event.item.record
            why = why_held(record)
            if why:
                await container.mount(
                    Static(neutralise("\n".join(why)), markup=False, classes="pending-why")
                )
            await container.mount(
                DiffView(
                    "now",
                    "after approval",
                    neutralise(record.before or ""),
                    neutralise(record.after or ""),
                    split=False,
                    annotations=True,
                    wrap=True,  # its lines would scroll sideways with no bar: cut, unmarked
                )
            )

    def _selected(self) -> Any:
        item = self.query_one(ListView).highlighted_child
        return item.record if isinstance(item, PendingItem) else None

    def action_accept(self) -> None:
        from hermes_tui.core.pending import PendingError, PendingRefused

        record = self._selected()
        if record is None:
            return
        try:
            self.runtime.approve_pending(record.id)
        except PendingRefused as exc:
            self.app.notify(str(exc), severity="error")
        except PendingError as exc:
            self.app.notify(str(exc), severity="error", timeout=8)
            return
        else:
            self.app.notify(f"Applied {record.kind} {record.target}")
        self._fill()

    def action_reject(self) -> None:
        record = self._selected()
        if record is not None:
            self.runtime.pending.reject(record.id)
            self.app.notify("Rejected (kept in pending/.rejected)")
            self._fill()

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(QuietScreen, ModalScreen[bool]):
    """A yes/no question about something that would be lost; n or escape says no."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 80%; max-width: 90; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; margin: 1 0 0 0; }
    """
    BINDINGS = [Binding("y", "yes", "Yes"), Binding("n,escape", "no", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(neutralise(self.question), markup=False)
            with Horizontal():
                yield Button("No (n)", id="no")
                yield Button("Yes (y)", id="yes", variant="warning")

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


HELP = """# hermes-tui

| key | does |
|---|---|
| enter | send the message |
| ctrl+j, shift+enter | new line in the message |
| up, down (empty box) | earlier messages |
| alt+p | expand collapsed pastes ([Pasted N lines #k]) in the message box |
| tab | complete a slash command, or its argument (/theme NAME, /model PROVIDER) |
| shift+tab | next approval mode: sandboxed, strict, plan (yolo only by /mode yolo) |
| esc | cancel the running turn (what streamed is kept); from a pane, back to the message box |
| esc esc | on an empty message box: rewind (as /rewind) |
| alt+up | focus the newest message (up, down move through messages and tool rows; **c** copies the message or the row's output; enter, space expand a tool row; esc back) |
| ctrl+c | copy the selection; else clear the message box (up brings it back); else cancel the running turn; twice quits |
| ctrl+r | search past messages in the box (ctrl+r again: older; enter takes it; esc back) |
| !command | run a shell command through the terminal tool; its output goes with your next message |
| ctrl+q | quit |
| ctrl+n | new session |
| ctrl+o | sessions: search and resume (ctrl+r renames, ctrl+d deletes) |
| ctrl+p | command palette (themes, panes, actions) |
| ctrl+b | hide or show the side panel |
| alt+left, alt+right | widen, narrow the side panel |
| f1, f2, f3, f4 | Trace, Memory, Skills, Reviews: the pane takes the focus, so its keys work at once; the same key again goes back to the message box |
| f5 | insights over time (d switches 7/30/90 days) |
| f10 | this help |

{commands}

Trace pane: **c** copies the selected call.
Memory pane: **a** add, **e** edit, **d** delete (asks first), **u** opens the archive, **u** again restores.
Skills pane: **p** pin, **x** archive, **r** restore, **h** history, **e** edit, **n** new, **i** install.
Reviews pane: **[** **]** choose a change, **z** undo it.
"""


def commands_table(commands: Mapping[str, str]) -> str:
    """The slash commands (built-in and the user's) as a Markdown table, from their help."""
    rows = "".join(
        f"| {neutralise(name)} | {neutralise(' '.join(text.split())).replace('|', '/')} |\n"
        for name, text in commands.items()
    )
    return "| command | does |\n|---|---|\n" + rows + "| /<skill-name> [request] | load a skill |\n"


class HelpScreen(QuietScreen, ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 95%; height: 85%; border: thick $primary; background: $surface; }
    """
    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, commands: Mapping[str, str] | None = None) -> None:
        super().__init__()
        from hermes_tui.ui.widgets.input import SLASH_COMMANDS

        self.commands = SLASH_COMMANDS if commands is None else commands

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP.replace("{commands}", commands_table(self.commands)))

    def action_close(self) -> None:
        self.dismiss(None)
