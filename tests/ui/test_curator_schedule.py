"""The scheduled curator inside a long-lived app: it runs when due, but never beside a turn."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from helpers import make_app, skill_text, wait_until

from hermes_tui.ui.app import HermesApp

DAY = 86_400
SIZE = (100, 30)  # small: a frame costs by the cells it draws


def _due_with_an_old_skill(home: Path, app: HermesApp) -> None:
    """A curator that last ran 8 days ago, and an agent-made skill unused for 100 days."""
    library = app.runtime.skills
    library.create("old-trick", skill_text("old-trick"), origin="review")
    stamp = time.time() - 100 * DAY
    library.usage.update("old-trick", lambda r: r.update(created_at=stamp, last_used_at=stamp))
    last = datetime.fromtimestamp(time.time() - 8 * DAY, UTC).isoformat(timespec="seconds")
    (app.runtime.home / "skills" / ".curator_state").write_text(
        json.dumps({"last_run_at": last}) + "\n"
    )


async def test_the_app_checks_the_curator_schedule_while_it_stays_open(home: Path) -> None:
    app = make_app(home)
    notes: list[str] = []
    async with app.run_test(size=SIZE):
        await app.workers.wait_for_complete()  # the start-up check: first run, records the time
        assert app.CURATOR_CHECK_INTERVAL <= 3600
        original = app.notify
        app.notify = lambda message, **kw: notes.append(str(message)) or original(message, **kw)
        _due_with_an_old_skill(home, app)  # days pass with the app open
        app.check_curator()  # what the interval timer calls
        await app.workers.wait_for_complete()
        # the pass's notice comes through the event forwarder
        await wait_until(lambda: any(n.startswith("curator: ") for n in notes))
        assert app.runtime.skills.get("old-trick") is None  # archived (restorable)
        assert any(n.startswith("curator: ") and "archive" in n for n in notes), notes
        assert not app.runtime.curator().due()


async def test_a_curator_pass_due_during_a_turn_waits_for_the_turn_to_end(home: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        _due_with_an_old_skill(home, app)
        app.turn_running = True  # a turn is running
        app.check_curator()
        await app.workers.wait_for_complete()
        assert app.runtime.skills.get("old-trick") is not None  # untouched for now
        app.turn_running = False  # the turn ends
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.runtime.skills.get("old-trick") is None


async def test_a_disabled_curator_never_runs_in_the_app(home: Path) -> None:
    (home / "config.yaml").write_text("curator:\n  enabled: false\n")
    app = make_app(home)
    async with app.run_test(size=SIZE):
        _due_with_an_old_skill(home, app)
        app.check_curator()
        await app.workers.wait_for_complete()
        assert app.runtime.skills.get("old-trick") is not None
