"""Tool registry: each tool's JSON schema, handler and toolset, and one safe way to call it.

A handler takes the parsed arguments and a ToolContext and returns a JSON-serialisable dict.
`run()` is the one road every tool call takes: the arguments are validated against the tool's
JSON schema (the model gets "field `timeout`: expected number, got string", and the handler
never runs), every failure becomes a result the model reads (`success: false` and an error
that says what to do), never an exception that would end the turn, and the result is redacted
and capped (results.py) before anyone stores or shows it.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from hermes_tui.core.events import Origin
from hermes_tui.core.messages import ArgumentsError, load_arguments
from hermes_tui.core.records import datarecord
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.memory_budget import FailureBudget
from hermes_tui.core.tools.plain_schema import certainly_valid
from hermes_tui.core.tools.results import (
    BoundedResult,
    ResultLimits,
    bound_result,
    withhold_pieces,
)

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], "ToolContext"], dict[str, Any]]

# How much asks before it runs (README, "Approval modes"): sandboxed runs in the OS sandbox and
# asks for what the policy labels dangerous, for destroying work, for leaving the sandbox and
# for unlisted network; strict runs only what is proven read-only; plan reads and proposes;
# yolo asks nothing (the sandbox still applies).
ApprovalMode = Literal["sandboxed", "strict", "plan", "yolo"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("sandboxed", "strict", "plan", "yolo")
APPROVAL_MODE_TEXT: dict[str, str] = {
    "sandboxed": "Commands run in the OS sandbox without asking, except dangerous ones",
    "strict": "Only commands proven read-only run without asking",
    "plan": "Read, search and propose; every change is refused",
    "yolo": "Nothing asks; the sandbox still applies",
}


class EditorFiles(Protocol):
    """Files as an editor holds them; either method raises OSError when the editor cannot."""

    can_read: bool
    can_write: bool

    def read_text(self, path: Path) -> str: ...

    def write_text(self, path: Path, text: str) -> None: ...


@datarecord(frozen=False)
class ToolContext:
    """What a tool call may know about who is calling; one per conversation (or review)."""

    origin: Origin = "agent"
    viewed_skills: set[str] = field(default_factory=set)
    cwd: Path = field(default_factory=Path.cwd)
    workdir: Path = field(default_factory=Path.cwd)
    # The conversation's approvals (approvals.py): its session grants, and the face that
    # asks the human. The default has no human, so whatever asks is refused.
    approvals: Approvals = field(default_factory=Approvals)
    cancel: threading.Event = field(default_factory=threading.Event)
    memory_budget: FailureBudget = field(default_factory=FailureBudget)
    session_id: str | None = None
    # The conversation's approval mode; a face changes it (/mode, shift+tab) between turns.
    approval_mode: ApprovalMode = "sandboxed"
    # Memory texts of this conversation the scanner refused or held: a later write is judged
    # joined to them, so an attack split across two entries is seen whole (core/agent/taint.py).
    suspect_writes: list[str] = field(default_factory=list)
    # Those it let through: a later write is judged joined to the last few of them too, so an
    # attack cut into parts that are each harmless is held at its last part (threats/scanner.py).
    stored_writes: list[str] = field(default_factory=list)
    # An editor's buffers, when the face has one (ACP's fs/read_text_file, fs/write_text_file):
    # file tools read unsaved edits and write through the editor; the path policy still decides.
    editor: EditorFiles | None = None
    # The conversation's todo list (core/todo.TodoList), set by the Session; None in a review.
    todos: Any = None
    # The small pieces of known secrets its results have shown (core/redaction/pieces.py):
    # made at its first result, so a secret printed in quarters is not shown whole.
    secret_pieces: Any = None
    # The tool results of the history it was resumed (or forked) with, for that count.
    replayed_results: list[str] = field(default_factory=list)
    # Told around every file write the files tools make (core/checkpoints.CheckpointStore:
    # `before(path)`, `after(path)`), so a turn can be rewound; None: not recorded.
    file_writes: Any = None


@datarecord
class Tool:
    """A tool the model can call: its schema, its handler and how it is shown."""

    name: str
    toolset: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    read_only: bool = False
    # It changes only the conversation's own state (its todo list), nothing outside it: not
    # read-only, yet plan mode, where planning is the point, allows it.
    conversation_only: bool = False
    preview: Callable[[dict[str, Any]], str] | None = None
    # Its results carry text from outside (MCP servers): a conversation that reads one has its
    # memory and skill writes held for approval (core/agent/taint.py).
    untrusted: bool = False
    # Ends what the tool keeps running for the conversation (the terminal's network holder).
    close: Callable[[], None] | None = field(default=None, compare=False, repr=False)

    @property
    def plan_allowed(self) -> bool:
        """Plan mode runs it: it reads, or changes nothing outside the conversation."""
        return self.read_only or self.conversation_only

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


JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def _json_type(value: Any) -> str:
    return JSON_TYPES.get(type(value), type(value).__name__)


def _field(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe_schema_error(error: Any, tool: Tool) -> str:
    """One line the model can act on, naming the field, for a jsonschema ValidationError."""
    where = _field(error.absolute_path)
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if kind == "required":
        missing = [k for k in expected if isinstance(instance, dict) and k not in instance]
        prefix = f"field `{where}`: " if where else ""
        return f"{prefix}missing required field `{missing[0] if missing else expected}`"
    if kind == "additionalProperties":
        allowed = list((error.schema or {}).get("properties", {}))
        extra = sorted(set(instance) - set(allowed)) if isinstance(instance, dict) else []
        inside = f" of `{where}`" if where else f" of {tool.name}"
        return (
            f"field `{_field([*error.absolute_path, extra[0]]) if extra else where}` is not a "
            f"parameter{inside}; it takes {', '.join(allowed) or 'no parameters'}"
        )
    label = f"field `{where}`" if where else "the arguments"
    if kind == "type":
        names = expected if isinstance(expected, str) else " or ".join(expected)
        return f"{label}: expected {names}, got {_json_type(instance)}"
    if kind == "enum":
        return f"{label}: expected one of {', '.join(map(str, expected))}, got {instance!r}"
    if kind == "minLength" and expected == 1:
        return f"{label}: must not be empty"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }
        return f"{label}: must be {words[kind]} {expected}, got {instance!r}"
    return f"{label}: {error.message}"


def _validator_for(tool: Tool) -> Any:
    """A validator for the tool's schema, in the draft it declares (2020-12 when it says none).

    A schema that is itself invalid (an MCP server's, say) validates nothing rather than
    failing every call; our own schemas are checked by the test suite.
    """
    # Imported only when a call's arguments failed the compiled check (`_checker_for`).
    from jsonschema import Draft202012Validator, SchemaError, validators

    cls = validators.validator_for(tool.parameters, default=Draft202012Validator)
    try:
        cls.check_schema(tool.parameters)
    except SchemaError as exc:
        log.warning("tool %s has an invalid JSON schema (%s); not validating", tool.name, exc)
        return None
    return cls(tool.parameters)


def _checker_for(tool: Tool) -> Callable[[Any], Any] | None:
    """The tool's schema compiled to a function (fastjsonschema, on the tool's first call): a
    valid call costs microseconds and no import of jsonschema (70 ms, its dependencies
    included). Only arguments it rejects go through jsonschema, which names every problem as
    the model is told it. None when fastjsonschema cannot compile the schema (a draft it does
    not know): then jsonschema checks every call."""
    import fastjsonschema

    def no_fetching(uri: str) -> Any:
        # A schema from an MCP server must not make us fetch anything (fastjsonschema would
        # open a remote $ref); jsonschema then checks that tool's calls without fetching.
        raise fastjsonschema.JsonSchemaDefinitionException(f"remote $ref {uri} not followed")

    handlers = dict.fromkeys(("http", "https", "file", "ftp", "data"), no_fetching)
    try:
        return fastjsonschema.compile(tool.parameters, handlers=handlers)
    except (fastjsonschema.JsonSchemaDefinitionException, ValueError, TypeError, KeyError):
        return None


class Deferred:
    """Tools whose module is imported on their first call: stand-ins carry each tool's schema
    (plain data, core/tools/schemas.py) and forward a call, its trace line and `close` to the
    tools `make` builds then (once, whichever stand-in is called first)."""

    def __init__(self, make: Callable[[], list[Tool]]) -> None:
        self._make = make
        self._built: dict[str, Tool] | None = None
        self._lock = threading.Lock()

    def _tool(self, name: str) -> Tool:
        with self._lock:
            if self._built is None:
                self._built = {tool.name: tool for tool in self._make()}
        return self._built[name]

    def tools(self, *described: dict[str, Any]) -> list[Tool]:
        """A stand-in for each described tool (the keyword arguments of its `Tool`)."""
        return [
            Tool(
                **fields,
                handler=lambda args, context, name=fields["name"]: self._tool(name).handler(
                    args, context
                ),
                # Called only after a successful call, when the tool is built: its own line.
                preview=lambda result, name=fields["name"]: self._tool(name).summarise(result),
                close=self.close,
            )
            for fields in described
        ]

    def close(self) -> None:
        """End what the built tools keep running; nothing when none was called."""
        with self._lock:
            built = self._built
        for close in dict.fromkeys(t.close for t in (built or {}).values() if t.close):
            close()


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = (), *, limits: ResultLimits | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Any] = {}
        self._checkers: dict[str, Callable[[Any], Any] | None] = {}
        self.limits = limits or ResultLimits()
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool

    def names(self) -> list[str]:
        return list(self._tools)

    def close(self) -> None:
        """End what the tools keep running (each tool's `close`, once)."""
        for close in dict.fromkeys(t.close for t in self._tools.values() if t.close):
            close()

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self._tools.values()]

    def validation_error(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """Why `arguments` do not match the tool's schema (every problem, one a line), or None."""
        if certainly_valid(tool.parameters, arguments):  # plain_schema.py: no compile needed
            return None
        if tool.name not in self._checkers:
            self._checkers[tool.name] = _checker_for(tool)
        checker = self._checkers[tool.name]
        if checker is not None:
            from fastjsonschema import JsonSchemaValueException

            try:
                checker(arguments)
                return None
            except JsonSchemaValueException:
                pass  # jsonschema says what is wrong, in full
        if tool.name not in self._validators:
            self._validators[tool.name] = _validator_for(tool)
        validator = self._validators[tool.name]
        if validator is None:
            return None
        problems = sorted(
            validator.iter_errors(arguments), key=lambda e: (list(map(str, e.path)), e.validator)
        )
        if not problems:
            return None
        lines = list(dict.fromkeys(describe_schema_error(e, tool) for e in problems))
        return (
            f"invalid arguments for {tool.name}: "
            + "; ".join(lines)
            + ". Fix them and call it again (the schema is in the tool list)."
        )

    def run(
        self, name: str, arguments: dict[str, Any] | str, context: ToolContext
    ) -> BoundedResult:
        """Call the tool; the result redacted and capped, beside its uncut form for the faces."""
        try:
            raw = self._call(name, arguments, context)
        except Exception as exc:  # a tool bug must not end the user's turn; the model sees it
            raw = {
                "success": False,
                "error": f"{name} failed unexpectedly: {type(exc).__name__}: {exc}",
            }
        bounded = bound_result(name, raw, self.limits, context.session_id)
        if context.secret_pieces is None:  # the conversation's first result
            context.secret_pieces = self.limits.redactor.piece_ledger()
            context.secret_pieces.withheld(context.replayed_results)  # a resumed one's count
        held = withhold_pieces(bounded, context.secret_pieces)
        if held is bounded:
            return bounded
        # Its texts, pieces withheld, are new to the redactor: the faces' event would redact
        # them whole (the output, then the JSON holding it again: seconds for a long output).
        # Read once here, as the result was (json_of), they are its own and pass as they are.
        full, full_text = self.limits.redactor.json_of(held.full)
        return replace(held, full=full, full_text=full_text)

    def call(
        self, name: str, arguments: dict[str, Any] | str, context: ToolContext
    ) -> dict[str, Any]:
        """`run()`, keeping only what the model gets."""
        return self.run(name, arguments, context).result

    def _call(
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
                arguments = load_arguments(arguments)
            except ArgumentsError as exc:
                return {
                    "success": False,
                    "error": f"the arguments for {name} are not valid JSON ({exc}); "
                    "send a JSON object matching the tool's schema.",
                }
        if not isinstance(arguments, dict):
            return {"success": False, "error": f"the arguments for {name} must be a JSON object"}
        # Some models send null for an optional parameter they mean to leave out.
        required = set(tool.parameters.get("required", ()))
        arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        problem = self.validation_error(tool, arguments)
        if problem:
            return {"success": False, "error": problem}
        if context.approval_mode == "plan" and not tool.plan_allowed and tool.name != "terminal":
            # The terminal decides for itself: a command proven read-only still runs.
            return {
                "success": False,
                "denied": True,
                "error": f"plan mode: {name} changes things, so it is not run until the user "
                "leaves plan mode. Read, search and propose the change instead.",
            }
        return tool.handler(arguments, context)
