"""The conversation: user messages, streamed assistant replies, inline tool rows, errors.

One Markdown widget per assistant reply, fed through `Markdown.get_stream`. Past MAX_MOUNTED
turns the oldest widgets are removed from the DOM (the messages stay in the session) and a
button at the top mounts them back in batches, so a 2,000-message session stays responsive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Markdown, Static
from textual.widgets._markdown import MarkdownStream

from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import literal
from hermes_tui.ui.widgets.reasoning import ReasoningBlock

MAX_MOUNTED = 60
REMOUNT_BATCH = 30
RESUME_MOUNTED = 20  # a resumed session shows its last turns at once; the rest on request


class UserMessage(Static):
    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
        color: $text;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(neutralise(text), markup=False)


class ToolRow(Collapsible):
    """One tool call: name, argument summary, then duration, ok/error and a preview."""

    DEFAULT_CSS = """
    ToolRow { margin: 0 0 0 2; padding: 0; border: none; background: transparent; }
    ToolRow > CollapsibleTitle { color: $text-muted; padding: 0; }
    ToolRow.-error > CollapsibleTitle { color: $error; }
    ToolRow.-ok > CollapsibleTitle { color: $success; }
    ToolRow Static { color: $text-muted; padding: 0 0 0 2; }
    """

    def __init__(
        self, call_id: str, name: str, arguments: dict[str, Any], detail: str | None = None
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.summary = summarise_arguments(arguments)
        text = (
            detail
            if detail is not None
            else json.dumps(arguments, indent=2, ensure_ascii=False)[:4000]
        )
        self.detail = Static(neutralise(text), markup=False)
        super().__init__(self.detail, title=literal(f"⋯ {name} {self.summary}"), collapsed=True)

    def finish(self, ok: bool, duration: float, preview: str) -> None:
        mark = "✓" if ok else "✗"
        self.title = literal(f"{mark} {self.tool_name} {self.summary}  {duration:.2f}s · {preview}")
        self.add_class("-ok" if ok else "-error")


class AssistantMessage(Widget):
    """A reply that grows as text streams in."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; }
    AssistantMessage Markdown { margin: 0; padding: 0 1; }
    AssistantMessage.-interrupted Markdown { border-left: thick $warning; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.markdown = Markdown(neutralise(text))
        self.text = text
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield self.markdown

    async def write(self, fragment: str) -> None:
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        self.text += fragment
        await self._stream.write(neutralise(fragment))

    async def finish(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def reset(self) -> None:
        await self.finish()
        self.text = ""
        await self.markdown.update("")


class ErrorBlock(Static):
    DEFAULT_CSS = """
    ErrorBlock { margin: 1 0 0 0; padding: 0 1; border-left: thick $error; color: $error; }
    """


def summarise_arguments(arguments: dict[str, Any]) -> str:
    if "command" in arguments:
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


Spec = tuple  # ("user", text) | ("assistant", text, interrupted) | ("reasoning", text)
#   | ("tool", title, detail, classes) | ("error", text)


def snapshot(widget: Widget) -> Spec:
    """What is needed to draw `widget` again after it left the DOM."""
    if isinstance(widget, UserMessage):
        return ("user", str(widget.content))
    if isinstance(widget, AssistantMessage):
        return ("assistant", widget.text, widget.has_class("-interrupted"))
    if isinstance(widget, ToolRow):
        return ("tool", str(widget.title), str(widget.detail.content), " ".join(widget.classes))
    if isinstance(widget, ReasoningBlock):
        return ("reasoning", widget.text)
    return ("error", str(widget.content) if isinstance(widget, Static) else "")


def rebuild(spec: Spec) -> Widget:
    kind = spec[0]
    if kind == "user":
        return UserMessage(spec[1])
    if kind == "assistant":
        message = AssistantMessage(spec[1])
        message.set_class(spec[2], "-interrupted")
        return message
    if kind == "reasoning":
        return ReasoningBlock(spec[1], done=True)
    if kind == "tool":
        row = ToolRow("", "", {}, detail=spec[2])
        row.title = literal(spec[1])
        row.set_classes(spec[3])
        return row
    return ErrorBlock(neutralise(spec[1]), markup=False)


@dataclass
class _Turn:
    """One user turn: its widgets while mounted, or the specs to rebuild them."""

    widgets: list[Widget] = field(default_factory=list)
    specs: list[Spec] = field(default_factory=list)


class ChatView(VerticalScroll):
    DEFAULT_CSS = """
    ChatView { padding: 0 1; scrollbar-size-vertical: 1; }
    ChatView #earlier { width: 100%; margin: 1 0 0 0; }
    ChatView #earlier.-hidden { display: none; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.turns: list[_Turn] = []
        self.unmounted = 0  # turns at the start that are not in the DOM
        self.current: AssistantMessage | None = None
        self.tool_rows: dict[str, ToolRow] = {}
        self.thinking: ReasoningBlock | None = None  # the reasoning block still streaming
        self._remounting = False

    def compose(self) -> ComposeResult:
        yield Button("Show earlier messages", id="earlier", classes="-hidden", variant="default")

    async def _add(self, widget: Widget) -> None:
        if self.thinking is not None:  # whatever comes next ends the reasoning
            self.thinking.finish()
            self.thinking = None
        if not self.turns:
            self.turns.append(_Turn())
        self.turns[-1].widgets.append(widget)
        await self.mount(widget)

    async def add_user(self, text: str) -> None:
        self.turns.append(_Turn())
        self.current = None
        await self._add(UserMessage(text))
        await self._prune()
        self.scroll_end(animate=False)

    async def _assistant(self) -> AssistantMessage:
        if self.current is None:
            self.current = AssistantMessage()
            await self._add(self.current)
        return self.current

    async def stream(self, text: str) -> None:
        message = await self._assistant()
        await message.write(text)
        self.scroll_end(animate=False)

    async def reset_stream(self) -> None:
        if self.current is not None:
            await self.current.reset()
        if self.thinking is not None:
            self.turns[-1].widgets.remove(self.thinking)
            await self.thinking.remove()
            self.thinking = None

    async def reasoning(self, text: str) -> None:
        """Reasoning streamed by the model: into a collapsed block of its own, never the answer."""
        if self.thinking is None:
            if self.current is not None:
                await self.current.finish()
                self.current = None  # answer text after this reasoning goes into a new block
            block = ReasoningBlock()
            await self._add(block)
            self.thinking = block
        self.thinking.append(text)

    async def tool_started(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        if self.current is not None:
            await self.current.finish()
            self.current = None  # text after the tool call goes into a new block
        row = ToolRow(call_id, name, arguments)
        self.tool_rows[call_id] = row
        await self._add(row)
        self.scroll_end(animate=False)

    def tool_finished(self, call_id: str, ok: bool, duration: float, preview: str) -> None:
        row = self.tool_rows.pop(call_id, None)
        if row is not None:
            row.finish(ok, duration, preview)

    async def turn_finished(self, interrupted: bool) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.current is not None:
            await self.current.finish()
            if interrupted:
                self.current.add_class("-interrupted")
        if interrupted:
            await self._add(ErrorBlock("Interrupted. What was streamed is kept.", markup=False))
        self.current = None
        self.scroll_end(animate=False)

    async def error(self, text: str, detail: str) -> None:
        if self.current is not None:  # a reply cut off by the error must not look finished
            self.current.add_class("-interrupted")
        await self._add(ErrorBlock(neutralise(f"{text}\n{detail}".strip()), markup=False))
        self.scroll_end(animate=False)

    async def load_history(self, items: list[tuple[str, str]]) -> None:
        """Render a resumed session: (role, text) pairs of user and assistant messages."""
        for role, text in items:
            if role == "user" or not self.turns:
                self.turns.append(_Turn())
            spec: Spec = ("user", text) if role == "user" else ("assistant", text, False)
            self.turns[-1].specs.append(spec)
        self.unmounted = len(self.turns)
        await self._remount(max(0, len(self.turns) - RESUME_MOUNTED))
        self.scroll_end(animate=False)

    async def _prune(self) -> None:
        """Keep at most MAX_MOUNTED turns in the DOM; older ones come back on request."""
        keep_from = max(0, len(self.turns) - MAX_MOUNTED)
        for turn in self.turns[self.unmounted : keep_from]:
            turn.specs = [snapshot(w) for w in turn.widgets]
            for widget in turn.widgets:
                await widget.remove()
            turn.widgets = []
        self.unmounted = max(self.unmounted, keep_from)
        self._label_earlier()

    async def _remount(self, start: int) -> None:
        widgets: list[Widget] = []
        for turn in self.turns[start : self.unmounted]:
            turn.widgets = [rebuild(spec) for spec in turn.specs]
            widgets += turn.widgets
        if widgets:
            await self.mount_all(widgets, after=self.query_one("#earlier", Button))
        self.unmounted = start
        self._label_earlier()

    def _label_earlier(self) -> None:
        earlier = self.query_one("#earlier", Button)
        earlier.label = (
            f"Show {min(REMOUNT_BATCH, self.unmounted)} earlier turns ({self.unmounted} hidden)"
        )
        earlier.set_class(self.unmounted == 0, "-hidden")

    @on(Button.Pressed, "#earlier")
    async def show_earlier(self) -> None:
        await self._remount(max(0, self.unmounted - REMOUNT_BATCH))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Scrolling back to the top brings the previous batch of turns back into the DOM.
        if new_value == 0 and old_value > 0 and self.unmounted and not self._remounting:
            self._remounting = True
            self.call_later(self._scroll_back)

    async def _scroll_back(self) -> None:
        anchor = next((w for turn in self.turns[self.unmounted :] for w in turn.widgets), None)
        try:
            await self._remount(max(0, self.unmounted - REMOUNT_BATCH))
            if anchor is not None:
                self.call_after_refresh(self.scroll_to_widget, anchor, top=True, animate=False)
        finally:
            self._remounting = False
