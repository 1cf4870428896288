"""What the app does beside the conversation: the curator's schedule, watching the home for
files edited outside the app, and full garbage collections at quiet moments (ui/collector.py)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from hermes_tui.ui.collector import Collector
from hermes_tui.ui.widgets.chat import AssistantMessage
from hermes_tui.ui.widgets.memory_pane import MemoryPane
from hermes_tui.ui.widgets.skills_pane import SkillsPane

MCP_START_DELAY = 0.5  # seconds after the first frame
WARM_UP_DELAY = 0.3  # seconds after the first frame: the Markdown renderer draws a sample


class Housekeeping:
    COLLECT_AFTER_PAUSE = 1.0  # seconds without a key or click before a full garbage collection
    COLLECT_DEADLINE = 3.0  # seconds after a reply is drawn: collected then even if typing goes on

    def __init__(self, app: Any, collector: Collector | None) -> None:
        self.app = app
        # The process that runs the app owns the collector's settings, so the CLI passes one
        # and tests mostly do not.
        self.collector = collector
        self.stop_watch = threading.Event()
        self._last_input = 0.0
        self._collection_timer: Any = None
        self._collection_due: float | None = None  # since when a full collection waits
        self._curator_deferred = False  # fell due during a turn: runs when the turn ends

    def start(self) -> None:
        """Once the app is mounted: watch the home, check the curator now and every
        CURATOR_CHECK_INTERVAL, and after the first frame warm up the Markdown renderer, start
        the collector and the MCP servers."""
        app = self.app
        from hermes_tui.ui.modes import show_mode

        # The mode resolves "auto" by probing the sandbox: a few ms, on a thread.
        app.run_worker(lambda: show_mode(app), thread=True, group="mode", exit_on_error=False)
        if app.watch_files_enabled:
            self.watch_home()
        if app.runtime.config.curator.enabled:
            self.curate_if_due()
        # A session left open for days still gets its curator pass when it falls due.
        app.set_interval(app.CURATOR_CHECK_INTERVAL, app.check_curator)
        # The first reply must not pay for the Markdown renderer's lazy imports (Pygments and
        # a lexer: tens of ms, more while a fast stream's thread holds the GIL).
        app.call_after_refresh(app.set_timer, WARM_UP_DELAY, self._warm_up_markdown)
        if self.collector is not None:  # once the first screen is up: its objects stay for good
            app.call_after_refresh(self.collector.start)
        if app.runtime.config.mcp_servers:
            # Half a second after the first frame, on a thread: the first screen never waits
            # for a server (their processes and the SDK's import would otherwise compete with it
            # for the CPU); connecting takes seconds anyway.
            app.call_after_refresh(app.set_timer, MCP_START_DELAY, self._start_mcp)

    def _warm_up_markdown(self) -> None:
        from hermes_tui.ui.markdown_lines import markdown_style, warm_up

        warm_up(markdown_style(self.app))

    def _start_mcp(self) -> None:
        runtime = self.app.runtime
        self.app.run_worker(runtime.start_mcp, thread=True, group="mcp", exit_on_error=False)

    # ---- the curator ----------------------------------------------------------------------

    def check_curator(self) -> None:
        """The curator's schedule inside a long-lived app: run a pass when one is due, but never
        beside a running turn (it would change skills the turn may be loading): then it waits
        for the turn to end."""
        if not self.app.runtime.config.curator.enabled:
            return
        if self.app.turn_running:
            self._curator_deferred = True
            return
        self._curator_deferred = False
        self.curate_if_due()

    def turn_ended(self) -> None:
        if self._curator_deferred:
            self.check_curator()

    def curate_if_due(self) -> None:
        """The scheduled curator pass (deterministic; the model pass runs on /curator or by config)."""
        runtime = self.app.runtime

        def curate() -> None:
            if runtime.curator_due():
                runtime.run_curator()

        self.app.run_worker(
            curate, thread=True, exclusive=True, group="curator", exit_on_error=False
        )

    # ---- files edited outside the app -----------------------------------------------------

    def watch_home(self) -> None:
        self.app.run_worker(self._watch(), exclusive=True, group="watch", exit_on_error=False)

    async def _watch(self) -> None:
        import watchfiles

        memories = self.app.runtime.home / "memories"
        skills = self.app.runtime.home / "skills"
        for directory in (memories, skills):
            directory.mkdir(parents=True, exist_ok=True)

        def relevant(_change: Any, path: str) -> bool:
            return not path.endswith((".lock", ".tmp")) and "/.history/" not in path

        async for changes in watchfiles.awatch(
            memories,
            skills,
            watch_filter=relevant,
            debounce=200,
            stop_event=self.stop_watch,
            rust_timeout=500,
        ):
            paths = [Path(p) for _c, p in changes]
            if any(memories in p.parents for p in paths):
                self.app.query_one(MemoryPane).refresh_all()
            if any(skills in p.parents for p in paths):
                self.app.query_one(SkillsPane).refresh_view()

    # ---- garbage collections at quiet moments ---------------------------------------------

    def input_seen(self) -> None:
        self._last_input = time.monotonic()

    def collect_if_settled(self) -> None:
        """A full garbage collection once the turn is over, its reply is drawn and the user
        has paused: it stops the app for a moment (up to a second after a long reply)."""
        app = self.app
        if self.collector is None or app.turn_running or self._collection_timer is not None:
            return
        if any(not reply.settled for reply in app.query(AssistantMessage)):
            return  # the last reply posts Settled when it is drawn
        now = time.monotonic()
        if self._collection_due is None:
            self._collection_due = now
        typed, waited = now - self._last_input, now - self._collection_due
        if typed < self.COLLECT_AFTER_PAUSE and waited < self.COLLECT_DEADLINE:
            # The user is typing: after a pause, or at the deadline (garbage must not pile up
            # over many turns: the pause would grow with it).
            wait = min(self.COLLECT_AFTER_PAUSE - typed, self.COLLECT_DEADLINE - waited)
            self._collection_timer = app.set_timer(wait, self._collect_after_pause)
            return
        self._collection_due = None
        app.call_after_refresh(self.collector.settled)  # after the reply's last frame is out

    def _collect_after_pause(self) -> None:
        self._collection_timer = None
        self.collect_if_settled()
