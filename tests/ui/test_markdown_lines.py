"""MarkdownLines: a reply drawn a few blocks at a time looks as the whole text drawn at once."""

from __future__ import annotations

import random

import pytest

from hermes_tui.core.text import neutralise
from hermes_tui.ui import markdown_lines
from hermes_tui.ui.markdown_lines import SETTLE_CHARS, MarkdownLines, MarkdownStyle, blocks, render

STYLE = MarkdownStyle.from_variables(
    {
        "background": "#121212",
        "foreground": "#E0E0E0",
        "primary": "#0178D4",
        "accent": "#FEA62B",
        "warning": "#FEA62B",
        "secondary": "#004578",
        "markdown-h1-color": "#0178D4",
        "markdown-h1-text-style": "bold",
        "markdown-h2-text-style": "underline",
        "markdown-h6-color": "#E0E0E099",
    },
    dark=True,
)

EVERYTHING = """# Release

Intro with **bold**, *em*, ~~gone~~, `code` and a [link](https://example.com/a?b=1).

---

> quoted line
> and its lazy continuation

1. one
2. two
   - nested
   - nested again

3. three, after a blank line (a loose list)

* * *

| step | time |
|------|-----:|
| test | 2 s  |

Setext heading
==============

    indented code

- a

- b

```python
def f() -> int:
    return 1
```

[ref]: https://example.com/ref
Text after a definition.
"""

SAMPLES = [
    EVERYTHING,
    "para\n\n---\n---\n\npara2\n\n- a\n\n- b\n\ntext\n",
    "```\nan unclosed fence swallows the rest\n\n# not a heading\n",
    "\n\n\nleading blank lines\n\n\n\nand many between\n",
    "- item\n\n  continued in the item\n\n- next\n\nafter\n" * 5,
    # Long code blocks: their first pieces settle while the rest streams (FENCE_PIECE lines).
    "Before.\n\n~~~~ python\n"
    + "".join(f'def f{i}():\n    return """{i}"""  # note\n' for i in range(70))
    + "~~~~\n\nAfter.\n\n---\n   ```\n"
    + "\n".join(f"line {i}" for i in range(100)),
]


def drawn_in_pieces(text: str, width: int, seed: int) -> list[str]:
    chance = random.Random(seed)
    lines = MarkdownLines(width, STYLE)
    start = 0
    while start < len(text):
        size = chance.randint(1, 120)
        lines.feed(text[start : start + size])
        start += size
    lines.feed("", final=True)
    assert lines.finished and not lines.live
    return [strip.text for strip in lines.settled]


@pytest.mark.parametrize("sample", range(len(SAMPLES)))
@pytest.mark.parametrize("width", [24, 80])
def test_pieces_of_any_size_draw_what_the_whole_text_draws(sample: int, width: int) -> None:
    text = SAMPLES[sample]
    whole = [strip.text for strip in render(text, width, STYLE)]
    for seed in range(8):
        assert drawn_in_pieces(text, width, seed) == whole, f"seed {seed}"


def test_finished_blocks_are_drawn_once_and_kept() -> None:
    text = "".join(f"## Part {i}\n\nSome text for part {i}.\n\n" for i in range(30))
    lines = MarkdownLines(60, STYLE)
    kept: list = []
    for start in range(0, len(text), 40):
        first_changed = lines.feed(text[start : start + 40])
        assert first_changed == len(kept)  # nothing above the settled lines changes
        assert all(a is b for a, b in zip(lines.settled, kept, strict=False))
        kept = list(lines.settled)
    assert len(lines.settled) > 100 and len(lines.live) < 20


def test_every_line_is_exactly_the_width() -> None:
    for width in (10, 33, 120):
        strips = render(EVERYTHING, width, STYLE)
        assert strips and all(strip.cell_length == width for strip in strips)


def test_links_are_clickable_and_headings_take_the_theme_colour() -> None:
    strips = render("# Title\n\nSee [the guide](https://example.com/x'y).\n", 60, STYLE)
    title = next(s for s in strips if "Title" in s.text)
    style = next(seg.style for seg in title if "Title" in seg.text)
    assert style.bold and style.color.triplet.hex == "#0178d4"
    link = next(seg for strip in strips for seg in strip if "guide" in seg.text)
    assert link.style.link == "https://example.com/x'y"
    assert link.style.meta["@click"] == 'link("https://example.com/x\'y")'


def test_a_colour_with_alpha_or_a_non_colour_variable_still_gives_a_style() -> None:
    style = MarkdownStyle.from_variables(
        {"markdown-h6-color": "#E0E0E099", "warning": "auto 60%", "primary": "ansi_blue"},
        dark=False,
    )
    assert render("###### small\n\n`code`\n", 30, style)


def test_hostile_text_reaches_the_lines_only_as_visible_characters() -> None:
    text = neutralise(
        "Hi \x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07 \x9b31m end\n\n# \x1b[5mhead\n"
    )
    strips = render(text, 80, STYLE)
    joined = "".join(segment.text for strip in strips for segment in strip)
    assert "\x1b" not in joined and "\x07" not in joined and "\x9b" not in joined
    assert "end" in joined and "head" in joined


def test_blocks_are_the_top_level_ones_with_their_first_line() -> None:
    assert blocks("# A\n\ntext\n\n- x\n- y\n\n```\ncode\n```\n") == [
        ("heading_open", 0),
        ("paragraph_open", 2),
        ("bullet_list_open", 4),
        ("fence", 7),
    ]


def test_a_renderer_failure_shows_the_text_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("a lexer blew up")

    monkeypatch.setattr(markdown_lines._Markdown, "__rich_console__", broken)
    monkeypatch.setattr(markdown_lines._parser, "parse", broken)
    lines = MarkdownLines(40, STYLE)
    lines.feed("# Title\n\nsome **text**\n")
    lines.feed("", final=True)
    assert [strip.text.rstrip() for strip in lines.settled] == ["# Title", "", "some **text**"]


def test_html_in_a_reply_is_shown_as_text_never_hidden() -> None:
    text = "Visible.\n\n<!--\n\nhidden instructions\n\n-->\n\n<script>alert(1)</script>\n"
    shown = " ".join(strip.text for strip in render(text, 60, STYLE))
    assert "hidden instructions" in shown and "<script>alert(1)</script>" in shown
    assert drawn_in_pieces(text, 60, seed=3) == [s.text for s in render(text, 60, STYLE)]


# From an attacker's review of this module: each failed before its fix.


def whole(text: str, width: int) -> list[str]:
    return [strip.text for strip in render(text, width, STYLE)]


def in_pieces(text: str, width: int, size: int) -> list[str]:
    lines = MarkdownLines(width, STYLE)
    for start in range(0, len(text), size):
        lines.feed(text[start : start + size])
    lines.feed("", final=True)
    return [strip.text for strip in lines.settled]


def test_html_block_drawn_in_pieces_as_whole() -> None:
    # blocks() parses with html=False, Rich with html=True: the cuts disagree.
    text = "<div>\n# one\n# two\n# three\n# four\n# five\n# six\n"
    assert in_pieces(text, 30, 400) == whole(text, 30)


def test_blank_lines_at_a_code_piece_boundary_are_kept() -> None:
    body = "\n".join("" if i in (18, 19) else f"x = {i}" for i in range(50))
    text = f"```python\n{body}\n```\n"
    assert in_pieces(text, 30, 7) == whole(text, 30)


def test_long_loose_ordered_list_keeps_its_numbers() -> None:
    # A tail over SETTLE_CHARS keeps one block live; "\n\n1" is a paragraph until "." arrives,
    # so the list is settled and the rest starts a new list numbered from 1.
    # Fed a character at a time only across that boundary (all of it took 100 s): from just
    # before it to two items (38 characters each) past it.
    text = "".join(f"1. item with a few words, number {i}\n\n" for i in range(1, 120))
    lines = MarkdownLines(60, STYLE)
    before, after = SETTLE_CHARS - 40, SETTLE_CHARS + 80
    lines.feed(text[:before])
    for character in text[before:after]:
        lines.feed(character)
    lines.feed(text[after:])
    lines.feed("", final=True)
    assert [strip.text for strip in lines.settled] == whole(text, 60)


def test_deep_nesting_does_not_hide_the_rest_of_the_reply() -> None:
    # markdown-it's maxNesting (20 in the commonmark preset) stops the block parser: every
    # line after a list nested 10 deep is dropped, streamed or not.
    text = "".join("  " * i + "- x\n" for i in range(10)) + "\n# Heading\n\nSecret paragraph.\n"
    assert "Secret paragraph." in "\n".join(whole(text, 60))


def test_code_is_shown_at_the_narrowest_widths() -> None:
    for width in (1, 2, 3):
        assert any("i" in line for line in whole("```\nimportant\n```\n", width))


def test_a_lone_carriage_return_fed_directly_does_not_break_the_cuts() -> None:
    text = "".join(f"# h{i}\r\r" for i in range(8))
    assert in_pieces(text, 40, 5) == whole(text, 40)


def test_a_drawing_builds_no_parser_and_keeps_riches_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each step draws with the one HTML-less parser: none is built per drawing, and the
    Markdown drawn holds what Rich's own would, but the text parsed without HTML."""
    from markdown_it import MarkdownIt
    from rich.markdown import Markdown

    text = "# Title\n\nSome **bold**, <b>html</b> and a [link](https://example.com).\n"
    render(text, 60, STYLE)  # Rich's settings for this theme are made once, here
    built: list[object] = []
    original = MarkdownIt.__init__
    monkeypatch.setattr(
        MarkdownIt, "__init__", lambda self, *a, **k: built.append(self) or original(self, *a, **k)
    )
    lines = render(text, 60, STYLE)
    assert built == [] and any("<b>html</b>" in strip.text for strip in lines)
    monkeypatch.undo()
    ours = markdown_lines._Markdown(text, code_theme=STYLE.code_theme, hyperlinks=True)
    riches = Markdown(text, code_theme=STYLE.code_theme, hyperlinks=True)
    assert {k: v for k, v in vars(ours).items() if k != "parsed"} == {
        k: v for k, v in vars(riches).items() if k != "parsed"
    }

    def html(parsed: list) -> list[str]:
        return [c.content for t in parsed for c in t.children or () if c.type == "html_inline"]

    assert html(ours.parsed) == [] and html(riches.parsed) == ["<b>", "</b>"]
