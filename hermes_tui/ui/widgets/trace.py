"""The Trace pane: every tool call of the main agent and of background reviews, with details.

The detail under the table shows the selected call's arguments and its whole output in a
virtualised log (select with the mouse, ctrl+c copies the selection; `c` copies the call with
all of its output). It follows the call it shows: a finished call updates without a click.

The table, the detail and the log are made the first time the pane is shown (a hidden pane
costs nothing at start-up); until then each call is kept as an entry, and the table shows them
all when it is made.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import literal_text
from hermes_tui.ui.widgets.chat import DETAIL_CHARS, arguments_detail
from hermes_tui.ui.widgets.output import OutputLog


@dataclass
class TraceEntry:
    call_id: str
    source: str
    name: str
    arguments: dict[str, Any]
    started: float
    ok: bool | None = None
    duration: float | None = None
    preview: str = ""
    output: str = ""


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


class TracePane(Vertical):
    DEFAULT_CSS = """
    TracePane DataTable { height: 1fr; }
    TracePane #trace-call { height: auto; max-height: 8; border-top: solid $panel; overflow-y: auto; }
    TracePane #trace-output { height: 1fr; max-height: 100%; }
    """
    BINDINGS = [Binding("c", "copy", "Copy call", show=True)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: dict[str, TraceEntry] = {}
        self._shown: str | None = None  # the row key whose call the detail shows
        self._sequence = itertools.count(1)
        self._open_calls: dict[tuple[str, str], list[str]] = {}  # (source, call id) → row keys
        self._columns: dict[str, int] = {}  # the table's columns and their widths
        self._laid_out_for = 0  # the table width they were chosen for
        self._built = False  # the table, detail and log are made (when the pane first shows)

    def build(self) -> None:
        """Make the table (with a row for every call so far, the newest selected), the detail
        and the log: the first time the pane is shown or focused."""
        if self._built:
            return
        self._built = True
        table = DataTable(cursor_type="row", zebra_stripes=True, id="trace-table")
        self._laid_out_for = self.content_size.width
        self._columns = self._lay_out(table, self._laid_out_for)
        for key, entry in self.entries.items():
            table.add_row(*self._cells(entry), key=key)
        detail = Static(
            "Select a call to see its arguments and output.", id="trace-call", markup=False
        )
        self.mount_all([table, detail, OutputLog("", id="trace-output")])
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)

    def on_show(self) -> None:
        self.build()

    def focus_content(self) -> None:
        """Focus the list of calls (f1), so the pane's keys work at once."""
        self.build()
        self.query_one(DataTable).focus()  # made a moment ago, it takes the focus as it mounts

    # ---- columns that fit the pane's width ------------------------------------------------

    def _lay_out(self, table: DataTable, width: int) -> dict[str, int]:
        """Columns for `width`: all of them when they fit, else the time and then the source
        give way; the result takes what is left and is cut with an ellipsis (the detail below
        shows it whole). Returns each column's width."""
        fixed = {"time": 8, "from": 6, "tool": 14, "secs": 5}
        chosen = dict(fixed)
        room = width - 2  # the scrollbar, and a column to spare
        for dropped in ("", "time", "from"):
            chosen.pop(dropped, None)
            used = sum(w + 2 for w in chosen.values())  # each cell has one column each side
            if not width or room - used - 2 >= 16:
                break
        result = max(8, room - used - 2) if width else 40
        table.clear(columns=True)
        columns = {**chosen, "result": result}
        for name, column_width in columns.items():
            table.add_column(name, width=column_width, key=name)
        return columns

    def _cells(self, entry: TraceEntry) -> list[Any]:
        if entry.ok is None:
            secs, result = "…", "running"
        else:
            secs, result = f"{entry.duration:.2f}", ("✓ " if entry.ok else "✗ ") + entry.preview
        values = {
            "time": time.strftime("%H:%M:%S", time.localtime(entry.started)),
            "from": "review" if entry.source == "review" else "agent",
            "tool": literal_text(self._cut(entry.name, "tool")),
            "secs": secs,
            "result": literal_text(self._cut(result, "result")),
        }
        return [values[name] for name in self._columns]

    def _cut(self, text: str, column: str) -> str:
        width = self._columns.get(column, 0)
        return text if len(text) <= width else text[: max(0, width - 1)] + "…"

    def on_resize(self) -> None:
        self.build()  # the pane is shown (its Show event comes after)
        table = self.query_one(DataTable)
        width = self.content_size.width
        if width and width != self._laid_out_for:
            self._laid_out_for = width
            row = table.cursor_row
            self._columns = self._lay_out(table, width)
            for key, entry in self.entries.items():
                table.add_row(*self._cells(entry), key=key)
            if table.row_count:
                table.move_cursor(row=min(max(row, 0), table.row_count - 1))

    # ---- calls ----------------------------------------------------------------------------

    def started(self, call_id: str, source: str, name: str, arguments: dict[str, Any]) -> None:
        # Rows are keyed by our own sequence: call ids are the server's, and servers reuse them.
        key = f"call-{next(self._sequence)}"
        self._open_calls.setdefault((source, call_id), []).append(key)
        entry = self.entries[key] = TraceEntry(call_id, source, name, arguments, time.time())
        if not self._built:
            return  # its row is made with the table
        table = self.query_one(DataTable)
        table.add_row(*self._cells(entry), key=key)
        table.move_cursor(row=table.row_count - 1)

    def finished(
        self,
        call_id: str,
        source: str,
        ok: bool,
        duration: float,
        preview: str,
        output: str = "",
    ) -> None:
        open_keys = self._open_calls.get((source, call_id))
        if not open_keys:
            return
        key = open_keys.pop(0)  # the oldest call still running under that id
        entry = self.entries[key]
        entry.ok, entry.duration, entry.preview, entry.output = ok, duration, preview, output
        if not self._built:
            return
        table = self.query_one(DataTable)
        for name, value in zip(self._columns, self._cells(entry), strict=True):
            if name in ("secs", "result"):
                table.update_cell(key, name, value)
        if self._shown == key:  # the detail follows the call it shows, no click needed
            self._show_entry(key)

    @on(DataTable.RowHighlighted)
    def show(self, event: DataTable.RowHighlighted) -> None:
        key = str(event.row_key.value)
        if key in self.entries:
            self._show_entry(key)

    def _show_entry(self, key: str) -> None:
        self._shown = key
        entry = self.entries[key]
        self.query_one("#trace-call", Static).update(neutralise(self._header(entry)))
        running = entry.ok is None
        self.query_one(OutputLog).show("(running…)" if running else entry.output or entry.preview)

    @staticmethod
    def _header(entry: TraceEntry, limit: int | None = DETAIL_CHARS) -> str:
        who = "background review" if entry.source == "review" else "agent"
        if entry.ok is None:
            status = "running"
        else:
            status = f"{'ok' if entry.ok else 'error'} · {entry.duration:.2f}s · {entry.preview}"
        arguments = arguments_detail(entry.arguments, limit)
        return f"{entry.name} ({who}) — {status}\narguments: {arguments}"

    def action_copy(self) -> None:
        """The whole call: its arguments and all of its output (not only what is on screen)."""
        entry = self.entries.get(self._shown or "")
        if entry is None:
            self.app.notify("Select a call first", timeout=2)
            return
        output = entry.output or entry.preview
        whole = self._header(entry, limit=None)
        self.app.copy_to_clipboard(neutralise(f"{whole}\n\n{output}"))
        lines = plural(len(output.splitlines()), "line")
        self.app.notify(f"Copied the call and its {lines} of output", timeout=2)
