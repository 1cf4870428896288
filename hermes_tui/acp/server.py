"""`hermes-tui acp`: the same Runtime, sessions, tools, sandbox, approval modes and background
reviews as the app, spoken as ACP (JSON-RPC over stdio) with the agent-client-protocol SDK.

A face, not a second agent: each ACP session is a core `Session` opened by the Runtime; a prompt
runs `Session.submit` on a worker thread; the Runtime's events are turned into ACP session
updates (message and thought chunks, tool calls with their kind, diff and output, the review's
memory and skill changes as `think` tool calls, the agent's todo list as the plan); every approval the app would show becomes a
permission request with the same three choices, and a client that does not answer within
`APPROVAL_TIMEOUT` has said no. Modes are the approval modes. What the client brings (its
editor's buffers, its MCP servers) is in acp/editor.py. stdout carries protocol messages
only: logging goes to `<home>/logs/acp.log` and stderr.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp import helpers, schema

from hermes_tui.acp.editor import EditorBuffers, client_mcp_servers
from hermes_tui.core import events as ev
from hermes_tui.core.tools.approvals import (
    ApprovalRequest,
    Decision,
    carried_labels,
    shown_command,
)
from hermes_tui.core.tools.registry import APPROVAL_MODE_TEXT as MODE_TEXT
from hermes_tui.core.tools.registry import APPROVAL_MODES

log = logging.getLogger("hermes_tui.acp")
APPROVAL_TIMEOUT = 300.0
TITLE_CHARS = 300  # a permission request's one-line title, at most (the whole is its content)
# Our tools → ACP tool kinds (read, edit, delete, move, search, execute, think, fetch, other).
TOOL_KIND = {
    "read_file": "read",
    "search_files": "search",
    "write_file": "edit",
    "patch": "edit",
    "terminal": "execute",
    "session_search": "search",
    "skills_list": "read",
    "skill_view": "read",
    "skill_manage": "think",
    "memory": "think",
    "web_fetch": "fetch",
    "todo": "think",
}
OUR_COMMANDS = {
    "memory": "show what the agent remembers (MEMORY.md and USER.md)",
    "skills": "list the skills the agent can use",
    "pending": "writes held for your approval",
    "curator": "run the skill curator now",
}


@dataclass
class AcpSession:
    session: Any  # core Session
    cwd: Path
    cancel: threading.Event = field(default_factory=threading.Event)
    running: bool = False
    mcp: Any = None  # the McpManager of the servers the client passed, if any


class HermesAcpAgent:
    """The acp.Agent protocol over one Runtime."""

    def __init__(self, runtime_factory: Any) -> None:
        self._runtime_factory = runtime_factory
        self.runtime: Any = None
        self.conn: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.sessions: dict[str, AcpSession] = {}
        self._local = threading.local()  # the ACP session a worker thread's events belong to
        self._setup_problem: str | None = None
        self.client_read = self.client_write = False

    # ---- plumbing ----------------------------------------------------------------------

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def _runtime(self) -> Any:
        if self.runtime is None:
            self.runtime = self._runtime_factory(self._sink)
        return self.runtime

    def _send(self, session_id: str, update: Any) -> None:
        """From any thread: one session update, in order, without waiting for the client."""
        if self.loop is None or self.conn is None:
            return
        asyncio.run_coroutine_threadsafe(
            self.conn.session_update(session_id=session_id, update=update), self.loop
        )

    def _sink(self, event: Any) -> None:
        """The Runtime's events, as ACP updates of the session they belong to."""
        session_id = getattr(self._local, "session_id", None) or getattr(event, "session_id", None)
        if session_id is None:
            session_id = next(iter(self.sessions), None)  # a review's store events
        if session_id is None:
            return
        try:
            update = self._update_for(event, session_id)
        except Exception:  # a face must never break the turn
            log.exception("could not turn %r into an ACP update", type(event).__name__)
            return
        if update is not None:
            self._send(session_id, update)

    def _update_for(self, event: Any, session_id: str) -> Any:
        if isinstance(event, ev.TextDelta):
            return acp.update_agent_message_text(event.text)
        if isinstance(event, ev.ReasoningDelta):
            return acp.update_agent_thought_text(event.text)
        if isinstance(event, ev.ToolCallStarted):
            return acp.start_tool_call(
                event.call_id,
                _title(event.name, event.arguments),
                kind=TOOL_KIND.get(event.name, "other"),  # type: ignore[arg-type]
                status="in_progress",
                raw_input=event.arguments,
                locations=_locations(event.arguments),
            )
        if isinstance(event, ev.ToolCallFinished):
            content: list[Any] = []
            if event.diff and event.name in ("write_file", "patch"):
                content.append(_diff_content(event))
            text = event.output or event.result
            if text and not content:
                content.append(acp.tool_content(acp.text_block(text[-20_000:])))
            return acp.update_tool_call(
                event.call_id,
                status="completed" if event.ok else "failed",
                content=content or None,
                raw_output=event.preview,
            )
        if isinstance(event, ev.ReviewFinished) and event.changes:
            return acp.start_tool_call(
                f"review-{event.review_id}",
                f"Review: {event.summary}",
                kind="think",
                status="completed",
                content=[
                    acp.tool_diff_content(
                        f"{change.kind}:{change.target}",
                        change.after or "",
                        change.before,
                    )
                    for change in event.changes
                ],
            )
        if isinstance(event, ev.WriteHeld):
            return acp.start_tool_call(
                f"held-{event.pending_id}",
                f"Held for approval: {event.kind} {event.target} ({event.reason}); "
                f"`hermes-tui pending approve {event.pending_id}` applies it",
                kind="think",
                status="completed",
            )
        if isinstance(event, (ev.MemoryChanged, ev.SkillChanged)) and event.origin == "agent":
            name = event.target if isinstance(event, ev.MemoryChanged) else event.name
            kind = "memory" if isinstance(event, ev.MemoryChanged) else "skill"
            return acp.start_tool_call(
                f"learned-{uuid.uuid4().hex[:8]}",
                f"Learned: {kind} {name} {event.action}",
                kind="think",
                status="completed",
                content=[acp.tool_diff_content(f"{kind}:{name}", event.after or "", event.before)],
            )
        if isinstance(event, ev.ErrorEvent):
            return acp.update_agent_message_text(f"\n\n[error] {event.text}\n")
        if isinstance(event, ev.TodoChanged):
            # The todo list is ACP's plan: the whole list each time, as the protocol asks.
            return acp.update_plan(
                [acp.plan_entry(item.content, status=item.status) for item in event.items]
            )
        return None

    def _redact(self, text: str) -> str:
        return self.runtime.redactor.text(text) if self.runtime is not None else text

    def _ask(self, session_id: str, request: ApprovalRequest) -> Decision:
        """An approval, as a permission request; no answer in time is a no. The session's
        grants live in the core (approvals.py): this only asks the client's human."""
        if self.loop is None or self.conn is None:
            return "deny"
        options = [schema.PermissionOption(option_id="once", name="Allow once", kind="allow_once")]
        if request.grants is not None:
            options.append(
                schema.PermissionOption(
                    option_id="session",
                    name=f"Allow for this session ({request.grants})",
                    kind="allow_always",
                )
            )
        options.append(schema.PermissionOption(option_id="deny", name="Deny", kind="reject_once"))
        # As the TUI's dialog shows it (attack9's A9-12): padding said in words, a known secret
        # by its label; the title on one line (editors show it so), the whole below it.
        shown = shown_command(self._redact(request.what))
        carried = carried_labels(shown)
        also = f"; it carries your {', '.join(carried)}, shown by name" if carried else ""
        title = " ⏎ ".join(line for line in shown.splitlines() if line)
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1] + "…"
        tool_call = schema.ToolCallUpdate(
            tool_call_id=f"approval-{uuid.uuid4().hex[:8]}",
            title=f"{title} — needs approval: {request.reason}{also}",
            kind="execute",
            status="pending",
            raw_input={"command": shown, "category": request.category},
            content=[acp.tool_content(acp.text_block(shown))],
        )
        future = asyncio.run_coroutine_threadsafe(
            self.conn.request_permission(
                session_id=session_id, tool_call=tool_call, options=options
            ),
            self.loop,
        )
        try:
            response = future.result(APPROVAL_TIMEOUT)
        except (FutureTimeout, Exception) as exc:  # no answer, or a broken client: no
            log.warning("permission request got no usable answer: %s", exc)
            future.cancel()
            return "deny"
        outcome = response.outcome
        chosen = getattr(outcome, "option_id", None)
        if chosen == "session" and request.grants is not None:
            return "session"
        return "once" if chosen == "once" else "deny"

    # ---- the protocol ------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **_: Any,
    ) -> Any:  # noqa: E501
        self.loop = asyncio.get_running_loop()
        fs = getattr(client_capabilities, "fs", None)
        self.client_read = bool(fs and getattr(fs, "read_text_file", False))
        self.client_write = bool(fs and getattr(fs, "write_text_file", False))
        runtime = await asyncio.to_thread(self._runtime)
        try:
            spec = runtime.provider_spec()
            setup = f"{spec.name}/{spec.model}"
        except Exception as exc:  # noqa: BLE001 - any configuration problem is said, not raised
            self._setup_problem = str(exc)
            setup = "not configured"
        from hermes_tui import __version__

        return schema.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(embedded_context=True),
            ),
            agent_info=schema.Implementation(
                name="hermes-tui", title=f"hermes-tui ({setup})", version=__version__
            ),
            auth_methods=[],
        )

    def _open(
        self, cwd: str, session_id: str | None, mcp_servers: Any = None
    ) -> tuple[str, AcpSession]:
        runtime = self._runtime()
        holder: dict[str, str] = {}

        def ask(request: ApprovalRequest) -> Decision:
            return self._ask(holder["id"], request)

        session = runtime.open_session(
            session_id,
            cwd=Path(cwd),
            ask=ask,
            reviewer=runtime.reviewer(),
        )
        holder["id"] = session.id
        state = AcpSession(session, Path(cwd))
        if self.client_read or self.client_write:
            session.agent.context.editor = EditorBuffers(
                self, session.id, self.client_read, self.client_write
            )
        if mcp_servers:
            state.mcp = client_mcp_servers(mcp_servers, runtime.sink, runtime.redactor)
            state.mcp.start()
            from hermes_tui.runtime_tools import vetted  # a poisoned description: left out

            session.agent.add_tools(
                vetted(state.mcp.freeze(), runtime.scanner.refused, runtime.sink, state.mcp)
            )
            for name, mcp_state in state.mcp.states.items():
                if mcp_state.status != "ready":
                    log.warning("client MCP server %s: %s", name, mcp_state.error)
        self.sessions[session.id] = state
        return session.id, state

    def close(self) -> None:
        """The client hung up: stop the servers it passed and close the runtime."""
        for state in self.sessions.values():
            state.session.close()
            if state.mcp is not None:
                state.mcp.stop()
        if self.runtime is not None:
            self.runtime.close()

    def _modes(self, state: AcpSession) -> Any:
        current = state.session.approval_mode
        return schema.SessionModeState(
            current_mode_id=current,
            available_modes=[
                schema.SessionMode(id=mode, name=mode.capitalize(), description=MODE_TEXT[mode])
                for mode in APPROVAL_MODES
            ],
        )

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> Any:
        if self._setup_problem:
            raise acp.RequestError.invalid_request(
                {"message": f"hermes-tui has no model yet: {self._setup_problem}"}
            )
        session_id, state = await asyncio.to_thread(self._open, cwd, None, mcp_servers)
        asyncio.get_running_loop().call_soon(self._announce_commands, session_id)
        return schema.NewSessionResponse(session_id=session_id, modes=self._modes(state))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> Any:  # noqa: E501
        opened_id, state = await asyncio.to_thread(self._open, cwd, session_id, mcp_servers)
        for message in state.session.agent.history:
            if message.role == "user":
                self._send(opened_id, acp.update_user_message_text(message.content))
            elif message.role == "assistant":
                if message.reasoning:
                    self._send(opened_id, acp.update_agent_thought_text(message.reasoning))
                if message.content:
                    self._send(opened_id, acp.update_agent_message_text(message.content))
                for call in message.tool_calls:
                    self._send(
                        opened_id,
                        acp.start_tool_call(
                            call.id,
                            _title(call.name, call.parsed_arguments() or {}),
                            kind=TOOL_KIND.get(call.name, "other"),  # type: ignore[arg-type]
                            status="completed",
                        ),
                    )
        self._announce_commands(opened_id)
        return schema.LoadSessionResponse(modes=self._modes(state))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> Any:  # noqa: E501
        runtime = await asyncio.to_thread(self._runtime)
        infos = await asyncio.to_thread(runtime.sessions.list, 100)
        return schema.ListSessionsResponse(
            sessions=[
                schema.SessionInfo(session_id=info.id, cwd=cwd or str(Path.cwd()), title=info.title)
                for info in infos
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> Any:
        state = self.sessions.get(session_id)
        if state is None or mode_id not in APPROVAL_MODES:
            raise acp.RequestError.invalid_params({"message": f"no session or mode {mode_id!r}"})
        state.session.set_approval_mode(mode_id)  # type: ignore[arg-type]
        self._send(session_id, helpers.update_current_mode(mode_id))
        return schema.SetSessionModeResponse()

    async def authenticate(self, method_id: str, **_: Any) -> Any:
        return schema.AuthenticateResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> Any:
        state = self.sessions.get(session_id)
        if state is None:
            raise acp.RequestError.invalid_params({"message": f"no session {session_id!r}"})
        text = "\n".join(_prompt_text(block) for block in prompt).strip()
        # The session is named by what the user typed, not by the files the editor attached.
        typed = " ".join(b.text for b in prompt if getattr(b, "type", None) == "text").strip()
        runtime = self._runtime()
        if text.startswith("/"):
            handled = await asyncio.to_thread(self._command, session_id, state, text)
            if handled is not None:
                self._send(session_id, acp.update_agent_message_text(handled))
                return schema.PromptResponse(stop_reason="end_turn")
        state.cancel = threading.Event()
        state.running = True

        def turn() -> Any:
            self._local.session_id = session_id
            try:
                return state.session.submit(text, state.cancel, title=typed or None)
            finally:
                self._local.session_id = None

        try:
            result = await asyncio.to_thread(turn)
        finally:
            state.running = False
        del runtime
        if result.interrupted or state.cancel.is_set():
            return schema.PromptResponse(stop_reason="cancelled")
        return schema.PromptResponse(stop_reason="end_turn")

    def _command(self, session_id: str, state: AcpSession, text: str) -> str | None:
        """Our slash commands; `/<skill-name> args` becomes a turn with the skill loaded."""
        runtime = self._runtime()
        name, _, argument = text[1:].partition(" ")
        if name == "memory":
            return "\n\n".join(
                f"## {target.upper()}.md\n"
                # an entry holding a secret (a hand edit) is shown as the model sees it
                + "\n".join(f"- {runtime.memory.shown(e)}" for e in runtime.memory.entries(target))
                for target in ("memory", "user")
            )
        if name == "skills":
            return "\n".join(f"- {s.address}: {s.description}" for s in runtime.skills.scan())
        if name == "pending":
            held = runtime.pending.list()
            return "\n".join(f"- {r.id}: {r.kind} {r.target} ({r.reason})" for r in held) or (
                "Nothing is held."
            )
        if name == "curator":
            return f"Curator: {runtime.run_curator().summary()}"
        if runtime.skills.get(name) is not None:
            agent = state.session.agent  # its tools run inline shell (skills.inline_shell)
            loaded = runtime.skill_invocation(
                name, argument, session_id, (agent.registry, agent.context)
            )
            self._local.session_id = session_id
            try:
                state.session.submit(loaded, state.cancel, title=text)
            finally:
                self._local.session_id = None
            return ""
        return None

    def _announce_commands(self, session_id: str) -> None:
        runtime = self._runtime()
        commands = [
            schema.AvailableCommand(name=name, description=text)
            for name, text in OUR_COMMANDS.items()
        ]
        for skill in runtime.skills.scan()[:100]:
            if not skill.broken and skill.duplicate_of is None:
                commands.append(
                    schema.AvailableCommand(name=skill.name, description=skill.description[:200])
                )
        self._send(session_id, helpers.update_available_commands(commands))

    async def cancel(self, session_id: str, **_: Any) -> None:
        state = self.sessions.get(session_id)
        if state is not None:
            state.cancel.set()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def _prompt_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f'\n<file uri="{resource.uri}">\n{text}\n</file>\n'
    if kind == "resource_link":
        return f"[{block.name}]({block.uri})"
    return ""


def _title(name: str, arguments: dict[str, Any]) -> str:
    for key in ("command", "path", "query", "name", "action"):
        if isinstance(arguments.get(key), str):
            return f"{name} {arguments[key]}"[:200]
    return name


def _locations(arguments: dict[str, Any]) -> list[Any] | None:
    path = arguments.get("path")
    return [schema.ToolCallLocation(path=path)] if isinstance(path, str) else None


def _diff_content(event: ev.ToolCallFinished) -> Any:
    """A unified diff as ACP's diff content: the new text is what the diff's `+` side holds."""
    old, new, path = [], [], ""
    for line in event.diff.splitlines():
        if line.startswith("+++ "):
            path = line[4:].removeprefix("b/")
        elif line.startswith("--- ") or line.startswith("@@"):
            continue
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith("-"):
            old.append(line[1:])
        else:
            old.append(line[1:])
            new.append(line[1:])
    return acp.tool_diff_content(path or "file", "\n".join(new), "\n".join(old))


def serve(home: str | None, overrides: Any) -> int:
    """Run the agent on stdin/stdout until the client hangs up."""
    import sys

    from hermes_tui.runtime import Runtime

    def factory(sink: Any) -> Any:
        return Runtime.open(home, overrides, sink=sink)

    from hermes_tui.core.redaction import RedactingFilter
    from hermes_tui.core.storage import ensure_private_dir

    runtime = Runtime.open(home, overrides)
    logs = Path(runtime.home) / "logs"
    ensure_private_dir(logs)
    handlers = [logging.FileHandler(logs / "acp.log"), logging.StreamHandler(sys.stderr)]
    for handler in handlers:  # no secret in a log line, a traceback included
        handler.addFilter(RedactingFilter(runtime.redactor))
    logging.basicConfig(
        level=logging.INFO,
        handlers=handlers,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    agent = HermesAcpAgent(factory)
    try:
        asyncio.run(acp.run_agent(agent))
    finally:
        agent.close()
    return 0


def launcher() -> list[str]:
    """How an editor starts this hermes-tui, by absolute path (an editor's PATH seldom holds
    the venv it was installed in): the `hermes-tui` script running, else the one beside this
    Python, else this Python with `-m hermes_tui`."""
    import os
    import sys

    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    beside = Path(sys.executable).parent / "hermes-tui"
    for script in (running, beside):
        if script is not None and script.name == "hermes-tui" and os.access(script, os.X_OK):
            return [os.path.abspath(script)]
    return [os.path.abspath(sys.executable), "-m", "hermes_tui"]


def client_config(client: str) -> str:
    """The snippet that adds hermes-tui to an ACP client (zed, jetbrains, toad)."""
    import json
    import shlex

    command, *args = [*launcher(), "acp"]
    if client == "toad":
        line = shlex.quote(shlex.join([command, *args]))
        return f"# Toad: add hermes-tui as a custom ACP agent\ntoad --acp {line}\n"
    server: dict[str, Any] = {"command": command, "args": args}
    if client == "zed":
        server["env"] = {}
    return json.dumps({"agent_servers": {"hermes-tui": server}}, indent=2)
