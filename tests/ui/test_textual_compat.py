"""Each reliance on Textual's internals (ui/textual_compat.py) still holds in the installed
Textual. A failure here names what moved: fix textual_compat.py before raising the bound."""

from __future__ import annotations

import inspect

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from hermes_tui.ui import textual_compat


@pytest.mark.parametrize(
    ("cls", "name", "parameters"),
    textual_compat.OVERRIDDEN,
    ids=[f"{cls.__name__}.{name}" for cls, name, _ in textual_compat.OVERRIDDEN],
)
def test_each_private_method_we_override_still_exists_with_its_parameters(
    cls: type, name: str, parameters: tuple[str, ...]
) -> None:
    # One replaced for the whole process (REPLACED) is checked as Textual has it
    method = textual_compat.TEXTUAL_ORIGINALS.get((cls, name)) or getattr(cls, name, None)
    assert method is not None, f"Textual's {cls.__name__}.{name} is gone"
    assert tuple(inspect.signature(method).parameters) == parameters, (
        f"Textual's {cls.__name__}.{name} takes other parameters now"
    )


class Tall(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for i in range(50):
                yield Static(f"line {i}")


async def test_private_attributes_we_read_and_write_are_still_there() -> None:
    app = Tall()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        scroll = app.query_one("#scroll", VerticalScroll)
        assert textual_compat.region_size(scroll) == scroll.region.size
        assert isinstance(scroll._vertical_scrollbar, ScrollBar)  # made once it was needed
        assert hasattr(scroll._vertical_scrollbar, "_repaint_required")
        textual_compat.quiet_scrollbar_repaint(scroll)
        assert scroll._vertical_scrollbar._repaint_required is False
        assert Widget()._vertical_scrollbar is None  # not made until needed: nothing to cancel
        arranged = Widget.arrange(scroll, scroll.size)
        assert isinstance(arranged, textual_compat.DockArrangeResult)
        assert arranged.spatial_map.total_region.bottom >= 50


async def test_the_toast_rack_is_found_and_lifted() -> None:
    app = Tall()
    async with app.run_test(size=(40, 10), notifications=True) as pilot:
        app.notify("hello")
        await pilot.pause()
        from textual.widgets._toast import ToastRack

        textual_compat.lift_toasts(app.screen, 3)
        rack = app.screen.get_child_by_type(ToastRack)
        assert rack.styles.margin.bottom == 3


def test_the_input_thread_we_replace_is_still_the_one_we_copied() -> None:
    """PasteSafeDriver.run_input_thread is Textual's loop with TerminalInput in place of its
    decoder and parser: if Textual's loop changes, ours must be compared with it again."""
    import asyncio

    from textual.drivers.linux_driver import LinuxDriver

    source = inspect.getsource(LinuxDriver.run_input_thread)
    for part in (
        "selector.register(self.fileno, selectors.EVENT_READ)",
        "XTermParser(self._debug)",
        'getincrementaldecoder("utf-8")()',
        "read(fileno, 1024 * 4)",
        "while not self.exit_event.is_set():",
        "for event in tick():",
    ):
        assert part in source, f"Textual's LinuxDriver.run_input_thread no longer has {part!r}"

    async def made() -> LinuxDriver:
        return textual_compat.PasteSafeDriver(App(), debug=True)

    driver = asyncio.run(made())
    assert driver._debug is True and isinstance(driver.fileno, int)
    assert not driver.exit_event.is_set()


async def test_an_input_thread_that_dies_panics_with_its_traceback_redacted(
    home, capsys: pytest.CaptureFixture[str]
) -> None:
    """Textual's LinuxDriver._run_input_thread would hand `App.panic` the raw traceback; ours
    hands it the redacted and neutralised one the app prints for any crash."""
    import threading

    from helpers import make_app, wait_until

    secret, shaped = "Zq9-input-thread-secret-5531", "sk-proj-INPUTLEAK0123456789abcdefXYZ"
    (home / ".env").write_text(f"DB_TOKEN={secret}\n", encoding="utf-8")
    app = make_app(home)
    async with app.run_test():
        driver = textual_compat.PasteSafeDriver(app)

        def dies() -> None:
            token = secret  # a local: the traceback lists locals
            raise RuntimeError(f"input died holding {token} and Bearer {shaped} \x1b[2J")

        driver.run_input_thread = dies  # the thread's loop fails on its first read
        thread = threading.Thread(target=driver._run_input_thread)
        thread.start()
        thread.join(10)
        await wait_until(lambda: app._exit_renderables)
    printed = capsys.readouterr()
    output = printed.out + printed.err
    assert "input died holding" in output and "[REDACTED DB_TOKEN]" in output
    for leaked in (secret, shaped, "\x1b[2J"):
        assert leaked not in output


@pytest.mark.parametrize(
    ("cls", "name", "parameters"),
    textual_compat.REPLACED,
    ids=[f"{cls.__name__}.{name}" for cls, name, _ in textual_compat.REPLACED],
)
def test_each_private_method_we_replace_still_exists_and_ours_is_in_place(
    cls: type, name: str, parameters: tuple[str, ...]
) -> None:
    textuals = textual_compat.TEXTUAL_ORIGINALS[cls, name]
    assert textuals is not None, f"Textual's {cls.__name__}.{name} is gone"
    function = getattr(textuals, "__func__", textuals)  # a classmethod's own function
    assert tuple(inspect.signature(function).parameters) == parameters, (
        f"Textual's {cls.__name__}.{name} takes other parameters now"
    )
    assert cls.__dict__[name] is not textuals


class Colourful(App):
    def compose(self) -> ComposeResult:
        for i in range(8):
            yield Static(
                f"[red]red {i}[/] [on blue]on blue[/] [bold]bold[/] [@click=bell]link[/] plain"
            )


async def test_a_dialog_draws_the_screen_beneath_tinted_as_textual_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each style's tint is worked out once, by Textual's code: the screen under a dialog looks
    as Textual draws it, with far fewer styles tinted than segments drawn."""
    from rich.segment import Segment
    from textual.renderables.background_screen import BackgroundScreen
    from textual.screen import ModalScreen

    class Dialog(ModalScreen):
        DEFAULT_CSS = "Dialog { align: center middle; } Dialog Static { width: 12; height: 3; }"

        def compose(self) -> ComposeResult:
            yield Static("a dialog")

    tinted: list[Segment] = []
    ours = BackgroundScreen.__dict__["process_segments"]
    counting = classmethod(
        lambda cls, segments, color: (
            tinted.append(segment) or segment for segment in ours.__func__(cls, segments, color)
        )
    )
    shots = {}
    textuals = textual_compat.TEXTUAL_ORIGINALS[BackgroundScreen, "process_segments"]
    for which, method in (("textual", textuals), ("ours", counting)):
        monkeypatch.setattr(BackgroundScreen, "process_segments", method)
        textual_compat._tints.clear()
        app = Colourful()
        async with app.run_test(size=(60, 10)) as pilot:
            await pilot.pause()
            await app.push_screen(Dialog())
            await pilot.pause()
            shots[which] = app.export_screenshot()
    assert shots["ours"] == shots["textual"]
    assert 0 < len(textual_compat._tints) < len(tinted) / 5


def test_the_inner_and_outer_styles_are_textuals() -> None:
    from textual._styles_cache import StylesCache
    from textual.color import Color

    textuals = textual_compat.TEXTUAL_ORIGINALS[StylesCache, "get_inner_outer"]
    for base, background in [("#101010", "#ff000080"), ("black", "white"), ("red", "#0000")]:
        colours = (Color.parse(base), Color.parse(background))
        assert StylesCache().get_inner_outer(*colours) == textuals(StylesCache(), *colours)


async def test_a_removed_widget_and_what_it_drew_are_freed() -> None:
    """Textual's get_inner_outer kept the last 1024 widgets' styles caches (and the strips
    they rendered) alive, long after their widgets were removed."""
    import gc
    import weakref

    app = Tall()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        line = app.query(Static).first()
        assert line._styles_cache._cache  # it drew its lines
        gone = weakref.ref(line._styles_cache)
        await line.remove()
        del line
        await pilot.pause()
    gc.collect()
    assert gone() is None


def test_parsed_css_is_shared_by_stylesheets_with_the_same_theme_only() -> None:
    from textual.color import Color
    from textual.css.stylesheet import Stylesheet

    css, where = "Static { color: $accent; }", ("test_textual_compat.py", "")
    red = Stylesheet(variables={"accent": "red"})._parse_rules(css, where)
    again = Stylesheet(variables={"accent": "red"})._parse_rules(css, where)
    blue = Stylesheet(variables={"accent": "blue"})._parse_rules(css, where)
    assert again is red  # parsed once for the process
    assert red[0].styles.color == Color.parse("red")
    assert blue[0].styles.color == Color.parse("blue")
    scoped = Stylesheet(variables={"accent": "red"})._parse_rules(css, where, scope="Tall")
    assert scoped is not red


async def test_a_theme_switched_back_and_forth_draws_each_themes_colours() -> None:
    app = Tall()
    async with app.run_test(size=(40, 10)) as pilot:
        colours = {}
        for theme in ("textual-dark", "nord", "textual-dark", "nord"):
            app.theme = theme
            await pilot.pause()
            colours.setdefault(theme, set()).add(app.screen.styles.background)
        assert all(len(seen) == 1 for seen in colours.values())
        assert colours["textual-dark"] != colours["nord"]


class Keyed(Static, can_focus=True):
    BINDINGS = [("x", "app.bell", "Ring")]


class Footed(App):
    BINDINGS = [("ctrl+q", "quit", "Quit"), ("f2", "bell", "Bell")]

    def __init__(self, footer: type) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        from textual.widgets import Input

        yield Input(id="a")
        yield Input(id="b")
        yield Keyed("keyed", id="c")
        yield self.footer()


def footer_keys(app: App) -> list[tuple]:
    from textual.widgets._footer import FooterKey

    return [
        (key.key, key.description, sorted(key.classes), key.compact, str(key.render()))
        for key in app.screen.query(FooterKey)
    ]


async def test_the_quiet_footer_shows_what_textuals_footer_shows_as_focus_moves() -> None:
    from textual.widgets import Footer

    seen: dict[type, list] = {}
    for footer in (Footer, textual_compat.QuietFooter):
        app = Footed(footer)
        async with app.run_test(size=(80, 6)) as pilot:
            for target in ("#a", "#c", "#b", "#c", "#a"):
                app.query_one(target).focus()
                await pilot.pause()
                await pilot.pause()
                seen.setdefault(footer, []).append(footer_keys(app))
    quiet = seen[textual_compat.QuietFooter]
    assert quiet == seen[Footer]
    assert any("Ring" in str(keys) for keys in quiet)  # the focused widget's own key came
    assert "Ring" not in str(quiet[-1])  # and went
    assert any("-command-palette" in classes for _, _, classes, _, _ in quiet[0])


async def test_the_quiet_footer_keeps_its_keys_while_they_stay_the_same() -> None:
    """Textual composes the footer again at each focus change; between two widgets with the
    same bindings ours keeps its keys, and none bound to the footer's `compact` is restyled as
    it is mounted (the command palette's key is not bound: it starts compact, as Textual's)."""
    from textual.widgets._footer import FooterKey

    restyled: list[FooterKey] = []
    app = Footed(textual_compat.QuietFooter)
    async with app.run_test(size=(80, 6)) as pilot:
        app.query_one("#a").focus()
        await pilot.pause()
        await pilot.pause()
        keys = list(app.screen.query(FooterKey))
        original = FooterKey.update_node_styles
        FooterKey.update_node_styles = lambda self, animate=True: (  # type: ignore[method-assign]
            restyled.append(self),
            original(self, animate),
        )
        try:
            app.query_one("#b").focus()  # the same bindings
            await pilot.pause()
            await pilot.pause()
            assert list(app.screen.query(FooterKey)) == keys
            app.query_one("#c").focus()  # one more key
            await pilot.pause()
            await pilot.pause()
            assert len(app.screen.query(FooterKey)) == len(keys) + 1
        finally:
            FooterKey.update_node_styles = original  # type: ignore[method-assign]
    assert restyled and all(key.has_class("-command-palette") for key in restyled)


async def test_the_quiet_footer_composes_once_however_often_the_bindings_change_first() -> None:
    """Textual's footer asks for one recomposition per change of the bindings, all run one
    after the other (an app's start changes them three times); ours asks once while one is
    on its way, and it shows the keys as they are when it runs, as Textual's last one does."""
    from textual.widgets import Footer

    source = inspect.getsource(Footer.bindings_changed)  # what QuietFooter copies
    for part in (
        "self._bindings_ready = True",
        "if not screen.app.app_focus:",
        "if self.is_attached and screen is self.screen:",
        "self.call_after_refresh(self.recompose)",
    ):
        assert part in source, f"Textual's Footer.bindings_changed no longer has {part!r}"
    recomposed: dict[type, int] = {}
    shown: dict[type, list] = {}
    for footer_class in (Footer, textual_compat.QuietFooter):
        app = Footed(footer_class)
        async with app.run_test(size=(80, 6)) as pilot:
            await pilot.pause()
            footer = app.query_one(footer_class)
            recompose = footer.recompose
            count = [0]

            async def counted(recompose=recompose, count=count) -> None:
                count[0] += 1
                await recompose()

            footer.recompose = counted  # type: ignore[method-assign]
            for target in ("#c", "#a", "#c"):
                app.screen.set_focus(app.query_one(target))  # each publishes the bindings
            for _ in range(4):
                await pilot.pause()
            recomposed[footer_class] = count[0]
            shown[footer_class] = footer_keys(app)
    assert recomposed[textual_compat.QuietFooter] == 1 < 3 <= recomposed[Footer]
    assert shown[textual_compat.QuietFooter] == shown[Footer]
    assert "Ring" in str(shown[Footer])  # the keys of #c, focused last


async def test_the_quiet_footer_has_its_keys_from_the_first_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual's footer is empty until the screen first says its bindings changed, then
    composed again, and laid out in a pass of its own; ours composes its keys with the screen
    and keeps them while they stay the same. Both show the same keys."""
    from textual.screen import Screen
    from textual.widgets import Footer

    layouts: list[Screen] = []
    refresh_layout = Screen._refresh_layout
    monkeypatch.setattr(
        Screen,
        "_refresh_layout",
        lambda self, *a, **k: (layouts.append(self), refresh_layout(self, *a, **k))[-1],
    )
    recomposed: dict[type, int] = {}
    counts: dict[type, int] = {}
    shown: dict[type, list] = {}
    for footer_class in (Footer, textual_compat.QuietFooter):
        count = [0]
        recompose = footer_class.recompose

        async def counted(self, recompose=recompose, count=count) -> None:
            count[0] += 1
            await recompose(self)

        monkeypatch.setattr(footer_class, "recompose", counted)
        layouts.clear()
        app = Footed(footer_class)
        async with app.run_test(size=(80, 6)) as pilot:
            for _ in range(3):
                await pilot.pause()
            recomposed[footer_class], counts[footer_class] = count[0], len(layouts)
            shown[footer_class] = footer_keys(app)
    assert recomposed[textual_compat.QuietFooter] == 0 < recomposed[Footer]
    assert counts[textual_compat.QuietFooter] < counts[Footer]
    assert shown[textual_compat.QuietFooter] == shown[Footer]
    assert "Bell" in str(shown[Footer])


class StyledOnceTall(textual_compat.StyledOnceDefault, Tall):
    TITLE = "Tall"


async def test_the_first_screen_is_not_styled_again_as_it_first_resumes() -> None:
    """Textual styles each widget as it mounts, then the whole screen again as it resumes;
    ours skips that second pass the first time only, and the screen looks the same."""
    from textual import events

    shots, restyled = [], {}
    for cls in (Tall, StyledOnceTall):
        app = cls()
        app.title = "Tall"
        seen: list = []
        original = app.update_styles
        app.update_styles = lambda node, animate=True, seen=seen, original=original: (  # type: ignore[method-assign]
            seen.append(node),
            original(node, animate),
        )[-1]
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            shots.append(app.export_screenshot())
            restyled[cls] = app.screen in seen
            if cls is StyledOnceTall:
                app.screen.post_message(events.ScreenResume())  # a later resume: Textual's
                await pilot.pause()
                assert app.screen in seen
    assert restyled == {Tall: True, StyledOnceTall: False}
    assert shots[0] == shots[1]


async def test_a_dialog_is_not_styled_again_as_it_first_resumes() -> None:
    """A dialog of ours (`QuietScreen`) is styled as its widgets mount, not all over again
    as it is first shown, and looks as Textual's does; a later resume is Textual's."""
    from textual import events
    from textual.screen import ModalScreen

    class Dialog(ModalScreen):
        DEFAULT_CSS = "Dialog { align: center middle; } Dialog Static { width: 16; height: 3; }"

        def compose(self) -> ComposeResult:
            yield Static("a dialog", id="text")

    class QuietDialog(textual_compat.QuietScreen, Dialog):
        pass

    shots, restyled = {}, {}
    for cls in (Dialog, QuietDialog):
        app = Colourful()
        seen: list = []
        original = app.update_styles
        app.update_styles = lambda node, animate=True, seen=seen, original=original: (  # type: ignore[method-assign]
            seen.append(node),
            original(node, animate),
        )[-1]
        async with app.run_test(size=(60, 10)) as pilot:
            await pilot.pause()
            dialog = cls()
            await app.push_screen(dialog)
            for _ in range(3):
                await pilot.pause()
            shots[cls] = app.export_screenshot()
            restyled[cls] = dialog in seen
            if cls is QuietDialog:
                dialog.post_message(events.ScreenResume())  # a later resume: Textual's
                await pilot.pause()
                assert dialog in seen
    assert restyled == {Dialog: True, QuietDialog: False}
    assert shots[Dialog] == shots[QuietDialog]


async def test_the_first_screen_is_laid_out_and_drawn_whole_once_as_the_app_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A start brings two resizes to the size the screen already has (the app's first size
    sent again, and the screen's own) and Textual lays the screen out for each, and it draws
    the whole screen again after its first layout (the `refresh()` ending its resume). Ours
    lays it out for neither and draws it whole once less; it looks the same, and a resize to
    a new size is laid out as Textual does."""
    from textual._compositor import Compositor
    from textual.screen import Screen

    layouts: list[Screen] = []
    whole: list[Compositor] = []
    refresh_layout, full_update = Screen._refresh_layout, Compositor.render_full_update
    monkeypatch.setattr(
        Screen,
        "_refresh_layout",
        lambda self, *a, **k: (layouts.append(self), refresh_layout(self, *a, **k))[-1],
    )
    monkeypatch.setattr(
        Compositor,
        "render_full_update",
        lambda self, *a, **k: (whole.append(self), full_update(self, *a, **k))[-1],
    )
    counts, shots = {}, []
    for cls in (Tall, StyledOnceTall):
        layouts.clear()
        whole.clear()
        app = cls()
        app.title = "Tall"
        async with app.run_test(size=(40, 10)) as pilot:
            for _ in range(3):
                await pilot.pause()
            counts[cls] = (len(layouts), len(whole))
            shots.append(app.export_screenshot())
            if cls is StyledOnceTall:
                await pilot.resize_terminal(30, 8)
                await pilot.pause()
                await pilot.pause()
                assert len(layouts) > counts[cls][0] and app.screen.size == (30, 8)
                assert app.query_one("#scroll").size.width == 30
    assert counts[StyledOnceTall][1] == counts[Tall][1] - 1  # the resume's whole repaint
    assert counts[StyledOnceTall][0] < counts[Tall][0]
    assert shots[0] == shots[1]


class Logs(App):
    def compose(self) -> ComposeResult:
        yield textual_compat.QuickWidthLog(id="log")


async def test_a_log_of_plain_lines_knows_its_width_at_once_and_other_lines_in_cells() -> None:
    """Plain ASCII lines: the width is their longest length, set without a worker thread.
    Anything else (wide characters, tabs) is measured in cells by Textual's worker, as before."""
    app = Logs()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one("#log", textual_compat.QuickWidthLog)
        log.write_lines([str(n) for n in range(1, 200_001)] + ["x" * 57])
        assert log.virtual_size.width == 57 and log.line_count == 200_001
        assert not [w for w in app.workers if w.node is log]  # measured at once, no thread
        log.clear()
        log.write_lines(["日本語", "a\tb"])
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert log.virtual_size.width == 9  # "a\tb": a tab stop at 8, in cells as Textual counts
        log.clear()
        log.write_lines(["日本語日本語"])
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert log.virtual_size.width == 12  # six wide characters: 12 cells, not 6


class Focusing(App):
    def compose(self) -> ComposeResult:
        from textual.widgets import Header, Input

        yield Header()
        yield Input(id="a")
        yield Input(id="b")
        yield Static("nothing here changes")


class QuietFocusing(textual_compat.QuietScreens, Focusing):
    pass


async def test_a_focus_change_or_a_new_title_draws_only_what_shows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual's `Screen.focused`, `App.title` and `App.sub_title` repaint the whole screen
    when they change; ours leave it to the widgets that show them (the inputs losing and
    taking the focus, the header), and the screen looks the same."""
    from textual._compositor import Compositor
    from textual.app import App as TextualApp
    from textual.reactive import Reactive
    from textual.screen import Screen

    for owner, name in ((Screen, "focused"), (TextualApp, "title"), (TextualApp, "sub_title")):
        assert isinstance(owner.__dict__.get(name), Reactive), f"{owner.__name__}.{name} moved"
    whole: list[Compositor] = []
    full_update = Compositor.render_full_update
    monkeypatch.setattr(
        Compositor,
        "render_full_update",
        lambda self, *a, **k: (whole.append(self), full_update(self, *a, **k))[-1],
    )
    drawn, shots = {}, []
    for cls in (Focusing, QuietFocusing):
        app = cls()
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause()
            await pilot.pause()
            whole.clear()
            await pilot.press("tab")
            await pilot.pause()
            app.title, app.sub_title = "Quiet", "Sub9"
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            drawn[cls] = len(whole)
            assert app.focused is app.query_one("#b") and app.query_one("#b").value == "x"
            shots.append(app.export_screenshot())
    assert drawn[QuietFocusing] == 0 < drawn[Focusing]
    assert shots[0] == shots[1]
    assert "Quiet" in shots[1] and "Sub9" in shots[1]  # the header shows both
