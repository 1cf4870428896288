"""When the curator's scheduled pass is due: its policy, its state file and the check alone.

`chat -q` and the app ask after a turn whether a pass is due. The answer needs
`skills/.curator_state` and the clock, not the curator's backups, plans and reports, so it
lives here and the curator (core/skills/curator.py) is imported only when a pass runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_tui.core.records import datarecord
from hermes_tui.core.skills.usage import parse_time

STATE_FILE = ".curator_state"  # under skills/ (Hermes keeps it there)


@datarecord
class CuratorPolicy:
    """curator.* as plain values (the composition root builds it from config)."""

    enabled: bool = True
    interval_hours: float = 168
    min_idle_hours: float = 2.0
    stale_after_days: float = 30
    archive_after_days: float = 90
    consolidate: bool = False
    backup_enabled: bool = True
    backup_keep: int = 5


def read_state(path: Path) -> dict[str, Any]:
    """skills/.curator_state as a dict; empty when missing or unreadable (never raises)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def idle_hours(last_activity: float | None, now: float) -> float | None:
    """Hours since the agent was last used (None: never, or unknown)."""
    return None if last_activity is None else max(0.0, (now - last_activity) / 3600)


def due(
    policy: CuratorPolicy,
    state_path: Path,
    clock: Callable[[], float],
    last_activity: Callable[[], float | None],
) -> bool:
    """Whether a scheduled pass should run now (an explicit `curator run` always may): enabled,
    not paused, idle for `min_idle_hours`, and `interval_hours` since the last run (or none)."""
    if not policy.enabled:
        return False
    state = read_state(state_path)
    if state.get("paused"):
        return False
    idle = idle_hours(last_activity(), clock())
    if idle is not None and idle < policy.min_idle_hours:
        return False
    last = parse_time(state.get("last_run_at"))
    return last is None or clock() - last >= policy.interval_hours * 3600
