"""A tool's output, virtualised: 200,000 lines cost only the lines on screen.

Built on Textual's `Log`, which draws only visible lines and supports mouse selection (ctrl+c
copies a selection). Text is neutralised once, so escape sequences show as `␛[…`.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Log

from hermes_tui.core.text import neutralise


class OutputLog(Log):
    DEFAULT_CSS = """
    OutputLog { height: auto; max-height: 16; background: $boost; scrollbar-size-vertical: 1; }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(auto_scroll=False, **kwargs)
        self.text = neutralise(text)

    def on_mount(self) -> None:
        self.show(self.text)

    def show(self, text: str) -> None:
        self.text = neutralise(text)
        self.clear()
        self.write_lines(self.text.splitlines() or ["(no output)"])
