"""The MCP servers (`/mcp`): status, tool counts, last error and stderr tail; `r` reloads."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuietScreen

MARKS = {"ready": "✓", "failed": "✗", "starting": "…", "disabled": "-", "stopped": "■"}


def describe_servers(manager: Any) -> str:
    """Plain text for the screen (also what the tests read)."""
    if manager is None:
        return (
            "No MCP servers are configured.\n\nAdd them to config.yaml, e.g.\n\n"
            "mcp_servers:\n  time:\n    command: uvx\n    args: [mcp-server-time]\n\n"
            "then /mcp reload."
        )
    lines: list[str] = []
    for row in manager.describe():
        lines.append(
            f"{MARKS.get(row['status'], '?')} {row['name']}  "
            f"{row['transport']} · {row['status']} · {row['tools']} tools"
            + (f" · restarted {row['restarts']}×" if row["restarts"] else "")
        )
        if row["error"]:
            lines.append(f"    last error: {row['error']}")
        for line in row["stderr"].splitlines()[-3:] if row["stderr"] else []:
            lines.append(f"    stderr: {line}")
    for warning in dict.fromkeys(manager.warnings):
        lines.append(f"! {warning}")
    lines.append("")
    lines.append(
        "Tools are fixed when a session starts: a server that comes up later, or a reload (r), "
        "takes effect from the next session (/new)."
    )
    return "\n".join(lines)


class McpScreen(QuietScreen, ModalScreen[None]):
    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    McpScreen > VerticalScroll { width: 100; max-width: 95%; height: auto; max-height: 85%; border: thick $primary; background: $surface; padding: 1 2; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("r", "reload", "Reload from config.yaml"),
    ]

    def __init__(self, runtime: Any, *, reload_on_open: bool = False) -> None:
        super().__init__()
        self.runtime = runtime
        self.reload_on_open = reload_on_open  # `/mcp reload`: restart the servers once shown

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("MCP servers", classes="title")
            yield Static(
                neutralise(describe_servers(self.runtime.mcp)), id="mcp-status", markup=False
            )

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_status)
        if self.reload_on_open:
            self.action_reload()

    def refresh_status(self) -> None:
        if not self.is_mounted:  # closed while a reload ran
            return
        self.query_one("#mcp-status", Static).update(neutralise(describe_servers(self.runtime.mcp)))

    def action_reload(self) -> None:
        if self.is_mounted:
            self.query_one("#mcp-status", Static).update("Reloading…")
        self.reload()

    @work(thread=True, exclusive=True, group="mcp", exit_on_error=False)
    def reload(self) -> None:
        from hermes_tui.config import ConfigError

        try:
            self.runtime.reload_mcp()
        except ConfigError as exc:
            self.app.call_from_thread(self.app.notify, f"config.yaml: {exc}", severity="error")
            return
        self.app.call_from_thread(
            self.app.notify, "MCP servers restarted from config.yaml; they join the next session"
        )
        self.app.call_from_thread(self.refresh_status)

    def action_close(self) -> None:
        self.dismiss(None)
