"""A tool's output, virtualised: 200,000 lines cost only the lines on screen.

Built on Textual's `Log`, which draws only visible lines and supports mouse selection (ctrl+c
copies a selection). Text is neutralised once, so escape sequences show as `␛[…`.
"""

from __future__ import annotations

from typing import Any

from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuickWidthLog


class OutputLog(QuickWidthLog):
    DEFAULT_CSS = """
    OutputLog { height: auto; max-height: 16; background: $boost; scrollbar-size-vertical: 1; }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(auto_scroll=False, **kwargs)
        self.text = neutralise(text)

    def on_mount(self) -> None:
        self._show_text()  # neutralised already

    def show(self, text: str) -> None:
        self.text = neutralise(text)
        self._show_text()

    def _show_text(self) -> None:
        self.clear()
        self.write_lines(self.text.splitlines() or ["(no output)"])
