"""One tool call in the chat: a collapsible row with its arguments and its whole output."""

from __future__ import annotations

import json
from typing import Any

from textual import events
from textual.binding import Binding
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle

from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import literal
from hermes_tui.ui.widgets.copyable import CopyableMessage, copy_text


class ToolRow(Collapsible):
    """One tool call: name, argument summary, then duration, ok/error and a preview.

    Expanded, it shows the arguments and the call's whole output in a virtualised log (built
    when first opened, so a long session of closed rows costs nothing); `c` copies the output.
    A click expands or collapses it and leaves the keyboard in the message box; from the
    keyboard (alt+↑, then ↑/↓) its title takes the focus: enter or space expand it, `c`
    copies, esc or a letter goes back to the box.
    """

    DEFAULT_CSS = """
    ToolRow { margin: 0 0 0 2; padding: 0; border: none; background: transparent; }
    /* One line: a title wider than the chat is cut with an ellipsis, which says so. */
    ToolRow > CollapsibleTitle {
        color: $text-muted; padding: 0; max-width: 100%; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ToolRow.-error > CollapsibleTitle { color: $error; }
    ToolRow.-ok > CollapsibleTitle { color: $success; }
    ToolRow Static { color: $text-muted; padding: 0 0 0 2; }
    ToolRow OutputLog { margin: 0 0 0 2; }
    """
    BINDINGS = [
        Binding("c", "copy_output", "Copy output"),
        Binding("space", "toggle", "Expand or collapse", show=False),
        Binding("up", "move(-1)", "Previous message", show=False),
        Binding("down", "move(1)", "Next message", show=False),
        Binding("escape", "leave", "Back to the message box", show=False),
    ]
    OPEN_DIFF_LINES = 16  # an edit's diff up to this many lines shows without a click

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: dict[str, Any],
        detail: str | None = None,
        output: str | None = None,
        diff: str = "",
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.summary = summarise_arguments(arguments)
        text = detail if detail is not None else arguments_detail(arguments)
        self.detail = Static(neutralise(text), markup=False)
        self.output = output  # None while running
        self.diff = diff  # a file edit's unified diff: shown instead of arguments and output
        self.call_label = f"{name} {self.summary}".strip()
        super().__init__(self.detail, title=literal(f"⋯ {self.call_label}"), collapsed=True)

    def on_mount(self) -> None:
        # A click toggles the row but does not take the keyboard from the message box.
        self.query_one(CollapsibleTitle).FOCUS_ON_CLICK = False

    def focus(self, scroll_visible: bool = True) -> ToolRow:
        """The row's title takes the focus (the row itself cannot hold it)."""
        self.query_one(CollapsibleTitle).focus(scroll_visible)
        return self

    def action_toggle(self) -> None:
        self.collapsed = not self.collapsed

    def action_move(self, step: int) -> None:
        self.post_message(CopyableMessage.Move(self, step))  # type: ignore[arg-type]

    def action_leave(self) -> None:
        self.post_message(CopyableMessage.Leave())

    def on_key(self, event: events.Key) -> None:
        # A letter that is not one of the row's keys was meant for the message box.
        if event.is_printable and event.character and event.key not in ("c", "space"):
            event.stop()
            event.prevent_default()
            self.post_message(CopyableMessage.Leave(event.character))

    def finish(
        self, ok: bool, duration: float, preview: str, output: str = "", diff: str = ""
    ) -> None:
        mark = "✓" if ok else "✗"
        if diff:
            from hermes_tui.ui.widgets.diff import diff_stat

            added, removed = diff_stat(diff)
            preview = f"+{added} −{removed}"
        self.title = literal(f"{mark} {self.call_label}  {duration:.2f}s · {preview}")
        self.add_class("-ok" if ok else "-error")
        self.output = output or preview
        self.diff = diff
        if diff and diff.count("\n") < self.OPEN_DIFF_LINES:
            self.collapsed = False  # a small edit is shown at once
        if not self.collapsed:
            self._show_output()

    def watch_collapsed(self, collapsed: bool) -> None:
        # Collapsible's own _watch_collapsed still runs (textual_compat); this only builds the
        # output view.
        if not collapsed and self.output is not None:
            self._show_output()

    def _show_output(self) -> None:
        from hermes_tui.ui.widgets.output import OutputLog

        contents = self.query_one(Collapsible.Contents)
        if self.diff:
            from hermes_tui.ui.widgets.diff import DiffBlock

            if not contents.query(DiffBlock):
                self.detail.display = False  # the arguments repeat the new text: the diff says it
                contents.mount(DiffBlock(self.diff))
        elif not contents.query(OutputLog):
            contents.mount(OutputLog(self.output or ""))

    def action_copy_output(self) -> None:
        if self.output is None:
            self.app.notify("The call is still running", timeout=2)
            return
        if self.diff:
            copy_text(self, self.diff, "the diff")
        else:
            copy_text(self, self.output, "output")


RAW = "_raw"  # the core's key for arguments that were not a JSON object (agent/loop.py)
DETAIL_CHARS = 4000


def raw_arguments(arguments: dict[str, Any]) -> str | None:
    """The model's argument text when it was not a JSON object, else None."""
    return str(arguments[RAW]) if set(arguments) == {RAW} else None


def arguments_detail(arguments: dict[str, Any], limit: int | None = DETAIL_CHARS) -> str:
    """A call's arguments as a row or the trace shows them: JSON, what the model sent when it
    was not JSON, or that there were none; cut at `limit` characters."""
    raw = raw_arguments(arguments)
    if not arguments or raw is not None and not raw.strip():
        text = "(no arguments)"
    elif raw is not None:
        text = f"(not JSON) {raw}"
    else:
        text = json.dumps(arguments, indent=2, ensure_ascii=False)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit:,} more characters)"
    return text


def summarise_arguments(arguments: dict[str, Any]) -> str:
    raw = raw_arguments(arguments)
    if raw is not None:
        text = raw
    elif "command" in arguments:
        text = str(arguments["command"])
    elif "path" in arguments:
        text = str(arguments["path"])
    elif "name" in arguments:
        text = f"{arguments.get('action', '')} {arguments['name']}".strip()
    elif "target" in arguments:
        text = f"{arguments.get('action', '')} {arguments['target']}".strip()
    else:
        text = json.dumps(arguments, ensure_ascii=False) if arguments else ""
    text = " ".join(text.split())
    return text[:70] + ("…" if len(text) > 70 else "")
