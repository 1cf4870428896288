"""Specification of .usage.json bookkeeping."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core.skills.usage import UsageStore, parse_time


def test_outcomes_pins_and_states_are_recorded(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / ".usage.json", clock=lambda: 1_700_000_000.0)
    store.record_created("s", "agent")
    store.record_outcome("s", success=True)
    store.record_outcome("s", success=False)
    store.set_pinned("s", True)
    record = store.set_state("s", "stale")
    assert (
        record["success_count"],
        record["failure_count"],
        record["pinned"],
        record["state"],
    ) == (1, 1, True, "stale")
    assert record["created_at"] == "2023-11-14T22:13:20+00:00"
    viewed = store.record_view("s")
    assert viewed["state"] == "active", "using a stale skill makes it active again"
    assert store.set_state("s", "archived")["archived_at"] is not None


def test_times_parse_from_iso_strings_and_numbers() -> None:
    assert parse_time("2023-11-14T22:13:20+00:00") == 1_700_000_000.0
    assert parse_time("2023-11-14T22:13:20Z") == 1_700_000_000.0
    assert parse_time(5) == 5.0 and parse_time(None) is None and parse_time("soon") is None
