"""Tool registry: each tool's JSON schema, handler and toolset, and one safe way to call it.

A handler takes the parsed arguments and a ToolContext and returns a JSON-serialisable dict.
`call()` turns every failure into a result the model reads (`success: false` and an error
that says what to do), never an exception that would end the turn.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.events import Origin
from hermes_tui.core.memory import FailureBudget

Handler = Callable[[dict[str, Any], "ToolContext"], dict[str, Any]]
# Asked before a dangerous command runs: (command, why it is dangerous) -> allowed?
Approver = Callable[[str, str], bool]


def deny_all(_command: str, _reason: str) -> bool:
    return False


@dataclass
class ToolContext:
    """What a tool call may know about who is calling; one per conversation (or review)."""

    origin: Origin = "agent"
    viewed_skills: set[str] = field(default_factory=set)
    cwd: Path = field(default_factory=Path.cwd)
    workdir: Path = field(default_factory=Path.cwd)
    approver: Approver = deny_all
    cancel: threading.Event = field(default_factory=threading.Event)
    memory_budget: FailureBudget = field(default_factory=FailureBudget)
    session_id: str | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    toolset: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    read_only: bool = False
    preview: Callable[[dict[str, Any]], str] | None = None

    def summarise(self, result: dict[str, Any]) -> str:
        """One short line for the tool trace."""
        if not result.get("success", True):
            return "error: " + " ".join(str(result.get("error", "")).split())[:120]
        if self.preview is not None:
            return self.preview(result)
        text = str(result.get("message") or json.dumps(result, ensure_ascii=False))
        return " ".join(text.split())[:120]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool shape; providers convert it for their own wire format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self._tools.values()]

    def call(
        self, name: str, arguments: dict[str, Any] | str, context: ToolContext
    ) -> dict[str, Any]:
        tool = self._tools.get(name)
        if tool is None:
            return {
                "success": False,
                "error": f"there is no tool named {name!r}; available: {', '.join(self._tools)}",
            }
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                return {
                    "success": False,
                    "error": f"the arguments for {name} are not valid JSON ({exc.msg} at char {exc.pos}); "
                    "send a JSON object matching the tool's schema.",
                }
        if not isinstance(arguments, dict):
            return {"success": False, "error": f"the arguments for {name} must be a JSON object"}
        missing = [
            key for key in tool.parameters.get("required", []) if arguments.get(key) in (None, "")
        ]
        if missing:
            return {"success": False, "error": f"{name} needs {', '.join(missing)}"}
        return tool.handler(arguments, context)
