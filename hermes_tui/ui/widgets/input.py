"""The message box: Enter sends, ctrl+j (or shift+enter) adds a line, history, `/` completion,
ctrl+r searches past messages in place, ctrl+c clears it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import OptionList, TextArea

from hermes_tui.core.text import estimate_tokens
from hermes_tui.ui import textual_compat

PASTE_COLLAPSE_LINES = 20  # a paste this long shows as one line: [Pasted 3,000 lines #1]
PASTE_COLLAPSE_CHARS = 4000
PASTE_LABEL = re.compile(r"\[Pasted [\d,]+ lines? #(\d+)\]")

SLASH_COMMANDS = {
    "/new": "start a new session",
    "/sessions": "browse and search past sessions",
    "/resume": "resume a session by id",
    "/memory": "show the memory pane",
    "/skills": "show the skills browser",
    "/refine": "run a background review of this session now",
    "/curator": "run the skill curator (add 'dry' for a dry run)",
    "/pending": "writes waiting for your approval",
    "/model": "provider, server, key and model: /model [PROVIDER or MODEL]",
    "/theme": "switch theme: /theme NAME",
    "/mode": "approval mode: /mode [sandboxed|strict|plan|yolo] (shift+tab cycles)",
    "/compress": "summarise the middle of this session",
    "/export": "write this session as Markdown: /export [FILE]",
    "/rewind": "undo turns: restore files and/or the conversation to before one (esc esc)",
    "/mcp": "MCP servers and their tools (/mcp reload restarts them)",
    "/retry": "send your last message again (its reply is dropped)",
    "/undo": "remove your last message and its reply (files stay as they are)",
    "/title": "name this session: /title NAME",
    "/clear": "start a new conversation (clears the chat)",
    "/usage": "tokens and cost of this session, its reviews included",
    "/insights": "insights over time: sessions, skills, memory, reviews",
    "/tools": "the tools this conversation has, MCP ones included, and which are off",
    "/reload-skills": "rescan the skills folders (new skills become /<skill-name>)",
    "/yolo": "toggle YOLO: commands run without asking (the sandbox still holds)",
    "/reasoning": "reasoning effort and display: /reasoning [LEVEL|show|hide]",
    "/personality": "list or choose a personality: /personality [NAME|none]",
    "/background": "run a prompt as a separate background task: /background PROMPT",
    "/queue": "send a message when the running turn ends: /queue MESSAGE",
    "/init": "have the agent explore this folder and write AGENTS.md",
    "/help": "keys and commands",
    "/quit": "leave",
}


def completions(
    text: str,
    arguments: Mapping[str, Sequence[str]] | None = None,
    commands: Mapping[str, str] = SLASH_COMMANDS,
) -> list[str]:
    """What `text` may complete to: names in `commands` (built-in and custom), or after
    `/theme ` (any command listed in `arguments`) that command with one of its arguments."""
    if not text.startswith("/") or "\n" in text:
        return []
    command, space, argument = text.partition(" ")
    if not space:
        return [name for name in commands if name.startswith(text)]
    if " " in argument:
        return []
    choices = (arguments or {}).get(command, ())
    return [f"{command} {choice}" for choice in choices if choice.startswith(argument)]


class SlashHints(OptionList):
    DEFAULT_CSS = """
    SlashHints { height: auto; max-height: 8; display: none; border: round $panel; }
    SlashHints.-visible { display: block; }
    """

    def show_for(self, names: list[str], commands: Mapping[str, str] = SLASH_COMMANDS) -> None:
        self.clear_options()
        for name in names:
            self.add_option(f"{name}  {commands[name]}" if name in commands else name)
        self.set_class(bool(names), "-visible")

    def hide(self) -> None:
        self.set_class(False, "-visible")


class ChatInput(TextArea):
    """The message box. A long paste collapses to `[Pasted N lines #k]` (alt+p expands it back)
    and is put back in full when the message is sent; the border shows the tokens it will add."""

    DEFAULT_CSS = """
    ChatInput { height: auto; min-height: 3; max-height: 10; border: round $primary; }
    ChatInput:focus { border: round $accent; }
    """
    BINDINGS = [Binding("alt+p", "expand_pastes", "Expand pastes", show=False)]

    class Submitted(Message):
        """`text` as sent (pastes in full); `typed`, the words typed around the pastes (the
        whole text when it is only pastes): what names the session."""

        def __init__(self, text: str, typed: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.typed = text if typed is None else typed

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, **kwargs)
        self.sent: list[str] = []
        self.recall_index: int | None = None
        self.pastes: dict[str, str] = {}  # label number → the pasted text
        # Arguments tab completes after a command (the app sets them: `/theme` → theme names).
        self.argument_choices: dict[str, list[str]] = {}
        # Every command name with its help: the built-in ones and the user's (the app adds them).
        self.commands: dict[str, str] = dict(SLASH_COMMANDS)
        self._found: dict[type, Widget | None] = {}
        # ctrl+r: the search typed so far (None: not searching), the match shown, the text the
        # box held before, and where past messages come from (the app sets it: sessions.db).
        self.search: str | None = None
        self._match: int | None = None
        # tab through several completions: the names and the one in the box (None: not cycling).
        self._cycle: tuple[list[str], int] | None = None
        self._before_search = ""
        self.past_messages: Callable[[], list[str]] | None = None
        self._history: list[str] | None = None

    def on_mount(self) -> None:
        self.screen.screen_layout_refresh_signal.subscribe(self, self._lift_toasts)

    def _lift_toasts(self, screen: Screen) -> None:
        """Toasts stand just above the message box: Textual docks them at the very bottom of
        the screen, over the box and the nudge bar. Follows the box as it grows or moves; runs
        on every layout of the screen (during a stream, many a second)."""
        if self.is_attached and self.screen is screen:
            textual_compat.lift_toasts(screen, max(1, screen.size.height - self.region.y))

    def expanded(self, text: str | None = None) -> str:
        """The message as it will be sent: every collapsed paste put back in full."""
        text = self.text if text is None else text
        return PASTE_LABEL.sub(lambda m: self.pastes.get(m.group(1), m.group(0)), text)

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual runs TextArea's own handler after this one unless the default is prevented.
        # Terminals send a pasted line break as a carriage return (tmux, xterm): read as newlines.
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        lines = len(text.splitlines()) or 1  # a final line break starts no line
        if lines < PASTE_COLLAPSE_LINES and len(text) < PASTE_COLLAPSE_CHARS:
            return
        event.prevent_default()
        event.stop()
        number = str(len(self.pastes) + 1)
        self.pastes[number] = text
        # Like any paste it replaces the selection, and typing goes on after it.
        label = f"[Pasted {lines:,} line{'' if lines == 1 else 's'} #{number}]"
        result = self.replace(label, *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)

    def put_back(self, text: str) -> None:
        """A message given back to edit and send again (/undo, /rewind), the cursor at its end;
        a long one collapsed as a paste is (alt+p expands it). A draft in the box goes to ↑."""
        self.clear_draft()
        lines = len(text.splitlines()) or 1
        if lines >= PASTE_COLLAPSE_LINES or len(text) >= PASTE_COLLAPSE_CHARS:
            self.pastes["1"] = text
            text = f"[Pasted {lines:,} line{'' if lines == 1 else 's'} #1]"
        self.text = text
        self.move_cursor(self.document.end)

    def action_expand_pastes(self) -> None:
        self.text = self.expanded()
        self.move_cursor(self.document.end)

    def _submit(self) -> None:
        text = self.expanded()
        if not text.strip():
            return
        typed = PASTE_LABEL.sub(" ", self.text).strip() or text
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self.recall_index = None
        self.text = ""
        self.pastes.clear()
        self.post_message(self.Submitted(text, typed))

    def _complete(self, names: list[str]) -> None:
        """One match: take it. Several: as far as they agree (the hints list shows them); when
        they agree no further, the first, and each tab after it the next (`/theme ` + tab)."""
        cycle = self._cycle
        if cycle is not None and self.text == cycle[0][cycle[1]]:
            names, index = cycle[0], (cycle[1] + 1) % len(cycle[0])
        elif len(names) == 1:
            is_command = " " not in names[0]
            names, index = [names[0] + (" " if is_command else "")], 0
        elif len(os.path.commonprefix(names)) > len(self.text):
            names, index = [os.path.commonprefix(names)], 0
        elif names:
            index = 0
        else:
            return
        self._cycle = (names, index) if len(names) > 1 else None
        if names[index] != self.text:
            self.text = names[index]
            self.move_cursor(self.document.end)

    def clear_draft(self) -> bool:
        """ctrl+c on a message being written: clear it (↑ brings it back). False when empty."""
        if self.search is not None:
            self._end_search(keep=False)
            return True
        if not self.text.strip():
            return False
        draft = self.expanded()
        if not self.sent or self.sent[-1] != draft:
            self.sent.append(draft)
        self.recall_index = None
        self.text = ""
        self.pastes.clear()
        return True

    # ---- ctrl+r: search past messages in the box -------------------------------------------

    def _searchable(self) -> list[str]:
        """Past messages, oldest first: earlier sessions' (once per search) then this run's."""
        if self._history is None:
            self._history = list(self.past_messages()) if self.past_messages else []
        seen: set[str] = set()
        ordered = []
        for text in reversed([*self._history, *self.sent]):
            if text not in seen:
                seen.add(text)
                ordered.append(text)
        return ordered[::-1]

    def _find(self, older_than: int | None) -> None:
        """Show the newest past message containing the search (before `older_than`)."""
        query = (self.search or "").casefold()
        past = self._searchable()
        start = len(past) if older_than is None else older_than
        self._match = next(
            (i for i in range(start - 1, -1, -1) if query in past[i].casefold()), None
        )
        if self._match is not None:
            self.text = past[self._match]
            self.move_cursor(self.document.end)
        label = "search" if self._match is not None or not query else "no match"
        self.border_title = f"{label}: {self.search}▏ (ctrl+r older · enter takes · esc back)"

    def _start_search(self) -> None:
        self._before_search = self.text
        self._history = None  # read again: another session may have been saved meanwhile
        self.search = ""
        self._find(None)

    def _end_search(self, keep: bool) -> None:
        if not keep:
            self.text = self._before_search
            self.move_cursor(self.document.end)
        self.search = None
        self._match = None
        self.border_title = None

    def _search_key(self, event: events.Key) -> bool:
        """A key while searching; False when it ends the search and is handled as usual."""
        key = event.key
        if key == "ctrl+r":
            self._find(self._match if self._match is not None else None)
        elif key == "backspace":
            self.search = (self.search or "")[:-1]
            self._find(None)
        elif key == "escape":
            self._end_search(keep=False)
        elif key == "enter":
            self._end_search(keep=True)
        elif event.is_printable and event.character:
            self.search = (self.search or "") + event.character
            self._find(None)
        else:
            self._end_search(keep=True)
            return False
        return True

    def _recall(self, step: int) -> None:
        if not self.sent:
            return
        index = len(self.sent) if self.recall_index is None else self.recall_index
        index = max(0, min(len(self.sent), index + step))
        self.recall_index = index
        self.text = self.sent[index] if index < len(self.sent) else ""
        self.move_cursor(self.document.end)

    def _mention_hints(self):
        from hermes_tui.ui.widgets.mentions import MentionHints

        return self._beside(MentionHints)

    def _beside(self, kind: type):
        """The screen's widget of `kind` (the hints under the box), found once: this runs on
        every key, and a query walks the whole DOM, a long chat included."""
        found = self._found.get(kind)
        if found is None or not found.is_attached or found.screen is not self.screen:
            matches = self.screen.query(kind)
            found = self._found[kind] = matches.first() if matches else None
        return found

    def _complete_mention(self, path: str) -> None:
        """Replace the `@partial` before the cursor with `@path ` (spaces escaped)."""
        from hermes_tui.ui.widgets.mentions import mention_at

        row, column = self.cursor_location
        partial = mention_at(self.document.get_line(row)[:column]) or ""
        start = (row, column - len(partial))
        self.replace(path.replace(" ", "\\ ") + " ", start, (row, column))

    async def _on_key(self, event: events.Key) -> None:
        if self.search is not None and self._search_key(event):
            event.stop()
            event.prevent_default()
            return
        if event.key == "ctrl+r":
            event.stop()
            event.prevent_default()
            self._start_search()
            return
        if event.key.startswith("alt+") and event.is_printable:
            # A terminal that sends Alt as ESC (tmux, xterm) makes alt+p a key that carries the
            # character "p", which TextArea would type before any binding saw it. An alt chord
            # is never text; this box's own one runs here (the binding serves kitty-style keys).
            event.stop()
            event.prevent_default()
            if event.key == "alt+p":
                self.action_expand_pastes()
            return
        hints = self._mention_hints()
        if hints is not None and hints.visible and event.key in ("tab", "enter", "up", "down"):
            chosen = hints.chosen()
            if event.key in ("up", "down"):
                hints.move(-1 if event.key == "up" else 1)
            elif chosen is not None:
                self._complete_mention(chosen)
                hints.hide()
            else:
                hints.hide()
                if event.key == "tab":  # nothing to complete: tab does nothing here
                    event.stop()
                    event.prevent_default()
                    return
                await self._on_key(event)
                return
            event.stop()
            event.prevent_default()
            return
        row, _ = self.cursor_location
        handled = True
        if event.key == "enter":
            names = completions(self.text, commands=self.commands)
            if names and self.text not in names:
                self.text = names[0] + " "
                self.move_cursor(self.document.end)
            else:
                self._submit()
        elif event.key in ("shift+enter", "ctrl+j"):
            self.insert("\n")
        elif event.key == "tab" and self.text.startswith("/") and "\n" not in self.text:
            # A command in progress keeps the tab, whether or not it completes anything.
            self._complete(completions(self.text, self.argument_choices, self.commands))
        elif event.key == "up" and row == 0 and (not self.text or self.recall_index is not None):
            self._recall(-1)
        elif (
            event.key == "down"
            and row == self.document.line_count - 1
            and self.recall_index is not None
        ):
            self._recall(1)
        else:
            handled = False
        if not handled:
            handled = await self._run_own_binding(event.key)
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_own_binding(self, key: str) -> bool:
        """Run this box's binding for `key` (backspace, the arrows, …) now, in typing order.

        Textual runs a widget's (non-priority) binding only after the key has bubbled up to the
        app, by which time the keys typed after it, queued here, have already been handled: in a
        busy moment backspace then `c` inserted `c` and then deleted it.
        """
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def on_text_area_changed(self) -> None:
        hints = self._beside(SlashHints)
        cycle = self._cycle
        if cycle is not None and self.text != cycle[0][cycle[1]]:
            cycle = self._cycle = None  # typed over: the cycle is over
        if hints is not None and cycle is not None:
            hints.show_for(cycle[0], self.commands)  # all of them, the one taken highlighted
            hints.highlighted = cycle[1]
        elif hints is not None:
            hints.show_for(
                completions(self.text, self.argument_choices, self.commands), self.commands
            )
        mentions = self._mention_hints()
        if mentions is not None:
            from hermes_tui.ui.outgoing import own_homes, workdir
            from hermes_tui.ui.widgets.mentions import mention_at

            row, column = self.cursor_location
            partial = mention_at(self.document.get_line(row)[:column])
            if partial is None:
                mentions.hide()
            else:
                mentions.show_for(partial, workdir(self.app)[1], own_homes(self.app))
        text = self.expanded()
        self.border_subtitle = f"≈{estimate_tokens(text):,} tokens" if text.strip() else ""
