"""The conversation: user messages, streamed assistant replies, inline tool rows, errors.

One widget of lines per assistant reply, drawn by `MarkdownLines` a step at a time. Past MAX_MOUNTED
turns the oldest widgets are removed from the DOM (the messages stay in the session) and a
button at the top mounts them back in batches, so a 2,000-message session stays responsive.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Static

from hermes_tui.core.text import neutralise
from hermes_tui.core.transcript import Failure, Said, Thought, ToolRun, TranscriptItem
from hermes_tui.ui import textual_compat
from hermes_tui.ui.markdown_lines import MarkdownLines, markdown_style
from hermes_tui.ui.text import literal
from hermes_tui.ui.widgets.copyable import CopyableMessage, copy_text
from hermes_tui.ui.widgets.reasoning import ReasoningBlock

MAX_MOUNTED = 60
REMOUNT_BATCH = 30
RESUME_MOUNTED = 20  # a resumed session shows its last turns at once; the rest on request


class UserMessage(CopyableMessage, Static):
    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
        color: $text;
    }
    UserMessage:focus { border-left: thick $accent; background: $primary 20%; }
    """
    COPY_WHAT = "your message"

    def __init__(self, text: str) -> None:
        super().__init__(neutralise(text), markup=False)
        self.text = text


class ToolRow(Collapsible):
    """One tool call: name, argument summary, then duration, ok/error and a preview.

    Expanded, it shows the arguments and the call's whole output in a virtualised log (built
    when first opened, so a long session of closed rows costs nothing); `c` copies the output.
    """

    DEFAULT_CSS = """
    ToolRow { margin: 0 0 0 2; padding: 0; border: none; background: transparent; }
    ToolRow > CollapsibleTitle { color: $text-muted; padding: 0; }
    ToolRow.-error > CollapsibleTitle { color: $error; }
    ToolRow.-ok > CollapsibleTitle { color: $success; }
    ToolRow Static { color: $text-muted; padding: 0 0 0 2; }
    ToolRow OutputLog { margin: 0 0 0 2; }
    """
    BINDINGS = [Binding("c", "copy_output", "Copy output")]
    OPEN_DIFF_LINES = 16  # an edit's diff up to this many lines shows without a click

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: dict[str, Any],
        detail: str | None = None,
        output: str | None = None,
        diff: str = "",
    ) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.summary = summarise_arguments(arguments)
        text = detail if detail is not None else arguments_detail(arguments)
        self.detail = Static(neutralise(text), markup=False)
        self.output = output  # None while running
        self.diff = diff  # a file edit's unified diff: shown instead of arguments and output
        self.call_label = f"{name} {self.summary}".strip()
        super().__init__(self.detail, title=literal(f"⋯ {self.call_label}"), collapsed=True)

    def finish(
        self, ok: bool, duration: float, preview: str, output: str = "", diff: str = ""
    ) -> None:
        mark = "✓" if ok else "✗"
        if diff:
            from hermes_tui.ui.widgets.diff import diff_stat

            added, removed = diff_stat(diff)
            preview = f"+{added} −{removed}"
        self.title = literal(f"{mark} {self.call_label}  {duration:.2f}s · {preview}")
        self.add_class("-ok" if ok else "-error")
        self.output = output or preview
        self.diff = diff
        if diff and diff.count("\n") < self.OPEN_DIFF_LINES:
            self.collapsed = False  # a small edit is shown at once
        if not self.collapsed:
            self._show_output()

    def watch_collapsed(self, collapsed: bool) -> None:
        # Collapsible's own _watch_collapsed still runs (textual_compat); this only builds the
        # output view.
        if not collapsed and self.output is not None:
            self._show_output()

    def _show_output(self) -> None:
        from hermes_tui.ui.widgets.output import OutputLog

        contents = self.query_one(Collapsible.Contents)
        if self.diff:
            from hermes_tui.ui.widgets.diff import DiffBlock

            if not contents.query(DiffBlock):
                self.detail.display = False  # the arguments repeat the new text: the diff says it
                contents.mount(DiffBlock(self.diff))
        elif not contents.query(OutputLog):
            contents.mount(OutputLog(self.output or ""))

    def action_copy_output(self) -> None:
        if self.output is None:
            self.app.notify("The call is still running", timeout=2)
            return
        if self.diff:
            copy_text(self, self.diff, "the diff")
        else:
            copy_text(self, self.output, "output")


class GrowsInPlace:
    """A widget whose lines stay put when it grows taller: only the new ones are repainted.

    Textual repaints a widget whole when its size changes. A streaming reply grows by a line
    or two per step, and the reply's lines that changed are marked by `RenderedMarkdown.show`:
    repainting the rest (every visible line of the reply and of the message around it, every
    step) was a third of a stream's cost. A new width, a restyle or a plain `refresh()` still
    repaints everything. A mixin, first among a widget's bases.
    """

    _grown: tuple[int, int] | None = None  # (old, new) height while the size is updated

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        old = textual_compat.region_size(
            self
        )  # the whole region's size, as `size` is (self.size is the content's)
        if old.width and old.width == size.width and old.height != size.height:
            self._grown = (old.height, size.height)
        try:
            # layout=False: the new virtual size is set without asking for another layout
            # pass, which would find nothing to do (these widgets do not scroll).
            return super()._size_updated(size, virtual_size, container_size, layout=False)
        finally:
            self._grown = None

    def _set_dirty(self, *regions: Region) -> None:
        if not regions and self._grown is not None:
            before, after = self._grown  # the bottom padding line moved: both places repaint
            top = max(min(before, after) - 2, 0)
            regions = (Region(0, top, self.size.width, abs(after - before) + 3),)
        elif not regions:
            self.repainted_whole()
        super()._set_dirty(*regions)

    def repainted_whole(self) -> None:
        """Called when every line is to be drawn again (focus, theme, a new width)."""


class RenderedMarkdown(GrowsInPlace, Widget):
    """A reply's lines, as its MarkdownLines drew them: one widget however long the reply.

    Every layout pass walks every mounted widget, and Textual's Markdown widget is a thousand
    of them for a 20 KB reply; this is one widget of lines, so it costs nothing while later
    replies stream. Its text can still be selected and its links clicked.
    """

    DEFAULT_CSS = """
    RenderedMarkdown { height: auto; width: 1fr; padding: 0 1 1 1; }
    """
    ALLOW_SELECT = True

    def __init__(self) -> None:
        super().__init__()
        self.lines: MarkdownLines | None = None
        self._base: Style | None = None  # the widget's own colours, under the reply's

    @property
    def strips(self) -> list[Strip]:
        lines = self.lines
        return [] if lines is None else [*lines.settled, *lines.live]

    @property
    def rendered_width(self) -> int | None:
        return None if self.lines is None else self.lines.width

    def show(self, lines: MarkdownLines, first_changed: int, height: int) -> None:
        """Draw `lines`, `height` lines tall on screen until now; only those from
        `first_changed` on differ from what is on screen."""
        replaced = lines is not self.lines
        self.lines = lines
        grew = len(lines) != height
        if replaced or not self.size.width:
            self.refresh(layout=grew or replaced)
        else:  # only the changed lines are drawn again; the rest come from the cache
            bottom = max(len(lines), height)
            self.refresh(
                Region(0, first_changed, self.size.width, bottom - first_changed), layout=grew
            )

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 0 if self.lines is None else len(self.lines)

    def repainted_whole(self) -> None:
        self._base = None  # focus or theme changed: the colours under the reply's own

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        strip = None if self.lines is None else self.lines.line(y)
        if strip is None:
            return Strip.blank(width)
        if self._base is None:  # found once per repaint: it walks the widget's ancestors
            self._base = self.rich_style
        # The widget's colours under the reply's own; then where a mouse selection starts.
        line = strip.apply_style(self._base).apply_offsets(0, y)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = line.cell_length if end == -1 else end
            style = self.screen.get_component_rich_style("screen--selection")
            line = Strip.join(
                [
                    line.crop(0, start),
                    line.crop(start, end).apply_style(style),
                    line.crop(end, line.cell_length),
                ]
            )
        if line.cell_length != width:  # resized: shown cropped until it is drawn again
            line = line.crop_extend(0, width, None)
        return line

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.lines.text if self.lines else ""), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def action_link(self, href: str) -> None:
        """A link in the reply was clicked."""
        self.app.open_url(href)


class AssistantMessage(GrowsInPlace, CopyableMessage):
    """A reply: its text drawn into one RenderedMarkdown by a MarkdownLines, a step at a time.

    Text is drawn one step per STEP_INTERVAL, each step sized to take about STEP_BUDGET
    seconds, so a burst from a fast provider (or a long reply brought back on scroll-back)
    never stalls the screen: keys are handled between steps, the rest waits. A step draws only
    the reply's last few blocks again (MarkdownLines settles the rest once), and repaints only
    the lines that changed, so the hundredth reply costs what the first did. A finished reply
    is drawn again only for a new width or theme, and keeps showing its old lines until the new
    ones are complete.
    """

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; }
    AssistantMessage.-interrupted { border-left: thick $warning; }
    AssistantMessage:focus > RenderedMarkdown {
        background: $primary 15%;
        outline-left: thick $accent;
    }
    """
    COPY_WHAT = "the reply"
    STEP_BUDGET = 0.008  # seconds of work per step; the characters per step follow from it
    FEED_RANGE = (80, 1500)  # characters per step, at least and at most
    STEP_INTERVAL = 1 / 12  # seconds between two steps: a stream is redrawn 12 times a second
    REDRAW_DELAY = 0.3  # while a terminal is being resized, redraw once it settles

    class Grew(Message):
        """More of the reply is on screen (the chat follows it to the bottom)."""

        def __init__(self, reply: AssistantMessage) -> None:
            super().__init__()
            self.reply = reply

        @property
        def control(self) -> AssistantMessage:
            return self.reply

    class Settled(Grew):
        """The reply is finished and drawn: nothing of it is parsed or drawn again."""

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__()
        self.text = text
        self.streaming = streaming
        self.body = RenderedMarkdown()
        self.lines: MarkdownLines | None = None  # what the steps draw into
        self._fed = 0  # characters of `text` drawn into `lines`
        self._shown_fed = 0  # ... into the lines on screen (older ones while drawn again)
        self._feed = 400  # characters for the next step, adjusted to STEP_BUDGET
        self._step: Timer | None = None
        self._last_step = 0.0
        self._interval = self.STEP_INTERVAL  # until the next step; longer after a slow one
        self._redraw: Timer | None = None
        self.updates = 0  # steps that drew text (tests count them)

    @property
    def settled(self) -> bool:
        """Finished and drawn: nothing of it is parsed or drawn any more."""
        return not self.streaming and self.lines is not None and self.lines.finished

    @property
    def undrawn(self) -> int:
        """Characters of the text not drawn into the lines on screen yet."""
        return len(self.text) - self._fed if self.lines is not None else len(self.text)

    @property
    def redrawing(self) -> bool:
        """A finished reply waiting to be, or being, drawn again at a new width, or drawn and
        not laid out yet: its height on screen is not final."""
        if self.streaming:
            return False
        if not self.settled:
            return True
        body = self.body
        return (
            self.lines.width != body.content_size.width
            or body.lines is not self.lines
            or body.content_size.height != len(self.lines)
        )

    def compose(self) -> ComposeResult:
        yield self.body

    def on_mount(self) -> None:
        # Not `_pump_soon()` here: during on_mount `is_mounted` is still False, so a reply
        # mounted with its text (a resumed session, scroll-back) would never be drawn.
        self.call_after_refresh(self._pump_soon)

    def on_focus(self) -> None:
        self.body.refresh()  # its lines are drawn over this widget's background

    def on_blur(self) -> None:
        self.body.refresh()

    def write(self, fragment: str) -> None:
        self.text += fragment
        self.streaming = True
        self._pump_soon()

    def finish(self) -> None:
        self.streaming = False
        self._pump_soon()

    async def reset(self) -> None:
        self.text = ""
        self.body.lines = None
        self.body.refresh(layout=True)
        await self.redraw()

    async def redraw(self) -> None:
        """Draw the whole reply again from its text (a new width or theme, or a reset)."""
        self._fed = 0
        self.lines = None
        self._pump_soon()

    def _pump_soon(self) -> None:
        if self._step is None and self.is_mounted:
            wait = self._last_step + self._interval - time.monotonic()
            self._step = self.set_timer(max(wait, 0.001), self._pump)

    def _pump(self) -> None:
        """One step: draw the next text (or the end of the reply)."""
        self._step = None
        self._last_step = time.monotonic()
        width = self.body.content_size.width
        if not self.body.is_mounted:
            return
        if not width:  # not laid out yet
            self._pump_soon()
            return
        lines = self.lines
        if lines is None or lines.width != width:
            lines = self.lines = MarkdownLines(width, markdown_style(self.app))
            self._fed = 0
        # A reply drawn again keeps its old lines on screen until the new ones are complete,
        # or, while it streams, until they hold as much of its text: it does not collapse.
        old = self.body.lines
        shown = old is None or old is lines
        height = len(old) if old is not None else 0
        if self._fed < len(self.text):
            started = time.perf_counter()
            chunk = self.text[self._fed : self._fed + self._feed]
            if chunk.endswith("\r") and (self.streaming or self._fed + len(chunk) < len(self.text)):
                # `neutralise` keeps "\r\n" as a line break but shows a lone "\r": the two
                # must reach it together.
                chunk = chunk[:-1]
                if not chunk:
                    self._pump_soon()
                    return
            self._fed += len(chunk)
            self.updates += 1
            first_changed = lines.feed(neutralise(chunk))
            if not shown and self.streaming and self._fed >= self._shown_fed:
                shown, first_changed = True, 0  # caught up: every line is new
            if shown:
                self.body.show(lines, first_changed, height)
                self._shown_fed = self._fed
                self.post_message(self.Grew(self))
            elapsed = max(time.perf_counter() - started, 0.001)
            # A step that cannot be made small (a list of hundreds of items is one block,
            # drawn again whole) comes less often: drawing takes at most a quarter of the time.
            self._interval = max(self.STEP_INTERVAL, 4 * elapsed)
            low, high = self.FEED_RANGE
            fits = int(len(chunk) * self.STEP_BUDGET / elapsed)  # at this step's pace
            self._feed = max(low, min(high, 2 * len(chunk), fits))  # grows by 2× at most
            self._pump_soon()
        elif not self.streaming and not lines.finished:
            first_changed = lines.feed("", final=True)
            self.body.show(lines, first_changed if shown else 0, height)
            self._shown_fed = self._fed
            self.post_message(self.Settled(self))

    def on_resize(self) -> None:
        if self.lines is not None and self.lines.width != self.body.content_size.width:
            if self._redraw is not None:
                self._redraw.stop()
            self._redraw = self.set_timer(self.REDRAW_DELAY, self.redraw)


class ErrorBlock(Static):
    DEFAULT_CSS = """
    ErrorBlock { margin: 1 0 0 0; padding: 0 1; border-left: thick $error; color: $error; }
    """


RAW = "_raw"  # the core's key for arguments that were not a JSON object (agent/loop.py)
DETAIL_CHARS = 4000


def raw_arguments(arguments: dict[str, Any]) -> str | None:
    """The model's argument text when it was not a JSON object, else None."""
    return str(arguments[RAW]) if set(arguments) == {RAW} else None


def arguments_detail(arguments: dict[str, Any], limit: int | None = DETAIL_CHARS) -> str:
    """A call's arguments as a row or the trace shows them: JSON, what the model sent when it
    was not JSON, or that there were none; cut at `limit` characters."""
    raw = raw_arguments(arguments)
    if not arguments or raw is not None and not raw.strip():
        text = "(no arguments)"
    elif raw is not None:
        text = f"(not JSON) {raw}"
    else:
        text = json.dumps(arguments, indent=2, ensure_ascii=False)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit:,} more characters)"
    return text


def summarise_arguments(arguments: dict[str, Any]) -> str:
    raw = raw_arguments(arguments)
    if raw is not None:
        text = raw
    elif "command" in arguments:
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


@dataclass(frozen=True)
class DrawnTool:
    """A tool row as it was drawn, kept to draw it again after it left the DOM."""

    title: str
    detail: str
    classes: str
    output: str
    diff: str = ""


Spec = Said | Thought | Failure | DrawnTool  # what a turn keeps of a widget while unmounted


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
    return ErrorBlock(neutralise(spec.text), markup=False)


@dataclass
class _Turn:
    """One user turn: its widgets while mounted, or the specs to rebuild them."""

    widgets: list[Widget] = field(default_factory=list)
    specs: list[Spec] = field(default_factory=list)


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
        if self._resized_since_kept and not any(
            reply.redrawing for reply in self.query_children(AssistantMessage)
        ):
            # Let go only when a second look, after the next frame, finds nothing changed: a
            # reply's new height can land in the frame after it says it is drawn.
            if self._kept_checked:
                self._kept = None
            else:
                self._kept_checked = True
                self.call_after_refresh(self._restore_view)
        else:
            self._kept_checked = False

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
        newest = self.turns[-1].widgets[-1] if self.turns and self.turns[-1].widgets else None
        if message.control is not newest or not self.following:
            return  # a reader who scrolled up keeps their place; the reply grows below
        # The layout that shows the new lines also scrolls to them (one frame per step;
        # `scroll_end` would scroll in a second frame after it).
        self._stick = True

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

    async def turn_finished(self, interrupted: bool) -> None:
        if self.thinking is not None:
            self.thinking.finish()
            self.thinking = None
        if self.current is not None:
            self.current.finish()
            if interrupted:
                self.current.add_class("-interrupted")
        if interrupted:
            await self._add(ErrorBlock("Interrupted. What was streamed is kept.", markup=False))
        self.current = None
        self._follow()

    def _follow(self) -> None:
        """To the end, unless the reader scrolled up (an error still goes there: `error`)."""
        if self.following:
            self.scroll_end(animate=False)

    async def error(self, text: str, detail: str) -> None:
        if self.current is not None:  # a reply cut off by the error must not look finished
            self.current.add_class("-interrupted")
        await self._add(ErrorBlock(neutralise(f"{text}\n{detail}".strip()), markup=False))
        self.scroll_end(animate=False)

    async def load_history(self, items: list[TranscriptItem]) -> None:
        """Render a resumed session's transcript (core/transcript.py)."""
        for item in items:
            if (isinstance(item, Said) and item.role == "user") or not self.turns:
                self.turns.append(_Turn())
            self.turns[-1].specs.append(tool_spec(item) if isinstance(item, ToolRun) else item)
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

    def focus_message(self, origin: Widget | None = None, step: int = -1) -> bool:
        """Focus the message `step` away from `origin` (or the newest one); False past the end."""
        messages = [w for w in self.query_children(CopyableMessage) if w.display]
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
