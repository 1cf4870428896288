"""Changing the app's runtime (a new provider, in or out of the demo's home) and showing
which provider is in use: the one path every provider change takes."""

from __future__ import annotations

from typing import Any

from hermes_tui.core.text import neutralise
from hermes_tui.ui import commands
from hermes_tui.ui.widgets.input import ChatInput
from hermes_tui.ui.widgets.memory_pane import MemoryPane
from hermes_tui.ui.widgets.nudge_bar import NudgeBar
from hermes_tui.ui.widgets.reviews_pane import ReviewsPane
from hermes_tui.ui.widgets.skills_pane import SkillsPane


def first_screen(app: Any, resume: str | None) -> None:
    """What the app opens on: the model picker with no provider, else the session to resume,
    else the demo's prepared task."""
    from hermes_tui.core.llm import select

    if select.detect(app.runtime.config) is None:
        from hermes_tui.ui.screens.welcome import WelcomeScreen

        app.push_screen(WelcomeScreen(app.runtime.config, welcome=True), app._provider_chosen)
    elif resume:
        app.resume(resume)
    elif app.runtime.is_demo:
        start_demo(app)
    app.call_after_refresh(commands.offer_custom, app)  # custom commands in completion


def report_unused_keys(app: Any) -> None:
    """Keys of a Hermes config.yaml that hermes-tui does not use, said once at start."""
    if unused := app.runtime.hermes_keys_to_report():
        shown = ", ".join(unused[:8]) + (f" and {len(unused) - 8} more" if len(unused) > 8 else "")
        app.notify(
            f"Hermes keys not used by hermes-tui: {shown} (`hermes-tui doctor` lists them)",
            severity="information",
            timeout=12,
        )


def show_provider(app: Any) -> None:
    from hermes_tui.core.llm import select

    name = select.detect(app.runtime.config)
    bar = app.query_one(NudgeBar)
    if name is None:
        app.sub_title = "offline: no provider (/model to set one)"
        bar.provider = "offline"
    elif name == "demo":
        app.sub_title = "DEMO: a scripted model in its own home, not a real LLM"
        bar.provider = "demo (scripted, own home)"
    else:
        model = app.runtime.config.model.name or select.DEFAULT_MODELS.get(name, "")
        app.sub_title = neutralise(f"{name} · {model}")
        bar.provider = neutralise(f"{name}/{model}")


async def use_runtime(app: Any, runtime: Any) -> None:
    """The one way the app changes runtime (a new provider, in or out of the demo): the
    next message starts a new session; the old runtime is closed once no turn uses it."""
    old, app.runtime = app.runtime, runtime
    app.retired.append(old)
    if not app.turn_running:
        close_retired(app)
    app.turn.forget_session()
    app.query_one(NudgeBar).new_session()
    show_provider(app)
    app.query_one(ReviewsPane).runtime = runtime
    if runtime.home != old.home:
        # In or out of the demo's own home: every pane shows that home's stores.
        await app.action_new_session_view()
        app.query_one(MemoryPane).use_store(runtime.memory)
        app.query_one(SkillsPane).use_library(runtime.skills)
        app.query_one(ReviewsPane).refresh_reviews()
        if app.watch_files_enabled:
            app.housekeeping.watch_home()
    if runtime.is_demo:
        start_demo(app)


def close_retired(app: Any) -> None:
    while app.retired:
        app.retired.pop().close()


def start_demo(app: Any) -> None:
    """The demo's task ready (and selected) in the box, and where the demo keeps what it learns."""
    from hermes_tui.core.llm.demo import TASK

    box = app.query_one(ChatInput)
    if not box.text.strip():
        box.text = TASK
        box.select_all()  # typing replaces the task: `/model` is a command, not a suffix
    app.notify(
        f"The demo learns in its own home ({app.runtime.home}); your memory and skills are "
        "untouched. Send the prepared task three times and watch the Trace, Skills and Memory "
        "panes.",
        title="Demo",
        timeout=12,
    )
