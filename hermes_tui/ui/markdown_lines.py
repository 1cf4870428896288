"""Markdown drawn as lines, a few blocks at a time: how a reply reaches the screen.

A reply's text is cut at its top-level blocks (markdown-it's line map). Blocks that can no
longer change, all but the last KEEP_LIVE, are drawn once and kept as lines; each update draws
only the live tail again. A step costs what its tail costs, however long the reply already is,
and no widget is made per block: Textual's `Markdown` widget makes one per paragraph, list item
and table cell, and laying them out and throwing them away was most of a streamed reply's cost
(issue 15).

Drawing is Rich's Markdown with our own elements (headings left-aligned, code fenced with its
language, links clickable) in the colours of the app's theme (`MarkdownStyle.from_variables`).

Known difference from one pass over the whole text: a reference link (`[text][name]`) whose
definition is not in the same drawing as the link (drawn before it, or arriving after the link's
block settled) shows as written.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from rich import box
from rich import markdown as rich_markdown
from rich.console import Console, ConsoleOptions, RenderResult
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from textual.color import Color
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.app import App

KEEP_LIVE = 2  # the last block may still grow; the one before may still merge into it
MAX_LIVE = 5  # blocks drawn per update before the settled ones are drawn once and kept
SETTLE_CHARS = 3000  # a live tail this long keeps only its last block live (a long code block)
FENCE_PIECE = 20  # lines of code highlighted together (and cached)
MAX_NESTING = 60  # markdown-it's limit (20 in its preset: a list ten deep hid the rest)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class MarkdownStyle:
    """What the lines depend on besides the text and the width: the theme's colours."""

    styles: tuple[tuple[str, str], ...]
    code_theme: str

    @classmethod
    def from_variables(cls, variables: Mapping[str, str], dark: bool) -> MarkdownStyle:
        """Styles from a Textual theme's CSS variables (`App.theme_variables`)."""
        background = _color(
            variables.get("background"), Color(0, 0, 0) if dark else Color(255, 255, 255)
        )
        foreground = _color(
            variables.get("foreground"), Color(224, 224, 224) if dark else Color(0, 0, 0)
        )

        def blend(name: str, amount: float) -> str:
            return background.blend(
                background + _color(variables.get(name), foreground), amount
            ).hex6

        def colour(name: str) -> str:
            return (background + _color(variables.get(name), foreground)).hex6

        styles = {
            "markdown.paragraph": "",
            "markdown.em": "italic",
            "markdown.strong": "bold",
            "markdown.s": "strike",
            "markdown.code": f"{colour('warning')} on {blend('warning', 0.12)}",
            "markdown.code_block": f"on {blend('foreground', 0.06)}",
            "markdown.block_quote": foreground.blend(background, 0.2).hex6,
            "markdown.block_quote.bar": colour("primary"),
            "markdown.list": "",
            "markdown.item": "",
            "markdown.item.bullet": f"bold {colour('primary')}",
            "markdown.item.number": f"bold {colour('primary')}",
            "markdown.hr": colour("secondary"),
            "markdown.h1.border": colour("primary"),
            "markdown.link": f"underline {colour('accent')}",
            "markdown.link_url": f"underline {colour('accent')}",
            "markdown.table.border": blend("foreground", 0.4),
            "markdown.table.header": f"bold {colour('primary')}",
            "markdown.kbd": "bold",
        }
        for level in range(1, 7):
            text_style = variables.get(f"markdown-h{level}-text-style", "bold")
            styles[f"markdown.h{level}"] = " ".join(
                part
                for part in (
                    _rich_text_style(text_style),
                    _heading_colour(variables.get(f"markdown-h{level}-color"), background),
                )
                if part
            )
        return cls(tuple(styles.items()), "monokai" if dark else "default")


def _color(value: str | None, default: Color) -> Color:
    if not value:
        return default
    try:
        return Color.parse(value)
    except Exception:  # a variable like "auto 60%": not a colour Rich can use
        return default


def _heading_colour(value: str | None, background: Color) -> str:
    if not value or value in ("transparent", "auto"):
        return ""
    try:
        return (background + Color.parse(value)).hex6  # its alpha over the background
    except Exception:
        return ""


def _rich_text_style(value: str) -> str:
    words = [
        w for w in value.split() if w in ("bold", "italic", "underline", "strike", "dim", "reverse")
    ]
    return " ".join(words)


@lru_cache(maxsize=8)
def _console(style: MarkdownStyle) -> Console:
    return Console(
        file=io.StringIO(),
        width=80,
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        emoji=False,
        markup=False,
        highlight=False,
        theme=Theme(dict(style.styles), inherit=True),
    )


# The one parser: blocks are cut with it and drawn from it.
_parser = MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING})
_parser.enable("table").enable("strikethrough")


class _Heading(rich_markdown.Heading):
    """Every heading left-aligned (Rich centres h1 in a box), with a blank line under h1–h2."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _Fence(rich_markdown.CodeBlock):
    """A code block, highlighted and wrapped on the code background, FENCE_PIECE lines at a time.

    The pieces are cached, so a long block that streams in is highlighted again only in its
    last piece at each step. A construct that spans two pieces (a long string, a comment) is
    highlighted in each as if it began there.
    """

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        background = console.get_style("markdown.code_block").bgcolor
        lines = str(self.text).rstrip().split("\n")
        for start in range(0, len(lines), FENCE_PIECE):
            piece = "\n".join(lines[start : start + FENCE_PIECE])
            for line in _highlighted(
                console,
                piece,
                self.lexer_name,
                self.theme,
                background.name if background else None,
                options.max_width,
            ):
                yield from line
                yield Segment.line()


@lru_cache(maxsize=512)
def _highlighted(
    console: Console, code: str, lexer: str, theme: str, background: str | None, width: int
) -> tuple[tuple[Segment, ...], ...]:
    syntax = Syntax(
        code,
        lexer,
        theme=theme,
        word_wrap=True,
        padding=(0, 1) if width > 4 else 0,  # narrower, the padding would leave no room
        background_color=background,
    )
    lines = console.render_lines(syntax, console.options.update(width=width, height=None))
    return tuple(tuple(line) for line in lines)


class _BlockQuote(rich_markdown.BlockQuote):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.elements, options.update(width=max(options.max_width - 2, 1)), style=self.style
        )
        bar = Segment("▌ ", console.get_style("markdown.block_quote.bar"))
        for line in lines:
            yield bar
            yield from line
            yield Segment.line()


class _Table(rich_markdown.TableElement):
    """A table without Rich's blank top and bottom edges: header, a rule, rows."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            style="markdown.table.border",
            show_edge=False,
            collapse_padding=True,
        )
        if self.header is not None and self.header.row is not None:
            for column in self.header.row.cells:
                heading = column.content.copy()
                heading.stylize("markdown.table.header")
                table.add_column(heading, justify=column.justify)
        if self.body is not None:
            for row in self.body.rows:
                table.add_row(*(cell.content for cell in row.cells))
        yield table


class _Rule(rich_markdown.HorizontalRule):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"), characters="─")
        yield Text()  # as Rich's own rule: the blank line after it is the rule's


class _Markdown(rich_markdown.Markdown):
    elements = {
        **rich_markdown.Markdown.elements,
        "table_open": _Table,
        "hr": _Rule,
        "heading_open": _Heading,
        "fence": _Fence,
        "code_block": _Fence,
        "blockquote_open": _BlockQuote,
    }

    def __init__(self, markup: str, *, code_theme: str, hyperlinks: bool) -> None:
        # Rich parses with raw HTML on and draws an HTML block as nothing: a reply could hide
        # text from its reader (`<!-- … -->`, `<script>`). Parsed as the blocks are cut
        # (`_parser`, HTML off), HTML shows as the text it is. Rich's own settings come from a
        # Markdown made once: Rich builds a new markdown-it parser in each one (about a third
        # of a short step's drawing).
        vars(self).update(vars(_settings(code_theme, hyperlinks)))
        self.markup = markup
        self.parsed = _parser.parse(markup)


@lru_cache(maxsize=4)
def _settings(code_theme: str, hyperlinks: bool) -> rich_markdown.Markdown:
    """A Markdown of nothing: Rich's settings for `code_theme` and `hyperlinks`, as its
    `__init__` sets them. Read only (each drawing replaces `markup` and `parsed`)."""
    return rich_markdown.Markdown("", code_theme=code_theme, hyperlinks=hyperlinks)


def render(text: str, width: int, style: MarkdownStyle) -> list[Strip]:
    """`text` drawn at `width` columns, one Strip per line (each exactly `width` cells)."""
    if not text.strip():
        return []
    console = _console(style)
    options = console.options.update(width=width, height=None)
    try:
        markdown = _Markdown(text, code_theme=style.code_theme, hyperlinks=True)
        lines = console.render_lines(markdown, options, pad=True, new_lines=False)
        rest = _unparsed(text, markdown.parsed)
        if rest.strip():  # past markdown-it's nesting limit: the rest is shown, as it is
            lines += [[]] + console.render_lines(Text(rest.strip("\n")), options, pad=True)
    except Exception:  # Rich, markdown-it or a lexer failed on odd input: the text as it is
        lines = console.render_lines(Text(text.rstrip()), options, pad=True, new_lines=False)
    return [_strip(line, width) for line in lines]


def _unparsed(text: str, tokens: list) -> str:
    """What markdown-it left out of `tokens`. At its nesting limit (`MAX_NESTING`: a list nested
    thirty deep, quotes in quotes) it stops and drops the rest of the text, which must not
    vanish from a reply; it is what follows the last piece of content that was parsed."""
    if not tokens or max(token.level for token in tokens) < MAX_NESTING - 2:
        return ""
    leaves = ("inline", "fence", "code_block", "hr", "html_block")
    end = max((t.map[1] for t in tokens if t.type in leaves and t.map), default=0)
    return "\n".join(text.split("\n")[end:])


def _strip(segments: list[Segment], width: int) -> Strip:
    if any(segment.style is not None and segment.style.link for segment in segments):
        segments = [_clickable(segment) for segment in segments]
    return Strip(segments, width)


def _clickable(segment: Segment) -> Segment:
    """A link's text calls the widget's `link` action when clicked (as Textual's Markdown did)."""
    style = segment.style
    if style is None or not style.link:
        return segment
    return Segment(segment.text, style + Style.from_meta({"@click": f"link({style.link!r})"}))


def blocks(text: str) -> list[tuple[str, int]]:
    """The top-level blocks of `text`: (token type, first line), in order."""
    try:
        tokens = _parser.parse(text)
    except Exception:  # nothing settles: the text is drawn whole at each step, as it is
        return []
    return [
        (token.type, token.map[0])
        for token in tokens
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]


class MarkdownLines:
    """A growing Markdown text as lines at one width: `settled` lines are never drawn again."""

    def __init__(self, width: int, style: MarkdownStyle) -> None:
        self.width = width
        self.style = style
        self.settled: list[Strip] = []
        self.live: list[Strip] = []
        self._tail = ""  # the text not yet settled
        self._settled_last = ""  # the type of the last settled block: "hr" draws its own gap
        self._glued = False  # the tail goes on a code block whose first pieces are settled
        self.finished = False

    def __len__(self) -> int:
        return len(self.settled) + len(self.live)

    def line(self, y: int) -> Strip | None:
        settled = len(self.settled)
        if y < settled:
            return self.settled[y]
        y -= settled
        return self.live[y] if y < len(self.live) else None

    @property
    def text(self) -> str:
        """Every line's text (what a selection copies)."""
        return "\n".join(strip.text.rstrip() for strip in (*self.settled, *self.live))

    def feed(self, text: str, *, final: bool = False) -> int:
        """Add `text`; draw what changed. Returns the first line that may differ from before."""
        self._tail += text
        first_changed = len(self.settled)
        if final:
            self._settle(self._tail, blocks(self._tail))
            self._tail = ""
            self.live = []
            self.finished = True
            return first_changed
        found = blocks(self._tail)
        # A long code block is the one block that may stand alone: text below a list or a
        # paragraph can still change it ("1" becomes a list item when its "." arrives).
        long_code = len(self._tail) > SETTLE_CHARS and bool(found) and found[-1][0] == "fence"
        keep = 1 if long_code else KEEP_LIVE
        if len(found) > MAX_LIVE or len(found) > keep and keep < KEEP_LIVE:
            cut = _line_offset(self._tail, found[-keep][1])
            self._settle(self._tail[:cut], found[:-keep])
            self._tail = self._tail[cut:]
            base = found[-keep][1]  # the kept blocks' lines, counted from the new tail
            found = [(kind, line - base) for kind, line in found[-keep:]]
        if found and found[-1][0] == "fence":
            self._settle_code(_line_offset(self._tail, found[-1][1]))
        self.live = self._draw(self._tail)
        return first_changed

    def _settle_code(self, start: int) -> None:
        """A long code block still streaming (the last block, from `start`): its first pieces
        are drawn once and kept. `_Fence` draws every FENCE_PIECE lines on their own, so those
        pieces drawn as a closed block of their own look as they will in the whole block."""
        opening, _, code = self._tail[start:].partition("\n")
        lines = code.split("\n")  # the last is partial (or the closing fence)
        pieces = (len(lines) - 1) // FENCE_PIECE - 1  # a whole piece stays live, and the rest
        if pieces < 1:
            return
        # A piece drawn alone loses the blank lines it ends with (`_Fence` strips the code's
        # end, as Rich does): cut only after a line with text.
        while pieces >= 1 and not lines[pieces * FENCE_PIECE - 1].strip():
            pieces -= 1
        if pieces < 1:
            return
        cut = pieces * FENCE_PIECE
        marker = opening.strip()
        closing = (
            opening[: len(opening) - len(opening.lstrip())]
            + marker[: len(marker) - len(marker.lstrip(marker[0]))]
        )
        kept = "\n".join(lines[:cut])
        self._settle(f"{self._tail[:start]}{opening}\n{kept}\n{closing}\n", [("fence", 0)])
        self._tail = opening + "\n" + "\n".join(lines[cut:])
        self._glued = True  # the rest continues the block: no gap above it

    def _settle(self, text: str, found: list[tuple[str, int]]) -> None:
        lines = self._draw(text)
        if lines:
            self.settled.extend(lines)
            self._settled_last = found[-1][0] if found else ""
            self._glued = False

    def _draw(self, text: str) -> list[Strip]:
        """`text` drawn as it would be below the settled lines in one pass over everything.

        Rich's spacing before a block depends on the block before it (none after a rule, one
        blank line after anything else, and a loose list brings its own), so the text is drawn
        behind a stand-in for that block whose lines are then dropped.
        """
        if not text.strip():
            return []
        if not self.settled or self._glued:
            return render(text, self.width, self.style)
        before, drop = ("---\n\n", 2) if self._settled_last == "hr" else ("x\n\n", 1)
        return render(before + text, self.width, self.style)[drop:]


def _line_offset(text: str, line: int) -> int:
    """Where line number `line` (0-based) of `text` starts."""
    offset = 0
    for _ in range(line):
        found = _LINE_BREAK.search(text, offset)  # as markdown-it counts lines: \r\n, \r, \n
        if found is None:
            return len(text)
        offset = found.end()
    return offset


def markdown_style(app: App) -> MarkdownStyle:
    """The style for `app`'s current theme."""
    return MarkdownStyle.from_variables(app.theme_variables, app.current_theme.dark)


WARM_UP_SAMPLE = "# a\n\n- *b* `c` [d](https://e)\n\n| f |\n|---|\n| 1 |\n\n```python\nx = 1\n```\n"


def warm_up(style: MarkdownStyle) -> None:
    """Draw a small sample once, so that the first reply does not pay for the first use of
    Pygments and its Python lexer, nor for the console's styles."""
    render(WARM_UP_SAMPLE, 40, style)
