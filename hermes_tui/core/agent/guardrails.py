"""Loop guardrails: notice when the model repeats itself and say so in the tool result.

Three signals, each a warning appended to the result the model reads (never a hard stop):
the same call failing twice, the same tool failing three times in a turn, and a read-only
call returning exactly what it returned before.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

SAME_CALL_FAILURES = 2
SAME_TOOL_FAILURES = 3


class LoopGuard:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._call_failures: Counter[str] = Counter()
        self._tool_failures: Counter[str] = Counter()
        self._read_results: dict[str, str] = {}

    def check(
        self, name: str, arguments: dict[str, Any] | None, result: dict[str, Any], read_only: bool
    ) -> str | None:
        key = name + json.dumps(arguments, sort_keys=True, default=str)
        if not result.get("success", True):
            self._call_failures[key] += 1
            self._tool_failures[name] += 1
            if self._call_failures[key] >= SAME_CALL_FAILURES:
                return (
                    f"This exact {name} call has now failed {self._call_failures[key]} times. Do not "
                    "repeat it: read the error, change the approach or the arguments."
                )
            if self._tool_failures[name] >= SAME_TOOL_FAILURES:
                return (
                    f"{name} has failed {self._tool_failures[name]} times in this turn. Step back, "
                    "check your assumptions, or tell the user what is blocking you."
                )
            return None
        if read_only:
            digest = json.dumps(result, sort_keys=True, default=str)
            if self._read_results.get(key) == digest:
                return (
                    "This returned exactly the same result as before; you already have it. Move on."
                )
            self._read_results[key] = digest
        return None
