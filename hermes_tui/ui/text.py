"""Outside text made safe for a widget: control characters visible, markup never parsed.

Every face neutralises through `hermes_tui.core.text.neutralise`; these wrap the result in the
types Textual treats as literal text, for the widgets (tree nodes, table cells, collapsible
titles) that would otherwise read a `[` as the start of markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from hermes_tui.core.text import neutralise


def literal(text: str) -> Content:
    """Content shown exactly as written (no markup), with controls made visible."""
    return Content(neutralise(text))


def literal_text(text: str) -> Text:
    """The Rich equivalent of `literal`, for widgets that take Rich Text (Tree, DataTable)."""
    return Text(neutralise(text))


def pasted(text: str) -> str:
    """A paste as a widget takes it: a line break as a newline (terminals send a pasted line
    break as a carriage return), every other control character as its visible stand-in."""
    return neutralise(text.replace("\r\n", "\n").replace("\r", "\n"))
