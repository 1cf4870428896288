"""The conversation: user messages, streamed assistant replies, inline tool rows, errors.

One widget of lines per assistant reply, drawn by `MarkdownLines` a step at a time. Past MAX_MOUNTED
turns the oldest widgets are removed from the DOM (the messages stay in the session) and a
button at the top mounts them back in batches, so a 2,000-message session stays responsive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Button, Static

from hermes_tui.core.text import neutralise
from hermes_tui.core.transcript import Failure, Said, Thought, ToolRun, TranscriptItem
from hermes_tui.ui import textual_compat
from hermes_tui.ui.text import literal
from hermes_tui.ui.widgets.copyable import CopyableMessage
from hermes_tui.ui.widgets.reasoning import ReasoningBlock
from hermes_tui.ui.widgets.reply import AssistantMessage, RenderedMarkdown
from hermes_tui.ui.widgets.tool_row import (
    DETAIL_CHARS,
    ToolRow,
    arguments_detail,
    summarise_arguments,
)
from hermes_tui.ui.widgets.user_message import UserMessage

__all__ = [
    "DETAIL_CHARS",
    "RESUME_MOUNTED",
    "AssistantMessage",
    "ChatView",
    "ErrorBlock",
    "RenderedMarkdown",
    "ToolRow",
    "UserMessage",
    "arguments_detail",
]

MAX_MOUNTED = 60
REMOUNT_BATCH = 30
RESUME_MOUNTED = 20  # a resumed session shows its last turns at once; the rest on request


class ErrorBlock(Static):
    """A failure (a provider error): framed in the error colour and titled, unlike anything the
    user or the model wrote. A turn the user stopped is titled "interrupted", in the warning
    colour: nothing failed."""

    DEFAULT_CSS = """
    ErrorBlock {
        margin: 1 0 0 0; padding: 0 1; border: round $error; background: $error 10%;
        color: $text-error; border-title-color: $error; border-title-style: bold;
    }
    ErrorBlock.-interrupted {
        border: round $warning; background: transparent; color: $text-warning;
        border-title-color: $warning;
    }
    """

    def __init__(self, text: str, title: str = "error") -> None:
        super().__init__(neutralise(text), markup=False)
        self.border_title = literal(title)
        self.title = title
        self.set_class(title == INTERRUPTED, "-interrupted")


class NoteBlock(Static):
    """What a command reports (/usage, /tools, a background task's answer): in the chat, never
    sent to the model. A dim frame titled with what reported it, so it never reads as one of
    the user's messages (a bar on the left) or a reply (no frame)."""

    DEFAULT_CSS = """
    NoteBlock {
        margin: 1 0 0 0; padding: 0 1; border: round $foreground 25%;
        color: $text-muted; border-title-color: $text-muted;
    }
    """

    def __init__(self, text: str, title: str = "note") -> None:
        super().__init__(neutralise(text), markup=False)
        self.border_title = literal(title)
        self.title = title


INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class DrawnNote:
    """A command's note (or an error) as it was drawn, kept to draw it again after it left
    the DOM."""

    text: str
    title: str
    error: bool = False


@dataclass(frozen=True)
class DrawnTool:
    """A tool row as it was drawn, kept to draw it again after it left the DOM."""

    title: str
    detail: str
    classes: str
    output: str
    diff: str = ""


Spec = Said | Thought | Failure | DrawnTool | DrawnNote  # what a turn keeps while unmounted


def tool_spec(run: ToolRun) -> DrawnTool:
    """A finished call from a stored session, drawn as it was when it ran (minus its duration)."""
    mark, state = ("✓", "-ok") if run.ok else ("✗", "-error")
    detail = arguments_detail(run.arguments)
    summary = f"{run.name} {summarise_arguments(run.arguments)}".strip()
    title = f"{mark} {summary}  · {run.preview}"
    return DrawnTool(title, detail, f"-collapsed {state}", run.output, run.diff)


def snapshot(widget: Widget) -> Spec:
    """What is needed to draw `widget` again after it left the DOM."""
    if isinstance(widget, UserMessage):
        return Said("user", widget.text)
    if isinstance(widget, AssistantMessage):
        return Said("assistant", widget.text, widget.has_class("-interrupted"))
    if isinstance(widget, ToolRow):
        return DrawnTool(
            str(widget.title),
            str(widget.detail.content),
            " ".join(widget.classes),
            widget.output,
            widget.diff,
        )
    if isinstance(widget, ReasoningBlock):
        return Thought(widget.text)
    if isinstance(widget, NoteBlock):
        return DrawnNote(str(widget.content), widget.title)
    if isinstance(widget, ErrorBlock):
        return DrawnNote(str(widget.content), widget.title, error=True)
    return Failure(str(widget.content) if isinstance(widget, Static) else "")


def rebuild(spec: Spec) -> Widget:
    if isinstance(spec, Said) and spec.role == "user":
        return UserMessage(spec.text)
    if isinstance(spec, Said):
        message = AssistantMessage(spec.text)
        message.set_class(spec.interrupted, "-interrupted")
        return message
    if isinstance(spec, Thought):
        return ReasoningBlock(spec.text, done=True)
    if isinstance(spec, DrawnTool):
        row = ToolRow("", "", {}, detail=spec.detail, output=spec.output, diff=spec.diff)
        row.title = literal(spec.title)
        row.set_classes(spec.classes)
        return row
    if isinstance(spec, DrawnNote):
        return (ErrorBlock if spec.error else NoteBlock)(spec.text, spec.title)
    return ErrorBlock(spec.text)


@dataclass
class _Turn:
    """One user turn: its widgets while mounted, or the specs to rebuild them."""

    widgets: list[Widget] = field(default_factory=list)
    specs: list[Spec] = field(default_factory=list)


# Looks (one a frame) that find the chat the size it was kept at before the view is let go:
# panel toggles that cancel out before a layout bring no resize.
UNCHANGED_LOOKS = 3


class ChatView(VerticalScroll):
    DEFAULT_CSS = """
    ChatView { padding: 0 1; scrollbar-size-vertical: 1; scrollbar-gutter: stable; }
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
        # What the view showed before the panel changed its size: "bottom", or a widget and
        # its offset from the top of the view. Held until the new size took effect and the
        # replies are drawn again, the user scrolls, or new content arrives.
        self._kept: str | tuple[Widget, float] | None = None
        self._stick = False  # the next layout scrolls to the bottom (a reply grew there)
        self.following = True  # a growing reply keeps the view at the bottom
        self._resized_since_kept = False
        self._kept_size = Size(0, 0)  # the chat's size when the view was kept
        self._unchanged_looks = 0  # looks since then that found the chat that size still
        self._kept_checked = False  # nothing was redrawing at the last look

    def compose(self) -> ComposeResult:
        yield Button("Show earlier messages", id="earlier", classes="-hidden", variant="default")

    def on_mount(self) -> None:
        # One watcher for the whole conversation: frozen replies hold the old theme's colours.
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def keep_view(self) -> None:
        """Keep what is on screen while the chat changes size (the panel hidden, shown or
        resized): on the bottom if it was there, else on the reply it showed. A new width
        draws every reply again and their heights collapse meanwhile, which would otherwise
        leave the view near the top."""
        if self.scroll_y >= self.max_scroll_y - 1:
            self._kept = "bottom"
        else:
            first = next(
                (w for w in self.children if w.display and w.virtual_region.bottom > self.scroll_y),
                None,
            )
            self._kept = None if first is None else (first, first.virtual_region.y - self.scroll_y)
        self._resized_since_kept = False
        self._kept_size = self.size
        self._unchanged_looks = 0
        self._kept_checked = False
        self.call_after_refresh(self._restore_view)

    def _restore_view(self) -> None:
        kept = self._kept
        if kept == "bottom":
            self.scroll_end(animate=False, immediate=True)
        elif kept is not None:
            widget, offset = kept
            if widget.parent is self:
                self.scroll_to(y=widget.virtual_region.y - offset, animate=False, immediate=True)
        replies = list(self.query_children(AssistantMessage))
        # The new size has landed when a resize came or the chat's size is no longer the one
        # kept (on a busy machine the resize event may not come: seen twice, the view held for
        # good). Toggles that cancel out between two layouts leave the size as it was: a look
        # before a pending layout finds it so too, so the view waits for a few frames' looks.
        landed = self._resized_since_kept or self.size != self._kept_size
        if not landed:
            self._unchanged_looks += 1
        settled = landed or self._unchanged_looks >= UNCHANGED_LOOKS
        if settled and not any(reply.redrawing for reply in replies):
            # Let go only when a second look, after the next frame, finds nothing changed: a
            # reply's new height can land in the frame after it says it is drawn.
            if self._kept_checked:
                self._kept = None
            else:
                self._kept_checked = True
                self.call_after_refresh(self._restore_view)
        else:
            self._kept_checked = False
            for reply in replies:
                reply.refit()
            if not settled:  # no event may come to look again: the next frame does
                self.call_after_refresh(self._restore_view)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # A streaming reply grows the chat at every step. Setting the reactive virtual size
        # asks for another layout pass, which finds nothing to do: set it quietly.
        grew = virtual_size != self.virtual_size
        changed = super()._size_updated(size, virtual_size, container_size, layout=False)
        if grew:
            if layout:
                # In a layout pass a new virtual size changes the chat's place in the screen's
                # map, so the frame this pass draws repaints the whole chat, its scrollbar too.
                # The scrollbar's own request would draw it again in a frame of its own.
                textual_compat.quiet_scrollbar_repaint(self)
            self.watch_virtual_size()
        return changed

    def watch_virtual_size(self) -> None:
        if self._kept is not None:
            self.call_after_refresh(self._restore_view)

    def on_resize(self) -> None:
        if self._kept is not None:
            self._resized_since_kept = True
            self.call_after_refresh(self._restore_view)

    def on_mouse_scroll_up(self) -> None:
        self._kept = None  # the user takes over
        self._stick = False

    def on_mouse_scroll_down(self) -> None:
        self._kept = None

    def on_mouse_down(self) -> None:
        self._kept = None  # the scrollbar grabbed, or a row clicked

    async def _theme_changed(self) -> None:
        for message in self.query_children(AssistantMessage):
            await message.redraw()

    async def _add(self, widget: Widget) -> None:
        self._kept = None  # new content: it scrolls as it always does
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
            self.current = AssistantMessage(streaming=True)
            await self._add(self.current)
        return self.current

    async def stream(self, text: str) -> None:
        self._kept = None
        message = await self._assistant()
        message.write(text)  # the chat follows when the text is drawn (`_reply_grew`)

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
                self.current.finish()
                self.current = None  # answer text after this reasoning goes into a new block
            block = ReasoningBlock()
            await self._add(block)
            self.thinking = block
        self.thinking.append(text)

    @on(AssistantMessage.Grew)
    def _reply_grew(self, message: AssistantMessage.Grew) -> None:
        # Follow the newest reply while it is drawn, also after its turn ended (a burst from a
        # fast provider is drawn in steps after the last event arrived).
        if self._kept is not None:  # drawn again at a new width: the view stays where it was
            self.call_after_refresh(self._restore_view)
            return
        if not self.following or message.control is not self._newest_reply():
            return  # a reader who scrolled up keeps their place; the reply grows below
        # The layout that shows the new lines also scrolls to them (one frame per step;
        # `scroll_end` would scroll in a second frame after it).
        self._stick = True

    def _newest_reply(self) -> AssistantMessage | None:
        """The last reply of the last turn: still drawn after an "Interrupted" notice below it,
        which must stay in view."""
        widgets = self.turns[-1].widgets if self.turns else []
        return next((w for w in reversed(widgets) if isinstance(w, AssistantMessage)), None)

    def arrange(self, size: Size, optimal: bool = False) -> textual_compat.DockArrangeResult:
        arranged = super().arrange(size, optimal)
        if self._stick:
            self._stick = False
            # As Textual's own anchoring does, but never below the top of a short chat.
            view = self.container_size.height - self.scrollbar_size_horizontal
            bottom = max(0, arranged.spatial_map.total_region.bottom - view)
            if bottom != self.scroll_y:
                self.set_reactive(Widget.scroll_y, bottom)
                self.set_reactive(Widget.scroll_target_y, bottom)
                self.vertical_scrollbar.set_reactive(ScrollBar.position, bottom)
        return arranged

    async def tool_started(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        if self.current is not None:
            self.current.finish()
            self.current = None  # text after the tool call goes into a new block
        row = ToolRow(call_id, name, arguments)
        self.tool_rows[call_id] = row
        await self._add(row)
        self._follow()

    def tool_finished(
        self,
        call_id: str,
        ok: bool,
        duration: float,
        preview: str,
        output: str = "",
        diff: str = "",
    ) -> None:
        row = self.tool_rows.pop(call_id, None)
        if row is not None:
            row.finish(ok, duration, preview, output, diff)

    def expand_last_tool(self) -> None:
        """Open the newest tool row (the user's own `!command`: its output is what they asked
        to see)."""
        rows = [w for w in self.turns[-1].widgets if isinstance(w, ToolRow)] if self.turns else []
        if rows:
            rows[-1].collapsed = False
            self.scroll_end(animate=False)

    async def turn_finished(self, interrupted: bool) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.current is not None:
            self.current.finish()
            if interrupted:
                self.current.add_class("-interrupted")
        if interrupted:
            await self._add(ErrorBlock("Interrupted. What was streamed is kept.", INTERRUPTED))
        self.current = None
        self._follow()

    def _follow(self) -> None:
        """To the end, unless the reader scrolled up (an error still goes there: `error`)."""
        if self.following:
            self.scroll_end(animate=False)

    async def error(self, text: str, detail: str) -> None:
        if self.current is not None:  # a reply cut off by the error must not look finished
            self.current.add_class("-interrupted")
        await self._add(ErrorBlock(f"{text}\n{detail}".strip()))
        self.scroll_end(animate=False)

    async def note(self, text: str, title: str = "note") -> None:
        """What a command reports, framed and titled with what reported it (`/tools`)."""
        await self._add(NoteBlock(text, title))
        self.scroll_end(animate=False)

    async def load_history(self, items: list[TranscriptItem]) -> None:
        """Render a resumed session's transcript (core/transcript.py)."""
        for item in items:
            if (isinstance(item, Said) and item.role == "user") or not self.turns:
                self.turns.append(_Turn())
            self.turns[-1].specs.append(tool_spec(item) if isinstance(item, ToolRun) else item)
        self.unmounted = len(self.turns)
        await self._remount(max(0, len(self.turns) - RESUME_MOUNTED))
        self.hold_bottom()

    def hold_bottom(self) -> None:
        """Stay on the newest message while the replies just mounted are drawn: each one grows
        in steps after it is mounted, and a single scroll to the end would be left far above."""
        self._kept = "bottom"
        self._resized_since_kept = True  # released once nothing is being drawn (_restore_view)
        self._kept_checked = False
        self.scroll_end(animate=False)
        self.call_after_refresh(self._restore_view)

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

    def focus_message(self, origin: Widget | None = None, step: int = -1) -> bool:
        """Focus the message or tool row `step` away from `origin` (or the newest one); False
        past the end."""
        messages = [
            w for w in self.children if isinstance(w, (CopyableMessage, ToolRow)) and w.display
        ]
        if not messages:
            return False
        if origin is None or origin not in messages:
            target = messages[-1]
        else:
            index = messages.index(origin) + step
            if not 0 <= index < len(messages):
                return False
            target = messages[index]
        target.focus()
        return True

    @on(CopyableMessage.Move)
    def _move_focus(self, message: CopyableMessage.Move) -> None:
        message.stop()
        if not self.focus_message(message.origin, message.step):
            if message.step > 0:  # past the newest message: back to the box
                self.post_message(CopyableMessage.Leave())
            else:
                self.scroll_home(animate=False)  # the "earlier turns" button is up there

    @on(Button.Pressed, "#earlier")
    async def show_earlier(self) -> None:
        await self._remount(max(0, self.unmounted - REMOUNT_BATCH))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Scrolled to the end, the chat follows a streaming reply again; scrolled up, it stops.
        if new_value >= self.max_scroll_y - 1:
            self.following = True
        elif new_value < old_value:
            self.following = False
            self._stick = False  # a step laid out but not yet followed must not pull them back
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
