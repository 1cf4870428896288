"""The terminal's bytes as the app reads them (ui/textual_compat.py: TerminalInput, the driver).

A bracketed paste is the paste, every byte of it, never key presses; invalid UTF-8 is a
replacement character, never the end of input. Judged on events from Textual's own
`XTermParser` as the app drives it, and by what the running app does with real bytes written
to the input its driver reads.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM
from helpers import make_app, wait_until
from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from hermes_tui.ui.textual_compat import PasteSafeDriver, TerminalInput
from hermes_tui.ui.widgets.chat import UserMessage
from hermes_tui.ui.widgets.input import ChatInput

SIZE = (130, 40)
START, END = "\x1b[200~", "\x1b[201~"

# Pastes that Textual's own parser turned into key presses (ctrl+q quit, ctrl+b the panel,
# ESC CR enter), the rest of the paste moved after them.
HOSTILE_PASTES = [
    "hello \x1b\x11\x1b world",
    "see \x1bpanel\x02 here",
    "rm -rf everything please\x1b\r\x1b",
    "\x1b\x1b\x1b[A\x1b[1;5C\x1bOP\x07\u202eevil\x1b]0;title\x07 end",
    "\x1b",
    "",
]


def described(messages: list) -> list[tuple[str, str | None]]:
    """Events as (kind, what they carry): comparable, and readable when a test fails."""
    shown: list[tuple[str, str | None]] = []
    for message in messages:
        if isinstance(message, events.Paste):
            shown.append(("paste", message.text))
        elif isinstance(message, events.Key):
            shown.append(("key", message.key))
        else:
            shown.append((type(message).__name__, None))
    return shown


def read_all(chunks: list[bytes]) -> list[tuple[str, str | None]]:
    terminal = TerminalInput()
    messages = []
    for chunk in chunks:
        messages += terminal.feed(chunk)
    return described(messages + terminal.feed(b"", final=True))


@pytest.mark.parametrize("text", HOSTILE_PASTES)
def test_a_bracketed_paste_is_one_paste_with_every_byte_in_order(text: str) -> None:
    data = f"a{START}{text}{END}b".encode()
    expected = [("key", "a"), ("paste", text), ("key", "b")]
    assert read_all([data]) == expected
    # However the terminal's writes cut it: one byte at a time, or at every place in two.
    assert read_all([data[i : i + 1] for i in range(len(data))]) == expected
    for cut in range(1, len(data)):
        assert read_all([data[:cut], data[cut:]]) == expected, f"cut at {cut}"


@pytest.mark.parametrize(
    "data",
    [
        "\x1bp",
        "\x1b[A",
        "\x02x",
        "\x1b[200",
        "\x1b[20",
        "\x1b\x1b",
        "\x1b[<0;3;4M",
        "\x1b[20~",
        "\x1b[21~",
    ],
)
def test_outside_a_paste_the_keys_are_textuals(data: str) -> None:
    textual = XTermParser()
    expected = described([*textual.feed(data), *textual.feed("")])
    assert read_all([data.encode()]) == expected
    assert read_all([bytes([byte]) for byte in data.encode()]) == expected
    assert ("key", "alt+p") in read_all([b"\x1bp"])


def test_a_lone_escape_is_the_escape_key_once_nothing_follows() -> None:
    terminal = TerminalInput()
    assert terminal.feed(b"\x1b") == [], "it could be the start of a paste"
    seen: list = []
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.02)
        seen = terminal.tick()
    assert described(seen) == [("key", "escape")]


def ticks_until(terminal: TerminalInput, seconds: float) -> list:
    """What `terminal.tick()` delivers while `seconds` pass (as the driver ticks when idle)."""
    seen: list = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.02)
        seen += terminal.tick()
    return seen


@pytest.mark.parametrize("first", ["\x1b", "\x1b[", "\x1b[20", "\x1b[200"])
def test_a_paste_marker_cut_by_a_pause_still_starts_the_paste(first: str) -> None:
    """Over a slow link the marker can arrive in two reads with a pause between them."""
    terminal = TerminalInput()
    messages = terminal.feed(first.encode())
    messages += ticks_until(terminal, constants.ESCAPE_DELAY * 3)
    rest = START[len(first) :] + "hello \x1b\x11\x1b world\r" + END
    messages += terminal.feed(rest.encode()) + terminal.feed(b"", final=True)
    pasted = [("paste", "hello \x1b\x11\x1b world\r")]
    # A lone ESC is the escape key by then (delivered once); nothing else is a key.
    assert described(messages) == ([("key", "escape")] if first == "\x1b" else []) + pasted


def test_after_an_escape_delivered_the_next_key_is_only_itself() -> None:
    terminal = TerminalInput()
    terminal.feed(b"\x1b")
    assert described(ticks_until(terminal, constants.ESCAPE_DELAY * 3)) == [("key", "escape")]
    assert described(terminal.feed(b"a") + terminal.feed(b"", final=True)) == [("key", "a")]


def test_a_paste_that_never_ends_gives_the_keyboard_back() -> None:
    terminal = TerminalInput(paste_stall=0.1)
    assert terminal.feed(f"{START}abc\x1b[20".encode()) == []
    assert described(ticks_until(terminal, 0.3)) == [("paste", "abc\x1b[20")]
    assert described(terminal.feed(b"\x11")) == [("key", "ctrl+q")]


def test_invalid_utf8_is_a_replacement_character_not_a_crash() -> None:
    assert read_all([b"a\x9bb", b"\xe2\x82", b"\xac", b"\xff"]) == [
        ("key", "a"),
        ("key", "replacement_character"),
        ("key", "b"),
        ("key", "euro_sign"),
        ("key", "replacement_character"),
    ]
    assert read_all([START.encode() + b"x\x9b\xc3y" + END.encode()]) == [
        ("paste", "x\ufffd\ufffdy")
    ]


def test_the_app_reads_the_terminal_through_the_paste_safe_driver(home: Path) -> None:
    assert LinuxDriver in PasteSafeDriver.__mro__
    if make_app(home).get_driver_class() is not PasteSafeDriver:
        pytest.skip("Textual drives this terminal with another driver (Windows or TEXTUAL_DRIVER)")


class Terminal:
    """The running app's input as a terminal: bytes written here are read by the app's own
    driver class (its input thread, decoder and parser) and delivered to the app."""

    def __init__(self, app) -> None:
        self.driver = app.get_driver_class()(app)
        self.read_end, self.write_end = os.pipe()
        self.driver.fileno = self.read_end
        self.thread = threading.Thread(target=self.driver.run_input_thread, daemon=True)

    def __enter__(self) -> Terminal:
        self.thread.start()
        return self

    def write(self, data: bytes) -> None:
        os.write(self.write_end, data)

    def __exit__(self, *exc: object) -> None:
        self.driver.exit_event.set()
        self.thread.join(timeout=10)
        os.close(self.write_end)
        os.close(self.read_end)
        assert not self.thread.is_alive(), "the input thread did not stop"


async def test_a_hostile_paste_neither_quits_nor_sends_nor_toggles_and_shows_stand_ins(
    home: Path, llm: FakeLLM
) -> None:
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(ChatInput)
        side = app.query_one("#side")
        panel_shown = side.display
        with Terminal(app) as terminal:
            for text in HOSTILE_PASTES[:3]:
                terminal.write(f"{START}{text}{END}".encode())
            terminal.write(b"\x1b[20")  # a marker cut by a pause (a slow link)
            await asyncio.sleep(constants.ESCAPE_DELAY * 3)
            terminal.write(f"0~ and \x1b\x11\x1b{END}".encode())
            terminal.write(b"!")  # a key after the pastes: when it is in, they all are
            await wait_until(lambda: box.text.endswith("!"))
            await pilot.pause()
        assert app.is_running and app.return_code is None, "the app is still running"
        assert side.display == panel_shown, "the side panel did not toggle"
        assert not llm.requests and not app.query(UserMessage), "nothing was sent"
        assert box.text == (
            "hello ␛␑␛ world"
            + "see ␛panel␂ here"
            + "rm -rf everything please␛\n␛"
            + " and ␛␑␛"
            + "!"
        )


async def test_invalid_bytes_from_the_terminal_leave_input_working(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # past the welcome screen: offline works
        box = app.query_one(ChatInput)
        with Terminal(app) as terminal:
            terminal.write(b"a\x9bb")
            await wait_until(lambda: box.text == "a\ufffdb")
            # a raw 0x9b (invalid UTF-8), then U+009B (CSI) as UTF-8, in a paste
            terminal.write(b"\xff" + f"{START}x".encode() + b"\x9b" + f"\x9b{END}c".encode())
            await wait_until(lambda: box.text.endswith("c"))
            assert terminal.thread.is_alive(), "input still read"
        assert box.text == "a\ufffdb\ufffdx\ufffd␛[c"
        assert app.is_running and app.return_code is None
