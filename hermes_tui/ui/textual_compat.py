"""Every use of Textual's private internals, in one place (STYLE.md).

Textual is bounded in pyproject.toml to the minor version CI tests; tests/ui/test_textual_compat.py
checks each reliance below and fails loudly, naming it, when a Textual release changes it.
Public API is used wherever it does the job; each entry here says why it does not.

Reads and writes of private attributes go through the functions below. Private methods that our
widgets override are listed in OVERRIDDEN, with the parameters we expect them to take:
- `Widget._size_updated` / `Widget._set_dirty` (ui/widgets/chat.py): a growing reply repaints
  only its new lines, and the chat sets its virtual size without asking for a second layout
  pass; Textual has no hook for either.
- `TextArea._on_key` (ui/widgets/input.py): an alt chord sent as ESC+key must not be typed
  before any binding sees it; bindings run after TextArea's own key handler.
- `TextArea._on_paste` (ui/widgets/input.py): a long paste collapses to a label; TextArea's
  own handler would insert it whole.
- `Collapsible._watch_collapsed`: not overridden; ToolRow's public `watch_collapsed` relies on
  Textual's private watcher still running beside it.
- `App._fatal_error` (`SafeCrashOutput`, mixed into HermesApp): the traceback Textual prints
  when the app crashes (locals and all) must pass the redaction and neutralisation every other
  output passes; Textual renders it from the live exception with no hook in between. Ours
  renders the same traceback from a copy whose every text is cleaned first, through the
  public `App.panic`.
- `LinuxDriver.run_input_thread` (`TerminalInput`, `PasteSafeDriver`, mixed into HermesApp
  through `get_driver_class`): the terminal's bytes are decoded and parsed here instead.
  Textual's thread decodes strict UTF-8, so one invalid byte (a raw 0x9b) kills input for good;
  and its `XTermParser` reads an ESC inside a bracketed paste as the start of a key sequence
  and reissues what follows as key presses (a paste of `ESC ^Q ESC` quits the app) while the
  rest of the paste moves after it. Ours takes everything between the paste markers as the
  paste, whole and in order, and hands only the bytes outside to `XTermParser`. It copies the
  loop of Textual's thread and reads `Driver._debug`.
- `LinuxDriver._run_input_thread` (`PasteSafeDriver`): if the input thread dies, Textual hands
  `App.panic` Rich's raw traceback of it (locals and all); ours hands it `safe_traceback`'s.
- `Log._update_size` (`QuickWidthLog`, under ui/widgets/output.py's OutputLog): Textual
  measures the cells of every new line on a worker thread, which for a tool's 200,000 lines
  held the GIL for about 0.2 s against the screen. Lines of printable ASCII are as wide as they
  are long: ours finds their width at once and hands it to `Log._update_maximum_width`, as
  Textual's worker does; any other line goes to Textual's worker.
- `Screen._on_screen_resume` and `Screen._screen_resized` (`StyledOnce`, in `QuietScreen`:
  the app's first screen and every dialog of ours): a screen pushed for the first time has just
  styled each widget as it mounted, and Textual styles them all again as it resumes (about an
  eighth of the app's start). Ours skips that first pass; later resumes are Textual's.
  Textual's event has the flag (`ScreenResume.refresh_styles`), but only Textual posts the
  event. Textual runs the handler of every class in the MRO, so ours only sets the flag
  before Screen's own runs. That first resume lays the screen out and draws all of it, then
  asks (`refresh()`) to draw all of it again: ours clears that request (`_repaint_required`).
  And a start brings two resizes to the size the screen has (the app's first size sent
  again, the screen's own); Textual lays the whole screen out for each, ours for neither
  (a layout a widget asked for is done by the screen's timer, as always).
- `FooterKey`, `DOMNode._reactive_connect` and `Footer._bindings_ready` (`QuietFooter`, the
  main screen's footer): Textual composes the footer again at every focus change, and each of
  its keys starts compact, then takes the footer's `compact` through `data_bind`: two class
  changes, each restyling the key and its parts (with the recomposition, about half of what
  a focus change cost). Ours composes only when the keys to show changed, once however often
  they change before it runs (Textual's `bindings_changed`, copied, schedules one
  recomposition per change: three at the app's start), and gives each bound key the footer's
  value before it is mounted. Textual's stays empty until the screen first says its bindings
  changed (`_bindings_ready`), then is composed and laid out in a pass of its own; ours
  composes its keys with the screen. Textual has no public way to build the keys. (The skill
  editor keeps Textual's footer: under its diff preview that one is drawn empty, being
  composed again while covered, and the editor's snapshot shows it so.)

Three of Textual's methods are replaced for the whole process when this module is imported
(the app imports it), each keeping what the method returns (a fourth, `Widget._size_updated`
set without asking for another layout, was taken back: the archive's list in the memory pane,
an `auto` height inside a Collapsible opened later, then kept a stale layout and showed nothing):
- `BackgroundScreen.process_segments`: under a dialog the screen beneath is drawn tinted, and
  Textual works out the tint of every segment anew (about a fifth of the CPU of a start that
  opens the welcome dialog). Ours works out each style's tint once, with Textual's code.
- `StylesCache.get_inner_outer`: Textual caches it with `functools.lru_cache` on the method, so
  the cache holds the 1024 latest `StylesCache` objects, each with the strips it rendered last:
  widgets long gone (turns pruned from the chat, closed dialogs) stayed in memory, and every
  full garbage collection walked them. Ours caches by the two colours only.
- `Stylesheet._parse_rules`: Textual caches parsed CSS per stylesheet, and every app start (and
  every theme change, through a fresh stylesheet) parsed each widget's CSS again: about a fifth
  of an app's start-up. Ours also remembers the rules for the process, by source and theme
  variables. Parsed rules are read, never changed, once parsed (Textual's own cache shares
  them between its parses as well).
"""

from __future__ import annotations

import functools
import os
import re
import selectors
import time
from codecs import getincrementaldecoder
from typing import Any

from rich.segment import Segment
from textual import constants, events
from textual._arrange import DockArrangeResult  # what `Widget.arrange` returns; not exported
from textual._styles_cache import StylesCache
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser
from textual.app import App
from textual.css.model import RuleSet
from textual.css.query import NoMatches
from textual.css.stylesheet import Stylesheet
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.reactive import Reactive
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Collapsible, Footer, Log, TextArea
from textual.widgets._footer import FooterKey  # what Footer.compose yields; not exported

from hermes_tui.ui.crash_output import crash_redaction, safe_traceback

__all__ = [
    "OVERRIDDEN",
    "DockArrangeResult",
    "PasteSafeDriver",
    "QuickWidthLog",
    "QuietFocus",
    "QuietScreen",
    "StyledOnce",
    "QuietScreens",
    "QuietTitles",
    "QuietFooter",
    "SafeTerminalInput",
    "TerminalInput",
    "SafeCrashOutput",
    "StyledOnceDefault",
    "StyledOnceScreen",
    "lift_toasts",
    "quiet_scrollbar_repaint",
    "region_size",
]

# (class, private method, the parameter names we call it with)
OVERRIDDEN: tuple[tuple[type, str, tuple[str, ...]], ...] = (
    (Widget, "_size_updated", ("self", "size", "virtual_size", "container_size", "layout")),
    (Widget, "_set_dirty", ("self", "regions")),
    (TextArea, "_on_key", ("self", "event")),
    (TextArea, "_on_paste", ("self", "event")),
    (Collapsible, "_watch_collapsed", ("self", "collapsed")),
    (App, "_fatal_error", ("self",)),
    (LinuxDriver, "run_input_thread", ("self",)),
    (LinuxDriver, "_run_input_thread", ("self",)),
    (Screen, "_on_screen_resume", ("self", "event")),
    (Screen, "_screen_resized", ("self", "size")),
    (Log, "_update_size", ("self", "updates", "lines")),
)

# (class, private method, the parameter names Textual's takes) for the methods replaced below
REPLACED: tuple[tuple[type, str, tuple[str, ...]], ...] = (
    (BackgroundScreen, "process_segments", ("cls", "segments", "color")),
    (StylesCache, "get_inner_outer", ("cls", "base_background", "background")),
    (
        Stylesheet,
        "_parse_rules",
        ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"),
    ),
)
# Textual's own, as they were before this module replaced them (None: gone from Textual, and
# ours would never be called; tests/ui/test_textual_compat.py says so)
TEXTUAL_ORIGINALS: dict[tuple[type, str], Any] = {
    (cls, name): cls.__dict__.get(name) for cls, name, _ in REPLACED
}


@functools.lru_cache(1024)
def _inner_outer(base_background: Any, background: Any) -> tuple[Style, Style]:
    # Textual's StylesCache.get_inner_outer, word for word
    return (Style(background=base_background + background), Style(background=base_background))


def _get_inner_outer(self: Any, base_background: Any, background: Any) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


PARSED_LIMIT = 512  # sources × themes; the app has about 60 sources
_parsed: dict[tuple, list[RuleSet]] = {}
_last_variables: tuple[Any, tuple] = (None, ())  # the last variables dict seen, and its key


def _parse_rules(
    self: Any,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> list[RuleSet]:
    """Stylesheet._parse_rules, remembered for the process by source and theme variables."""
    global _last_variables
    variables, last = self._variables, _last_variables  # read once: apps in other threads
    if variables is not last[0]:  # a new theme or app: Textual replaces the dict
        last = _last_variables = (variables, tuple(variables.items()))
    key = (css, read_from, is_default_rules, tie_breaker, scope, last[1])
    rules = _parsed.get(key)
    if rules is None:
        rules = TEXTUAL_ORIGINALS[Stylesheet, "_parse_rules"](
            self, css, read_from, is_default_rules, tie_breaker, scope
        )
        if len(_parsed) >= PARSED_LIMIT:
            _parsed.clear()
        _parsed[key] = rules
    return rules


TINTS_LIMIT = 4096  # styles remembered with their tint; a screen shows a few hundred
_tints: dict[tuple, Any] = {}  # (style, tint colour) -> the tinted style, as Textual makes it


def _process_segments(cls: Any, segments: Any, color: Any) -> Any:
    """BackgroundScreen.process_segments, each style's tint worked out once (by Textual)."""
    textuals = TEXTUAL_ORIGINALS[BackgroundScreen, "process_segments"].__func__
    for segment in segments:
        text, style, control = segment
        if control:
            yield segment
            continue
        tinted = _tints.get((style, color))
        if tinted is None:
            if len(_tints) >= TINTS_LIMIT:
                _tints.clear()
            (_, tinted, _), *_ = textuals(cls, [Segment(" ", style)], color)
            _tints[style, color] = tinted
        yield Segment(text, tinted, control)


if TEXTUAL_ORIGINALS[BackgroundScreen, "process_segments"] is not None:
    BackgroundScreen.process_segments = classmethod(_process_segments)  # type: ignore[assignment,method-assign]
if TEXTUAL_ORIGINALS[StylesCache, "get_inner_outer"] is not None:
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]
if TEXTUAL_ORIGINALS[Stylesheet, "_parse_rules"] is not None:
    Stylesheet._parse_rules = _parse_rules  # type: ignore[method-assign]


class QuietFooter(Footer):
    """Textual's Footer, drawing the same keys with less work.

    Textual composes the footer again whenever the screen's bindings may have changed (every
    focus change); ours only when the keys it shows did, and its first keys with the screen.
    And its keys bound to the footer's
    `compact` start with the footer's value instead of being restyled twice as they mount.
    """

    _shown: tuple | None = None  # what the keys were composed from

    def _shows(self, screen: Any) -> tuple:
        """Everything Footer.compose reads to build the keys (key labels come from bindings)."""
        bindings = screen.active_bindings
        palette = bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return (
            [(b.binding, b.enabled, b.tooltip) for b in bindings.values() if b.binding.show],
            palette and (palette.binding, palette.enabled),
            self.compact,
            self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE,
        )

    def compose(self) -> Any:
        if self.app.app_focus:  # the keys at once, not after the screen first says they changed
            self.set_reactive(Footer._bindings_ready, True)
        self._shown = self._shows(self.screen) if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey) and "compact" in (widget._reactive_connect or {}):
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    _recompose_due = False  # a recomposition is on its way: it reads the bindings as it runs

    def bindings_changed(self, screen: Any) -> None:
        attached = self._shown is not None and self.is_attached and screen is self.screen
        if attached and screen.app.app_focus and self._shows(screen) == self._shown:
            return  # what Textual would compose is what is there
        # Textual's Footer.bindings_changed, asking for one recomposition however many times
        # the bindings change before it runs (an app's start changes them three times).
        self._bindings_ready = True
        if not screen.app.app_focus or self._recompose_due:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_due = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_due = False
        await self.recompose()


_NOT_PLAIN = re.compile(r"[^\x20-\x7e\n]")  # anything but printable ASCII (and the joins)


class QuickWidthLog(Log):
    """Textual's Log, finding the width of plain lines at once instead of on a worker thread
    (a line of printable ASCII is as many cells wide as it is long)."""

    def _update_size(self, updates: int, lines: list[str]) -> None:
        if lines and _NOT_PLAIN.search("\n".join(lines)) is None:
            self._update_maximum_width(updates, max(map(len, lines)))
        else:
            super()._update_size(updates, lines)


class QuietFocus:
    """Mixed into a screen: a focus change repaints what it restyles, not the whole screen.

    Textual's `Screen.focused` is a reactive that repaints the screen it is on: every Tab,
    click or dialog's first focus drew every widget again (under a dialog, the dimmed screen
    beneath it too). The widgets that lose and gain the focus are restyled, and repainted,
    by Textual's focus handling either way; the screen's own background has no focus style.
    """

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)


class QuietTitles:
    """Mixed into the app: a new title or sub-title repaints the header only.

    Textual's `App.title` and `App.sub_title` are reactives that repaint the whole screen;
    the header watches both and updates its own title, which is all that shows them."""

    title: Reactive[str] = Reactive("", compute=False, repaint=False)
    sub_title: Reactive[str] = Reactive("", compute=False, repaint=False)


class StyledOnce:
    """Mixed into a screen: laid out and drawn once as it is first shown, where Textual does it
    up to three times and draws it twice (the app's first screen, and every dialog):

    - not styled all over again the first time it resumes: each of its widgets was styled as
      it mounted, a moment before;
    - not drawn whole a second time after that first resume: its first layout drew it all
      (under a dialog, with the screen beneath it tinted again);
    - not laid out again for a resize to the size it already has (a start brings two: the
      app's first size, sent again, and the screen's own).
    """

    _resumed = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual calls Screen's own handler after this one (it runs the handler of each
        # class in the MRO), with the event as this one leaves it.
        if self._resumed:
            return
        self._resumed = True
        event.refresh_styles = False
        if self.is_attached and self._size != self.app.size:
            self.call_next(self._drawn_whole)  # once Screen's handler laid out the screen

    def _drawn_whole(self) -> None:
        # Textual's resume ends with `refresh()`, a repaint of the whole screen in the next
        # frame; its first layout marked the whole screen to be drawn already.
        self._repaint_required = False

    def _screen_resized(self, size: Any) -> None:
        if self._resumed and self._size == size and (self.is_current or not self._layout_required):
            # Nothing to lay out for the size; a layout some widget asked for is done in the
            # next frame by the screen's timer, as it is for any request (not for a screen
            # under another: that one waits until it is on top).
            return
        super()._screen_resized(size)


class QuietScreen(StyledOnce, QuietFocus):
    """Mixed into each of our screens: styled and drawn once as it is first shown, and quiet
    on focus changes."""


class StyledOnceScreen(QuietScreen, Screen):
    """Textual's Screen, styled, laid out and drawn once as the app starts (`StyledOnce`)."""


class StyledOnceDefault:
    """Mixed into the app: its first screen is a `StyledOnceScreen`."""

    def get_default_screen(self) -> Screen:
        return StyledOnceScreen(id="_default")


class QuietScreens(StyledOnceDefault, QuietTitles):
    """Mixed into the app: its first screen styled once and quiet on focus changes, its
    titles repainting the header only."""


def region_size(widget: Widget) -> Any:
    """The size of the widget's whole region (`size` is its content's): `Widget._size`."""
    return widget._size


def quiet_scrollbar_repaint(widget: Widget) -> None:
    """Cancel the vertical scrollbar's own repaint request (the frame being drawn already
    repaints it); a widget that has not made its scrollbar yet has nothing to cancel."""
    bar = widget._vertical_scrollbar
    if bar is not None:
        bar._repaint_required = False


def lift_toasts(screen: Any, lift: int) -> None:
    """Raise the screen's toast rack `lift` rows above the bottom (Textual docks it at the very
    bottom, over the message box). Textual has no public handle on the rack."""
    from textual.widgets._toast import ToastRack

    try:
        rack = screen.get_child_by_type(ToastRack)
    except NoMatches:
        return
    if rack.styles.margin.bottom != lift:
        rack.styles.margin = (0, 0, lift, 0)


class SafeCrashOutput:
    """Mixed into the app: a crash's traceback is printed redacted (the runtime's known secrets
    and key shapes) and neutralised, never raw."""

    def _fatal_error(self) -> None:
        app: Any = self
        app.bell()
        app.panic(safe_traceback(crash_redaction(app)))


def _held_back(text: str, marker: str) -> int:
    """How many characters at the end of `text` could be the start of `marker` (0 if none)."""
    for size in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


class TerminalInput:
    """The terminal's bytes → Textual's events, as the app's input thread reads them.

    Invalid UTF-8 (a raw 0x9b, a cut multibyte character) becomes U+FFFD instead of killing
    input. A bracketed paste (`ESC [200~` … `ESC [201~`) is one `Paste` event holding every
    character in between, ESC and control characters included, in order: none of it is ever
    read as a key. Only the characters outside a paste reach Textual's `XTermParser`.

    The end of a read that could begin the paste marker is held until more input completes it
    or rules it out, however long that takes (the marker can be cut across reads with a pause
    between, over a slow link). A lone ESC is also the escape key: held past Textual's escape
    delay it is delivered as one, and still begins a paste if `[200~` follows. A paste whose end
    never comes ends after `paste_stall` seconds without input, so the keyboard comes back.
    """

    def __init__(self, debug: bool = False, paste_stall: float = 2.0) -> None:
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._keys = XTermParser(debug)
        self.paste_stall = paste_stall
        self._pasting = False
        self._pasted: list[str] = []
        self._held = ""  # the end of the input so far that may begin a paste marker
        self._told = False  # the held ESC was delivered as the escape key already
        self._since = 0.0  # when input last came

    def feed(self, data: bytes, final: bool = False) -> list[Message]:
        """The events `data` completes (`final`: the input ended after it)."""
        messages = self._split(self._decode(data, final=final))
        if final:
            messages += self._end()
        return messages

    def tick(self) -> list[Message]:
        """Events due by now: a held ESC, a stalled paste, or a key sequence Textual's parser
        was waiting on."""
        messages: list[Message] = []
        waited = time.monotonic() - self._since
        if self._pasting and waited >= self.paste_stall:
            messages.append(self._paste_ends())
        elif self._held == "\x1b" and not self._told and waited >= constants.ESCAPE_DELAY:
            self._told = True  # what XTermParser says of an ESC nothing followed
            messages.append(events.Key("escape", "\x1b"))
        return messages + list(self._keys.tick())

    def _split(self, text: str) -> list[Message]:
        messages: list[Message] = []
        text, told = self._held + text, self._told
        self._held, self._told, self._since = "", False, time.monotonic()
        while text:
            marker = BRACKETED_PASTE_END if self._pasting else BRACKETED_PASTE_START
            at = text.find(marker)
            if at < 0:
                cut = len(text) - _held_back(text, marker)
                self._take(text[:cut], messages, told)
                self._held, self._told = text[cut:], told and cut == 0
                break
            self._take(text[:at], messages, told)
            told, text = False, text[at + len(marker) :]
            if self._pasting:
                messages.append(self._paste_ends())
            else:
                self._pasting = True
        return messages

    def _take(self, text: str, messages: list[Message], told: bool) -> None:
        """Paste content, or keys (without the ESC already delivered as the escape key)."""
        if self._pasting:
            self._pasted.append(text)
        elif keys := text[1:] if told else text:
            messages += self._keys.feed(keys)

    def _paste_ends(self) -> events.Paste:
        pasted = "".join(self._pasted) + self._held  # a stall: the held part was pasted too
        self._pasted.clear()
        self._pasting, self._held = False, ""
        return events.Paste(pasted)

    def _end(self) -> list[Message]:
        """The input ended: what was held is keys (an unfinished paste goes with the input)."""
        held, told, self._held = self._held, self._told, ""
        keys = held[1:] if told else held
        messages = [] if self._pasting or not keys else list(self._keys.feed(keys))
        return messages + list(self._keys.feed(""))


class PasteSafeDriver(LinuxDriver):
    """Textual's driver for Linux and macOS, reading the terminal through `TerminalInput`."""

    def _run_input_thread(self) -> None:
        # Textual's wrapper hands `app.panic` Rich's traceback of the live exception (locals
        # and all) if the input thread dies; ours hands it the same traceback cleaned.
        try:
            self.run_input_thread()
        except BaseException:
            app: Any = self._app
            app.call_later(app.panic, safe_traceback(crash_redaction(app)))

    def run_input_thread(self) -> None:
        # Textual's own loop (LinuxDriver.run_input_thread) with TerminalInput in place of its
        # strict decoder and XTermParser.
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        terminal = TerminalInput(self._debug)

        def read(ready: list[Any], final: bool = False) -> None:
            for index, (_key, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    data = os.read(self.fileno, 1024 * 4)
                    if not data:  # stdin is a pipe that was closed
                        break
                    last = final and index == len(ready) - 1
                    for message in terminal.feed(data, final=last):
                        self.process_message(message)
            for message in terminal.tick():
                self.process_message(message)

        try:
            while not self.exit_event.is_set():
                read(selector.select(0.1))
            selector.unregister(self.fileno)
            read(selector.select(0.1), final=True)
        finally:
            selector.close()


class SafeTerminalInput:
    """Mixed into the app: where Textual would drive a Linux or macOS terminal with its own
    input thread, the app uses `PasteSafeDriver`."""

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()  # type: ignore[misc]
        return PasteSafeDriver if driver is LinuxDriver else driver
