"""The memory tool's failure budget (Hermes parity, DESIGN.md section 6): a model that keeps
failing memory calls in one turn is told to stop."""

from __future__ import annotations

from typing import Any

MAX_FAILURES_PER_TURN = 3


class FailureBudget:
    """Stops a model that keeps failing memory calls in one turn: as Hermes, three failures are
    answered as usual and the fourth is terminal (`done`).

    The agent owns one per conversation, calls `reset()` when a turn starts and passes every
    tool result through `apply()`. A success clears the count: it counts a losing streak.
    """

    def __init__(self, limit: int = MAX_FAILURES_PER_TURN) -> None:
        self.limit = limit
        self.failures = 0

    def reset(self) -> None:
        self.failures = 0

    def apply(self, result: dict[str, Any]) -> dict[str, Any]:
        if result.get("success"):
            self.failures = 0
            return result
        self.failures += 1
        if self.failures <= self.limit:
            return result
        # Terminal: no entries to work with, so the model stops instead of trying again.
        kept = {k: v for k, v in result.items() if k not in ("current_entries", "matches")}
        return {
            **kept,
            "done": True,
            "error": (
                f"{result.get('error', 'Memory write failed.')} This is failed memory call "
                f"{self.failures} in this turn: stop calling the memory tool now, leave memory "
                "as it is and answer the user. The fact can be saved in a later turn."
            ),
        }
