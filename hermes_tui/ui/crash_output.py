"""A crash's traceback as the app prints it: Rich's, with locals, every text in it redacted and
its escape sequences made visible (ui/textual_compat.py hands it to Textual's `App.panic`)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

from rich.text import Text

from hermes_tui.core.redaction import redact_shapes
from hermes_tui.core.text import neutralise


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
    for stack in trace.stacks:
        for frame in stack.frames:
            _redact_source(frame.filename, redact)
    return Traceback(
        _cleaned(trace, lambda text: neutralise(redact(text))),
        show_locals=True,
        width=None,
        locals_max_length=5,
        suppress=[rich],
    )


def _redact_source(filename: str, redact: Callable[[str], str]) -> None:
    """Rich shows the source lines around each frame, read through `linecache` as it renders:
    a secret written in the source is redacted there first (the file itself is left alone).
    Each line on its own, so the line numbers stay true; the process is ending."""
    import linecache

    lines = linecache.getlines(filename)
    redacted = [redact(line) for line in lines]
    if redacted != lines:
        # No modification time: linecache.checkcache keeps the entry as it is.
        linecache.cache[filename] = (sum(map(len, redacted)), None, redacted, filename)


def crash_redaction(app: Any) -> Callable[[str], str]:
    """The app's runtime's redaction (known secrets and key shapes), or key shapes alone."""
    runtime = getattr(app, "runtime", None)
    return runtime.redactor.text if runtime is not None else redact_shapes
