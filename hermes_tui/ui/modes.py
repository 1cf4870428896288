"""The approval mode in the app: shown in the status bar, switched with `/mode [name]` and
shift+tab, saved to config.yaml (`terminal.mode`) and handed to the conversation, whose next
tool call is judged in it (core/tools/terminal.py and registry.py decide; this only switches).

shift+tab cycles sandboxed → strict → plan and back: `yolo` is left out of the cycle, so that
one key too many never turns every question off; `/mode yolo` sets it on purpose.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hermes_tui.core.tools.registry import APPROVAL_MODE_TEXT, APPROVAL_MODES

CYCLE = ("sandboxed", "strict", "plan")


def current_mode(app: Any) -> str:
    """The conversation's mode, or before it exists the one config gives (auto resolved)."""
    if app.session is not None:
        return app.session.approval_mode
    return app.runtime.approval_mode()


def show_mode(app: Any) -> None:
    """Put the mode in the status bar; the first time it probes the sandbox, so off the UI
    thread (a worker) at start-up."""
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    mode = current_mode(app)

    def put() -> None:
        bar = app.part(NudgeBar)
        if not bar.mode:  # a switch made meanwhile wins
            bar.mode = mode

    app.call_from_thread(put)


def set_mode(app: Any, mode: str) -> None:
    """Switch to `mode` now: saved, shown, and in force from the next tool call."""
    from hermes_tui.config import ConfigError, set_config_value
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    if mode not in APPROVAL_MODES:
        app.notify(f"no approval mode {mode!r}: " + ", ".join(APPROVAL_MODES), severity="warning")
        return
    runtime = app.runtime
    try:
        set_config_value(runtime.user_home, "terminal", "mode", mode)
    except (ConfigError, OSError) as exc:
        app.notify(f"mode {mode} not saved: {exc}", severity="error")
        return
    config = runtime.config
    runtime.config = dataclasses.replace(
        config, terminal=dataclasses.replace(config.terminal, mode=mode)
    )
    if app.session is not None:
        app.session.set_approval_mode(mode)
    app.part(NudgeBar).mode = mode
    app.notify(f"Mode {mode}: {APPROVAL_MODE_TEXT[mode]} (saved to config.yaml)")


def cycle_mode(app: Any) -> None:
    """shift+tab: the next mode of CYCLE (from yolo, back to the first)."""
    mode = current_mode(app)
    following = CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)] if mode in CYCLE else CYCLE[0]
    set_mode(app, following)


def mode_command(app: Any, argument: str) -> None:
    """`/mode [name]`: switch, or with no name say which mode is on and what each does."""
    if argument:
        set_mode(app, argument)
        return
    mode = current_mode(app)
    lines = [f"Mode: {mode} (shift+tab cycles {' → '.join(CYCLE)}; /mode NAME sets one)"]
    lines += [f"{name}: {APPROVAL_MODE_TEXT[name]}" for name in APPROVAL_MODES]
    app.notify("\n".join(lines), timeout=10)
