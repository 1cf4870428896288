"""The model's reasoning in the chat: one collapsed, dimmed block per model call, apart from the answer.

Reasoning can run to thousands of words, so while it streams only the title (a word count)
changes; the body is filled when the block is opened or the reasoning ends.
"""

from __future__ import annotations

from textual import on
from textual.widgets import Collapsible, Static

from hermes_tui.core.text import neutralise


class ReasoningBlock(Collapsible):
    DEFAULT_CSS = """
    ReasoningBlock { margin: 1 0 0 0; padding: 0; border: none; background: transparent; }
    ReasoningBlock > CollapsibleTitle { color: $text-muted; text-style: italic; padding: 0 1; }
    ReasoningBlock Static { color: $text-muted; text-style: italic; padding: 0 1 0 3; }
    """

    def __init__(self, text: str = "", *, done: bool = False) -> None:
        self.parts = [text] if text else []
        self.done = done
        self.body = Static("", markup=False)
        super().__init__(self.body, title=self._heading(), collapsed=True)
        if done:
            self.body.update(neutralise(self.text))

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def _heading(self) -> str:
        words = len(self.text.split())
        return f"{'Thought' if self.done else 'Thinking…'} ({words} words)"

    def append(self, fragment: str) -> None:
        self.parts.append(fragment)
        self.title = self._heading()
        if not self.collapsed:
            self.body.update(neutralise(self.text))

    def finish(self) -> None:
        if not self.done:
            self.done = True
            self.title = self._heading()
            self.body.update(neutralise(self.text))

    @on(Collapsible.Expanded)
    def _fill(self) -> None:
        self.body.update(neutralise(self.text))
