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
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual._arrange import DockArrangeResult  # what `Widget.arrange` returns; not exported
from textual.app import App
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Collapsible, TextArea

from hermes_tui.core.redaction import redact_shapes
from hermes_tui.core.text import neutralise

__all__ = [
    "OVERRIDDEN",
    "DockArrangeResult",
    "SafeCrashOutput",
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
)


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


def _cleaned(value: Any, clean: Callable[[str], str]) -> Any:
    """`value` (a Rich `Trace` and what it holds: dataclasses, lists, dicts) with every string
    passed through `clean`."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [_cleaned(item, clean) for item in value]
    if isinstance(value, tuple):
        return tuple(_cleaned(item, clean) for item in value)
    if isinstance(value, dict):
        return {_cleaned(k, clean): _cleaned(v, clean) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: _cleaned(getattr(value, f.name), clean) for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **fields)
    return value


def safe_traceback(redact: Callable[[str], str]) -> Any:
    """The exception being handled as Textual shows a crash (Rich's traceback with locals),
    every message, local and source line redacted and its escape sequences made visible."""
    import rich
    from rich.traceback import Traceback  # pygments: paid only on a crash

    kind, error, trace_back = sys.exc_info()
    if kind is None or error is None:
        return Text("hermes-tui crashed (no traceback to show)")
    trace = Traceback.extract(kind, error, trace_back, show_locals=True, locals_max_length=5)
    return Traceback(
        _cleaned(trace, lambda text: neutralise(redact(text))),
        show_locals=True,
        width=None,
        locals_max_length=5,
        suppress=[rich],
    )


class SafeCrashOutput:
    """Mixed into the app: a crash's traceback is printed redacted (the runtime's known secrets
    and key shapes) and neutralised, never raw."""

    def _fatal_error(self) -> None:
        runtime = getattr(self, "runtime", None)
        redact = runtime.redactor.text if runtime is not None else redact_shapes
        app: Any = self
        app.bell()
        app.panic(safe_traceback(redact))
