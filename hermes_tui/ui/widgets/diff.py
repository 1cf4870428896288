"""A file edit's unified diff, coloured: what the agent's write_file or patch changed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from hermes_tui.core.text import neutralise


def diff_stat(diff: str) -> tuple[int, int]:
    """Lines added and removed (headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def render_diff(diff: str) -> Content:
    """Added lines green, removed red, hunk headers in the accent colour; every line neutralised."""
    parts: list[tuple[str, str] | str] = []
    for line in diff.splitlines():
        text = neutralise(line)
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "$text-success"
        elif line.startswith("-"):
            style = "$text-error"
        elif line.startswith("@@"):
            style = "$text-accent"
        else:
            style = ""
        parts.append((text, style) if style else text)
        parts.append("\n")
    return Content.assemble(*parts[:-1]) if parts else Content("")


class DiffBlock(Static):
    DEFAULT_CSS = """
    DiffBlock { height: auto; padding: 0 0 0 2; background: $boost; }
    """

    def __init__(self, diff: str) -> None:
        super().__init__(render_diff(diff))
        self.diff = diff
