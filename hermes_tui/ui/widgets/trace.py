"""The Trace pane: every tool call of the main agent and of background reviews, with details."""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, TextArea

from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import literal_text


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


class TracePane(Vertical):
    DEFAULT_CSS = """
    TracePane DataTable { height: 2fr; }
    TracePane TextArea { height: 1fr; border-top: solid $panel; }
    """
    BINDINGS = [Binding("c", "copy", "Copy call", show=True)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: dict[str, TraceEntry] = {}
        self._sequence = itertools.count(1)
        self._open_calls: dict[tuple[str, str], list[str]] = {}  # (source, call id) → row keys

    def compose(self) -> ComposeResult:
        table = DataTable(cursor_type="row", zebra_stripes=True, id="trace-table")
        table.add_columns("time", "from", "tool", "secs", "result")
        yield table
        yield TextArea(
            "Select a call to see its arguments and result.", read_only=True, id="trace-detail"
        )

    def started(self, call_id: str, source: str, name: str, arguments: dict[str, Any]) -> None:
        # Rows are keyed by our own sequence: call ids are the server's, and servers reuse them.
        key = f"call-{next(self._sequence)}"
        self._open_calls.setdefault((source, call_id), []).append(key)
        self.entries[key] = TraceEntry(call_id, source, name, arguments, time.time())
        table = self.query_one(DataTable)
        table.add_row(
            time.strftime("%H:%M:%S"),
            "review" if source == "review" else "agent",
            literal_text(name),
            "…",
            "running",
            key=key,
        )
        table.move_cursor(row=table.row_count - 1)

    def finished(self, call_id: str, source: str, ok: bool, duration: float, preview: str) -> None:
        open_keys = self._open_calls.get((source, call_id))
        if not open_keys:
            return
        key = open_keys.pop(0)  # the oldest call still running under that id
        entry = self.entries[key]
        entry.ok, entry.duration, entry.preview = ok, duration, preview
        table = self.query_one(DataTable)
        table.update_cell(key, table.ordered_columns[3].key, f"{duration:.2f}")
        table.update_cell(
            key, table.ordered_columns[4].key, literal_text(("✓ " if ok else "✗ ") + preview)
        )

    @on(DataTable.RowHighlighted)
    def show(self, event: DataTable.RowHighlighted) -> None:
        entry = self.entries.get(str(event.row_key.value))
        if entry is None:
            return
        status = "running" if entry.ok is None else ("ok" if entry.ok else "error")
        text = (
            f"{entry.name} ({'background review' if entry.source == 'review' else 'agent'}) — {status}\n"
            f"arguments:\n{json.dumps(entry.arguments, indent=2, ensure_ascii=False)}\n\nresult: {entry.preview}"
        )
        self.query_one(TextArea).load_text(neutralise(text))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.query_one(TextArea).text)
        self.app.notify("Copied the selected call", timeout=2)
