"""`skills/.usage.json`: per-skill counters, provenance, pin and lifecycle state (Hermes keys).

One JSON object keyed by skill name. Every change is a read-modify-write under the file's lock
with an atomic replace, and keys we do not know (a newer Hermes, another tool) are kept.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.storage import atomic_write_text, file_lock

State = Literal["active", "stale", "archived"]
CreatedBy = Literal["agent", "user", "bundled", "hub"]

DEFAULTS: dict[str, Any] = {
    "created_by": "user",
    "use_count": 0,
    "view_count": 0,
    "last_used_at": None,
    "last_viewed_at": None,
    "patch_count": 0,
    "last_patched_at": None,
    "created_at": None,
    "state": "active",
    "pinned": False,
    "archived_at": None,
    "success_count": 0,
    "failure_count": 0,
}


def iso_now(clock: Callable[[], float] = time.time) -> str:
    return datetime.fromtimestamp(clock(), UTC).isoformat(timespec="seconds")


def parse_time(value: Any) -> float | None:
    """Seconds since the epoch from an ISO string or a number; None if absent or unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp()
    return None


class UsageError(ValueError):
    """.usage.json exists but is not a JSON object; it is left untouched."""


class UsageStore:
    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"{self.path}:{exc.lineno}: not valid JSON ({exc.msg}); fix or move the file, "
                "usage counters are not written until then"
            ) from exc
        if not isinstance(data, dict):
            raise UsageError(f"{self.path}: expected a JSON object keyed by skill name")
        return data

    def all(self) -> dict[str, dict[str, Any]]:
        """Every record with defaults filled in (records only; stray top-level keys skipped)."""
        return {
            name: {**DEFAULTS, **rec} for name, rec in self._read().items() if isinstance(rec, dict)
        }

    def get(self, name: str) -> dict[str, Any]:
        record = self._read().get(name)
        return {**DEFAULTS, **(record if isinstance(record, dict) else {})}

    def update(self, name: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Apply `change` to the stored record of `name` (created if missing) and save."""
        with self._lock, file_lock(self.path):
            data = self._read()
            record = data.get(name)
            if not isinstance(record, dict):
                record = {}
            change(record)
            data[name] = record
            atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
            return {**DEFAULTS, **record}

    def rename(self, old: str, new: str) -> None:
        with self._lock, file_lock(self.path):
            data = self._read()
            if old in data:
                data[new] = data.pop(old)
                atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    # ---- the events that change a record ------------------------------------------------

    def record_created(self, name: str, created_by: CreatedBy) -> dict[str, Any]:
        def change(record: dict[str, Any]) -> None:
            record["created_by"] = created_by
            record.setdefault("created_at", iso_now(self.clock))
            record["state"] = "active"
            record["archived_at"] = None

        return self.update(name, change)

    def record_view(self, name: str) -> dict[str, Any]:
        now = iso_now(self.clock)

        def change(record: dict[str, Any]) -> None:
            record["view_count"] = int(record.get("view_count", 0)) + 1
            record["use_count"] = int(record.get("use_count", 0)) + 1
            record["last_viewed_at"] = now
            record["last_used_at"] = now
            if record.get("state") == "stale":
                record["state"] = "active"

        return self.update(name, change)

    def record_patch(self, name: str) -> dict[str, Any]:
        def change(record: dict[str, Any]) -> None:
            record["patch_count"] = int(record.get("patch_count", 0)) + 1
            record["last_patched_at"] = iso_now(self.clock)

        return self.update(name, change)

    def record_outcome(self, name: str, success: bool) -> dict[str, Any]:
        key = "success_count" if success else "failure_count"
        return self.update(name, lambda r: r.__setitem__(key, int(r.get(key, 0)) + 1))

    def set_pinned(self, name: str, pinned: bool) -> dict[str, Any]:
        return self.update(name, lambda r: r.__setitem__("pinned", pinned))

    def set_state(self, name: str, state: State, **extra: Any) -> dict[str, Any]:
        def change(record: dict[str, Any]) -> None:
            record["state"] = state
            record["archived_at"] = iso_now(self.clock) if state == "archived" else None
            record.update(extra)

        return self.update(name, change)
