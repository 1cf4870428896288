"""The Memory pane: MEMORY and USER with usage gauges, hand edits, and the archive with restore.

Every edit goes through MemoryStore with origin "user", so limits and the threat scan apply and
a refusal's message is shown inline. Entries the agent or a review just wrote are highlighted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Collapsible, Label, ListItem, ListView, Static, TextArea

from hermes_tui.core.memory import FILENAMES, MemoryChange, MemoryStore, MemoryStoreError, Usage
from hermes_tui.core.pending import PendingStore, quarantine_line
from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuietScreen

GAUGE_WIDTH = 12


def gauge(chars: int, limit: int) -> tuple[str, str]:
    """The bar text and its severity class (-ok, -warn at 80 %, -full at 90 %).

    The percentage is the store's own (`Usage.percent`, rounded down), so the app and
    `memory show` never disagree by one.
    """
    percent = Usage(chars, limit).percent
    filled = round(percent / 100 * GAUGE_WIDTH)
    bar = "█" * filled + "░" * (GAUGE_WIDTH - filled)
    level = "-full" if percent >= 90 else "-warn" if percent >= 80 else "-ok"
    return f"{bar} {percent:3d}% {chars:,}/{limit:,}", level


class EntryEditor(QuietScreen, ModalScreen[str | None]):
    """A small editor for one entry; returns the text, or None when cancelled."""

    DEFAULT_CSS = """
    EntryEditor { align: center middle; }
    EntryEditor > Vertical { width: 80%; max-width: 100; height: auto; border: thick $primary; background: $surface; padding: 1; }
    EntryEditor TextArea { height: 8; }
    EntryEditor Horizontal { height: auto; align-horizontal: right; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save")]

    def __init__(self, title: str, text: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.initial = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield TextArea(self.initial, id="entry-text")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Save (ctrl+s)", id="save", variant="primary")

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class EntryItem(ListItem):
    DEFAULT_CSS = """
    EntryItem { padding: 0 1; height: auto; }
    EntryItem.-new { background: $success 30%; }
    EntryItem Static { height: auto; }
    """

    def __init__(self, entry: str, shown: str, fresh: bool = False) -> None:
        super().__init__(Static(neutralise(shown), markup=False), classes="-new" if fresh else "")
        self.entry, self.shown = entry, shown  # the file's text; what the screen may show


class MemorySection(Vertical):
    DEFAULT_CSS = """
    MemorySection { height: auto; margin: 0 0 1 0; }
    MemorySection .title { text-style: bold; }
    MemorySection .gauge.-ok { color: $success; }
    MemorySection .gauge.-warn { color: $warning; }
    MemorySection .gauge.-full { color: $error; }
    MemorySection ListView { height: auto; max-height: 20; border: round $panel; }
    MemorySection ListView:focus { border: round $primary; }
    MemorySection .error { color: $error; height: auto; }
    MemorySection .error.-empty { display: none; }
    """
    BINDINGS = [
        Binding("a", "add", "Add"),
        Binding("e", "edit", "Edit"),
        Binding("d", "delete", "Delete"),
    ]

    def __init__(self, store: MemoryStore, target: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = store
        self.target = target

    def compose(self) -> ComposeResult:
        yield Label(
            f"{FILENAMES[self.target]} — {'your notes' if self.target == 'memory' else 'who you are'}",
            classes="title",
        )
        yield Static("", classes="gauge")
        yield ListView()
        yield Static("", classes="error -empty", markup=False)

    def on_mount(self) -> None:
        self.refresh_entries()

    def refresh_entries(self, fresh: set[str] | None = None, select: str | None = None) -> None:
        state = self.store.read(self.target)  # type: ignore[arg-type]
        usage = self.store.usage(self.target)  # type: ignore[arg-type]
        text, level = gauge(usage.chars, usage.limit)
        bar = self.query_one(".gauge", Static)
        bar.update(text)
        bar.set_classes(f"gauge {level}")
        listing = self.query_one(ListView)
        index = listing.index
        listing.clear()
        for entry in state.entries:
            shown = self.store.shown(entry)  # a secret in it (a hand edit) shows redacted
            listing.append(EntryItem(entry, shown, fresh=bool(fresh and shown in fresh)))
        if state.drift:
            self.show_error(f"{state.drift}. Edits are refused until the file is fixed.")
        elif secrets := self.store.secrets_notice(self.target):  # type: ignore[arg-type]
            self.show_error(secrets)
        if select is not None and select in state.entries:
            listing.index = state.entries.index(select)
        elif index is not None and state.entries:
            listing.index = min(index, len(state.entries) - 1)

    def show_error(self, text: str) -> None:
        error = self.query_one(".error", Static)
        error.update(neutralise(text))
        error.set_class(not text, "-empty")

    def _selected(self) -> str | None:
        item = self._selected_item()
        return item.entry if item is not None else None

    def _selected_item(self) -> EntryItem | None:
        item = self.query_one(ListView).highlighted_child
        return item if isinstance(item, EntryItem) else None

    def _apply(self, write: Callable[[], MemoryChange], select: str | None = None) -> bool:
        """Make a write and show the store's answer (its refusal inline, a warning as a toast);
        `select` is the entry to leave selected (an add's, an edit's). True when it was made."""
        try:
            change = write()
        except MemoryStoreError as exc:
            self.refresh_entries()
            self.show_error(str(exc))  # over the file's own notice (a secret, a drift)
            return False
        self.show_error("")
        if change.warning:
            self.app.notify(change.warning, severity="warning")
        self.refresh_entries(select=select.strip() if select else None)
        return True

    def action_add(self) -> None:
        def done(text: str | None) -> None:
            if text and text.strip():
                self._apply(lambda: self.store.add(self.target, text, origin="user"), select=text)  # type: ignore[arg-type]

        self.app.push_screen(EntryEditor(f"New {FILENAMES[self.target]} entry"), done)

    def action_edit(self) -> None:
        """e: edits the entry as shown (a secret as its label; the store refuses a save that
        would write the label over the secret)."""
        item = self._selected_item()
        if item is None:
            return
        entry, shown = item.entry, item.shown

        def done(text: str | None) -> None:
            if text is not None and text.strip() and text.strip() != shown:
                self._apply(
                    lambda: self.store.replace_shown(self.target, entry, text, origin="user"),  # type: ignore[arg-type]
                    select=text,
                )

        self.app.push_screen(EntryEditor(f"Edit {FILENAMES[self.target]} entry", shown), done)

    def action_delete(self) -> None:
        """d: asks first; the entry goes to the archive, where u brings it back."""
        from hermes_tui.ui.screens.modals import ConfirmScreen

        item = self._selected_item()
        if item is None:
            return
        entry, name = item.entry, FILENAMES[self.target]

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if self._apply(lambda: self.store.remove(self.target, entry, origin="user")):  # type: ignore[arg-type]
                self.app.notify(f"Deleted from {name} (kept in the archive: u restores it)")
            self.query_one(ListView).focus()

        shown = item.shown if len(item.shown) <= 200 else item.shown[:200] + "…"
        self.app.push_screen(ConfirmScreen(f"Delete this entry from {name}?\n\n{shown}"), answered)


class ArchiveItem(ListItem):
    def __init__(self, archive_id: str, text: str) -> None:
        super().__init__(Static(neutralise(text), markup=False))
        self.archive_id = archive_id


class MemoryPane(VerticalScroll):
    DEFAULT_CSS = """
    MemoryPane { padding: 0 1; }
    MemoryPane #archive ListView { height: auto; max-height: 12; }
    MemoryPane #memory-held { color: $warning; }
    MemoryPane #memory-held.-empty { display: none; }
    """
    BINDINGS = [Binding("u", "restore", "Restore archived")]

    def __init__(self, store: MemoryStore, pending: PendingStore | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.store = store
        self.pending = pending  # held memory writes: counted in one line, never listed here

    def compose(self) -> ComposeResult:
        yield Static("", id="memory-held", classes="-empty", markup=False)
        yield MemorySection(self.store, "memory", id="memory-memory")
        yield MemorySection(self.store, "user", id="memory-user")
        with Collapsible(title="Archive (u restores)", id="archive"):
            yield ListView(id="archive-list")

    def on_mount(self) -> None:
        self.refresh_held()
        self.refresh_archive()

    @on(Collapsible.Expanded, "#archive")
    def _archive_opened(self) -> None:
        # Its list was filled while folded away (an auto height inside a hidden container):
        # laid out again as it opens. Twice in a loaded suite it showed nothing once opened.
        self.query_one("#archive-list", ListView).refresh(layout=True)

    def focus_content(self) -> None:
        """Focus MEMORY.md's entries (f2; tab reaches USER.md's) with the first highlighted, so
        a, e, d work at once."""
        listing = self.query_one("#memory-memory ListView", ListView)
        if listing.index is None and listing.children:
            listing.index = 0
        listing.focus()

    def use_store(self, store: MemoryStore) -> None:
        """Show another home's memory (the demo's own, or back to the user's)."""
        self.store = store
        for section in self.query(MemorySection):
            section.store = store
        self.refresh_all()

    def refresh_held(self) -> None:
        """The one line saying how many memory writes wait, out of the prompt (hidden at 0)."""
        held = self.pending.count("memory") if self.pending is not None else 0
        note = self.query_one("#memory-held", Static)
        note.update(f"{quarantine_line(held, 'memory write')} (/pending)" if held else "")
        note.set_class(not held, "-empty")

    def refresh_all(self, target: str | None = None, fresh: set[str] | None = None) -> None:
        self.refresh_held()
        for section in self.query(MemorySection):
            if target is None or section.target == target:
                section.refresh_entries(fresh)
        self.refresh_archive()

    def refresh_archive(self) -> None:
        listing = self.query_one("#archive-list", ListView)
        listing.clear()
        for record in self.store.archived()[:100]:
            label = (
                f"[{record.action} by {record.origin}] {FILENAMES[record.target]}: "
                f"{self.store.shown(record.entry)}"
            )
            listing.append(ArchiveItem(record.id, label))
        if listing.children:
            listing.index = 0  # the newest: u restores it without a Down first

    def action_restore(self) -> None:
        """u: opens the archive (focused on its newest entry); there, restores the highlighted
        entry."""
        archive = self.query_one("#archive", Collapsible)
        listing = self.query_one("#archive-list", ListView)
        if archive.collapsed:
            archive.collapsed = False
            listing.focus()
            if listing.children:
                self.app.notify("u again restores the highlighted entry", timeout=3)
            else:
                self.app.notify("The archive is empty", timeout=3)
            return
        item = listing.highlighted_child
        if not isinstance(item, ArchiveItem):
            empty = not listing.children
            text = "The archive is empty" if empty else "First select an entry of the archive"
            self.app.notify(text, timeout=3)
            return
        try:
            restored = self.store.restore(item.archive_id, origin="user")
        except MemoryStoreError as exc:  # already restored, or refused (full, drift)
            self.app.notify(str(exc), severity="error")
        else:
            self.app.notify(restored.message)
            if restored.warning:
                self.app.notify(restored.warning, severity="warning", timeout=10)
        self.refresh_all()
