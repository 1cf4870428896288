"""A thin adapter from Hermes Agent's tool APIs onto ours, so Hermes' own tests run here.

Only shapes change (a 4-tuple instead of a Replacement, a JSON string instead of a dict); every
decision is ours. Each adapted test file says which Hermes file it comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace


def fuzzy_find_and_replace(
    content: str, old_string: str, new_string: str, replace_all: bool = False
) -> tuple[str, int, str | None, str | None]:
    """Hermes' tools.fuzzy_match.fuzzy_find_and_replace: (new content, count, strategy, error)."""
    try:
        result = find_and_replace(content, old_string, new_string, replace_all=replace_all)
    except FuzzyMatchError as exc:
        return content, 0, None, str(exc)
    return result.content, result.count, result.strategy, None


def as_json(result: dict[str, Any]) -> str:
    """Hermes' tools return JSON strings; ours return dicts."""
    return json.dumps(result)


def tool(tools: list, name: str):
    """Call one of our tools by name the way the registry does, returning its JSON result."""
    from hermes_tui.core.tools.registry import ToolContext

    by_name = {t.name: t for t in tools}

    def call(context: ToolContext | None = None, **arguments: Any) -> str:
        return as_json(by_name[name].handler(arguments, context or ToolContext()))

    return call


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
