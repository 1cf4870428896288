"""An assistant reply: one widget of lines, drawn by `MarkdownLines` a step at a time, whose
lines stay put as it grows (only new ones are repainted)."""

from __future__ import annotations

import time

from rich.style import Style
from textual.app import ComposeResult
from textual.geometry import Region, Size
from textual.message import Message
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from hermes_tui.core.text import neutralise
from hermes_tui.ui import textual_compat
from hermes_tui.ui.markdown_lines import MarkdownLines, markdown_style
from hermes_tui.ui.widgets.copyable import CopyableMessage


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
        if not self.body.is_mounted or not width:  # not mounted or laid out yet: ask again
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
            self._redraw = self.set_timer(self.REDRAW_DELAY, self._redraw_due)

    def refit(self) -> None:
        """Draw again if the reply settled at a width that is no longer its own and no redraw
        is on its way. Panel toggles in quick succession on a busy machine can settle a redraw
        at a width that a later resize (seen while it was being drawn) had already left: no
        further resize comes, and its height would stay wrong, holding the chat's kept view."""
        width = self.body.content_size.width
        lines = self.lines
        if (
            lines is not None
            and self.settled
            and width
            and lines.width != width
            and self._redraw is None
        ):
            self._redraw = self.set_timer(self.REDRAW_DELAY, self._redraw_due)

    async def _redraw_due(self) -> None:
        self._redraw = None
        await self.redraw()
