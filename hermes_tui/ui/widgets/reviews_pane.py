"""The Reviews pane: every background review with its changes as diffs, and undo.

Its widgets are made, and the reviews read, the first time the pane is shown (a hidden pane
costs nothing at start-up); a review that finishes before then is listed when it is."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, ListItem, ListView, Static
from textual_diff_view import DiffView

from hermes_tui.core.agent.undo import UndoError, UndoNeedsConfirmation, undo_change
from hermes_tui.core.events import ReviewChange
from hermes_tui.core.text import neutralise


class ReviewItem(ListItem):
    def __init__(self, record: Any) -> None:
        when = datetime.fromtimestamp(record.started_at).strftime("%m-%d %H:%M")
        super().__init__(
            Static(
                neutralise(f"{when} {record.kind:<8} {record.status:<7} {record.summary}"),
                markup=False,
            )
        )
        self.record = record


class ChangeView(Vertical):
    DEFAULT_CSS = """
    ChangeView { height: auto; margin: 0 0 1 0; border: round $panel; }
    ChangeView.-selected { border: round $accent; }
    ChangeView.-undone Label { color: $text-muted; text-style: strike; }
    ChangeView Label { padding: 0 1; width: 100%; }  /* wrapped whole, never cut at the edge */
    """

    def __init__(self, change: ReviewChange, index: int, undone: bool = False) -> None:
        super().__init__(classes="-undone" if undone else "")
        self.change = change
        self.index = index
        self.undone = undone

    def compose(self) -> ComposeResult:
        what = (
            "MEMORY.md"
            if self.change.target == "memory"
            else "USER.md"
            if self.change.target == "user"
            else self.change.target
        )
        staged = " (staged, awaiting approval)" if self.change.pending_id else ""
        staged += " · undone" if self.undone else ""
        yield Label(
            neutralise(
                f"{self.index + 1}. {self.change.kind} {what}: {self.change.action}{staged}"
            ),
            markup=False,
        )
        yield DiffView(
            "before",
            "after",
            neutralise(self.change.before or ""),
            neutralise(self.change.after or ""),
            split=False,
            annotations=True,
            wrap=True,
        )


class ReviewsPane(Vertical):
    DEFAULT_CSS = """
    ReviewsPane ListView { height: 1fr; max-height: 12; border-bottom: solid $panel; }
    ReviewsPane #review-changes { height: 2fr; }
    ReviewsPane .hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("z", "undo", "Undo change"),
        Binding("]", "next_change", "Next change"),
        Binding("[", "previous_change", "Prev change"),
    ]

    def __init__(self, runtime: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.runtime = runtime
        self.change_index = 0
        self.record: Any = None
        self._showing = asyncio.Lock()  # a highlight and a refresh must not interleave their mounts
        self._built = False  # the list and the changes are made (when the pane first shows)

    def focus_content(self) -> None:
        """Focus the list of reviews (f4)."""
        self.build()
        self.query_one("#review-list", ListView).focus()

    def build(self) -> None:
        """Make the list of reviews, filled from the store, and the changes under it: the
        first time the pane is shown or focused."""
        if self._built:
            return
        self._built = True
        hint = "Select a review; [ and ] pick a change, z undoes it."
        self.mount_all(
            [
                ListView(id="review-list"),
                Static(hint, classes="hint", markup=False),
                VerticalScroll(id="review-changes"),
            ]
        )
        self.refresh_reviews()

    def on_resize(self) -> None:
        self.build()  # the pane is shown (its Show event comes after)

    def on_show(self) -> None:
        self.build()

    def refresh_reviews(self) -> None:
        """List the reviews again (a pane not shown yet lists them when it is)."""
        if not self._built:
            return
        listing = self.query_one("#review-list", ListView)
        index = listing.index
        listing.clear()
        records = self.runtime.reviews.list()
        for record in records[:200]:
            listing.append(ReviewItem(record))
        if not records:
            listing.append(
                ListItem(
                    Static("No reviews yet. They run after turns, when a nudge counter is due.")
                )
            )
        if records:
            chosen = index if index is not None and index < len(records) else 0
            listing.index = chosen
            self.call_after_refresh(self._show_record, records[chosen])

    @on(ListView.Highlighted, "#review-list")
    async def _show(self, event: ListView.Highlighted) -> None:
        if isinstance(event.item, ReviewItem):
            await self._show_record(event.item.record)

    async def _show_record(self, record: Any, keep_index: bool = False) -> None:
        async with self._showing:
            self.record = record
            container = self.query_one("#review-changes", VerticalScroll)
            await container.remove_children()
            if record.error:
                await container.mount(Static(neutralise(f"error: {record.error}"), markup=False))
            if record.reply:
                await container.mount(
                    Static(neutralise(f"review said: {record.reply}"), markup=False)
                )
            await container.mount_all(
                [
                    ChangeView(change, i, undone=i in record.undone)
                    for i, change in enumerate(record.changes)
                ]
            )
            if not keep_index:
                self.change_index = 0
            self._mark()

    def _views(self) -> list[ChangeView]:
        return list(self.query(ChangeView))

    def _mark(self) -> None:
        for view in self._views():
            view.set_class(view.index == self.change_index, "-selected")

    def action_next_change(self) -> None:
        if self._views():
            self.change_index = min(self.change_index + 1, len(self._views()) - 1)
            self._mark()

    def action_previous_change(self) -> None:
        self.change_index = max(0, self.change_index - 1)
        self._mark()

    def action_undo(self) -> None:
        views = self._views()
        if not views or self.record is None:
            return
        view = views[min(self.change_index, len(views) - 1)]
        if view.undone:
            self.app.notify("This change is already undone", severity="warning")
            return
        self._undo(view, force=False)

    def _undo(self, view: ChangeView, force: bool) -> None:
        from hermes_tui.ui.screens.modals import ConfirmScreen

        record = self.record
        try:
            message = undo_change(
                view.change, self.runtime.memory, self.runtime.skills, force=force
            )
        except UndoNeedsConfirmation as exc:

            def answered(yes: bool | None) -> None:
                if yes:
                    self._undo(view, force=True)

            self.app.push_screen(ConfirmScreen(str(exc)[:1].upper() + str(exc)[1:]), answered)
            return
        except UndoError as exc:
            self.app.notify(str(exc), severity="error", timeout=8)
            return
        updated = self.runtime.reviews.mark_undone(record.id, view.index)
        self.app.notify(message[:1].upper() + message[1:])
        self.call_after_refresh(self._show_record, updated, True)
