"""The rewind dialog: the conversation's turns, newest first, and what rewinding to before the
highlighted one would do to the files (a diff per file), with the choice of files, the
conversation, or both. The plans come from the core (core/checkpoints.py); this only shows them
and says what the user chose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, ListItem, ListView, Static

from hermes_tui.core.checkpoints import CheckpointError, RewindPlan
from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import ago
from hermes_tui.ui.textual_compat import QuietScreen
from hermes_tui.ui.widgets.diff import DiffBlock, diff_stat

What = Literal["both", "files", "conversation"]
NOT_TRACKED = (
    "Only edits made with write_file and patch are tracked: what commands run in the terminal "
    "changed stays as it is."
)


@dataclass(frozen=True)
class RewindChoice:
    plan: RewindPlan
    what: What


class TurnItem(ListItem):
    def __init__(self, turn: Any) -> None:
        said = " ".join(turn.text.split())
        first_line = said if len(said) <= 70 else said[:69] + "…"
        files = f" · {len(turn.files)} file{'' if len(turn.files) == 1 else 's'}"
        super().__init__(
            Label(
                neutralise(f"{turn.number:>3}  {first_line}  ({ago(turn.at)}{files})"),
                markup=False,
            )
        )
        self.turn = turn


class RewindScreen(QuietScreen, ModalScreen[RewindChoice | None]):
    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    RewindScreen > Vertical { width: 90%; max-width: 140; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    RewindScreen #rewind-turns { height: 1fr; max-height: 12; border: round $panel; }
    RewindScreen #rewind-turns:focus { border: round $accent; }
    RewindScreen #rewind-preview { height: 2fr; border: round $panel; }
    RewindScreen .note { color: $text-muted; height: auto; }
    RewindScreen .warning { color: $warning; height: auto; }
    RewindScreen Horizontal { height: auto; align-horizontal: right; }
    RewindScreen Button { min-width: 12; margin: 0 0 0 1; }
    """
    BINDINGS = [
        Binding("b", "choose('both')", "Files and conversation"),
        Binding("f", "choose('files')", "Files only"),
        Binding("c", "choose('conversation')", "Conversation only"),
        Binding("escape", "close", "Cancel"),
    ]

    def __init__(self, checkpoints: Any) -> None:
        super().__init__()
        self.checkpoints = checkpoints
        self.plan: RewindPlan | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rewind to before a turn", markup=False)
            yield ListView(
                *(TurnItem(turn) for turn in reversed(self.checkpoints.turns())),
                id="rewind-turns",
            )
            yield VerticalScroll(id="rewind-preview")
            yield Static(NOT_TRACKED, classes="note", markup=False)
            with Horizontal():
                yield Button("Files + conversation (b)", id="both", variant="primary")
                yield Button("Files (f)", id="files")
                yield Button("Conversation (c)", id="conversation")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        turns = self.query_one("#rewind-turns", ListView)
        turns.focus()
        if turns.children:
            turns.index = 0

    @on(ListView.Highlighted, "#rewind-turns")
    async def _show(self, event: ListView.Highlighted) -> None:
        if not isinstance(event.item, TurnItem):
            return
        preview = self.query_one("#rewind-preview", VerticalScroll)
        await preview.remove_children()
        try:
            self.plan = self.checkpoints.plan(event.item.turn.number)
        except (CheckpointError, OSError) as exc:
            self.plan = None
            await preview.mount(Static(neutralise(str(exc)), classes="warning", markup=False))
            return
        parts: list[Any] = []
        changes = [f for f in self.plan.files if f.needed or not f.restorable]
        if not changes:
            parts.append(Static("No file to restore: the files are as they were.", markup=False))
        for item in changes:
            if item.refused:  # a link on its path: left alone, and said why
                parts.append(Static(neutralise(item.diff()), classes="warning", markup=False))
                continue
            diff = item.diff()
            added, removed = diff_stat(diff)
            action = "delete (the agent created it)" if item.target is None else "restore"
            head = f"{item.path}: {action}  +{added} −{removed}"
            if item.changed_since:
                head += "  ⚠ changed since the agent's edit (by hand or a command)"
            if item.asks:
                head += f"  ⚠ asked first: {item.asks}"
            warn = item.changed_since or bool(item.asks)
            parts.append(Static(neutralise(head), classes="warning" if warn else "", markup=False))
            parts.append(DiffBlock(diff))
        await preview.mount_all(parts)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        elif event.button.id in ("both", "files", "conversation"):
            self.action_choose(event.button.id)

    def action_choose(self, what: str) -> None:
        if self.plan is not None:
            self.dismiss(RewindChoice(self.plan, what))  # type: ignore[arg-type]

    def action_close(self) -> None:
        self.dismiss(None)
