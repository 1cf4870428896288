"""`@` completion in the message box: the working directory's files, fuzzy, best first.

The file list is built once per folder by a thread worker (bounded: core/mentions.list_files)
and kept for LIST_TTL seconds; until it arrives the hint says so, and the box never waits.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from textual import work
from textual.message import Message
from textual.widgets import OptionList

from hermes_tui.core.mentions import FileList, list_files, rank
from hermes_tui.core.text import neutralise

# The `@word` being typed: at the cursor, after the line's start or a space.
TYPING = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")
LIST_TTL = 30.0  # seconds a file list is reused before the folder is walked again


def mention_at(line_before_cursor: str) -> str | None:
    """The partial path after `@` that the cursor is at the end of, or None."""
    match = TYPING.search(line_before_cursor)
    return match.group(1) if match else None


class MentionHints(OptionList):
    DEFAULT_CSS = """
    MentionHints { height: auto; max-height: 10; display: none; border: round $accent; }
    MentionHints.-visible { display: block; }
    """

    class Listed(Message):
        def __init__(self, files: FileList) -> None:
            super().__init__()
            self.files = files

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.files: FileList | None = None
        self.listed_at = 0.0
        self.query_text: str | None = None
        self.matches: list[str] = []

    @property
    def visible(self) -> bool:
        return self.has_class("-visible")

    def show_for(self, query: str | None, root: Path, skip: tuple[Path, ...] = ()) -> None:
        """Hints for `@query` under `root` (never in the folders `skip`); None hides them."""
        self.query_text = query
        if query is None:
            self.hide()
            return
        stale = time.monotonic() - self.listed_at > LIST_TTL
        if self.files is None or self.files.root != root or stale:
            self.listed_at = time.monotonic()
            self.list_folder(root, skip)
            if self.files is None or self.files.root != root:
                self._fill(["(listing files…)"], [])
                return
        self._refill()

    def _refill(self) -> None:
        if self.files is None or self.query_text is None:
            return
        self.matches = rank(self.query_text, self.files.paths)
        if self.matches:
            labels = [neutralise(path) for path in self.matches]
            if not self.files.complete:
                labels.append(f"(first {len(self.files.paths):,} files of a large folder)")
            self._fill(labels, self.matches)
        else:
            self._fill([f"no file matches @{neutralise(self.query_text)}"], [])

    def _fill(self, labels: list[str], matches: list[str]) -> None:
        self.matches = matches
        self.clear_options()
        self.add_options(labels)
        if matches:
            self.highlighted = 0
        self.set_class(True, "-visible")

    def hide(self) -> None:
        self.matches = []
        self.set_class(False, "-visible")

    def chosen(self) -> str | None:
        """The highlighted file, if any."""
        if not self.visible or not self.matches:
            return None
        index = self.highlighted or 0
        return self.matches[index] if index < len(self.matches) else None

    def move(self, step: int) -> None:
        if self.matches:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.matches)

    @work(thread=True, exclusive=True, group="mention-files", exit_on_error=False)
    def list_folder(self, root: Path, skip: tuple[Path, ...] = ()) -> None:
        self.post_message(self.Listed(list_files(root, skip=skip)))

    def on_mention_hints_listed(self, message: MentionHints.Listed) -> None:
        self.files = message.files
        if self.visible:
            self._refill()
