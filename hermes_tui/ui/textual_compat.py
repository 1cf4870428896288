"""Every use of Textual's private internals, in one place (STYLE.md).

Textual is bounded in pyproject.toml to the minor version CI tests; each function here has a
test in tests/ui/test_textual_compat.py that fails loudly when a Textual release changes what it
relies on. Prefer public API: anything added here needs a reason in its docstring.
"""

from __future__ import annotations

from typing import Any

from textual.css.query import NoMatches


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
