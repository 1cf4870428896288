"""Tools from Model Context Protocol servers: started in the background, frozen per session.

`McpManager` runs one asyncio loop on a daemon thread. Each enabled server gets a task that
connects (a stdio subprocess whose stderr goes to a temp file, or a streamable-HTTP URL), lists
its tools within `connect_timeout_s`, and holds the connection open until stopped. The agent's
worker thread calls tools through `run_coroutine_threadsafe`, bounded by `timeout_s`. A server
that fails to start, dies or times out becomes a status with its stderr tail and a `Notice`,
never an exception in the caller; a dead server is restarted once, on the next call.

A session freezes the tools of the servers that are ready when it opens (prompt-cache
stability); a server that comes up later is announced and joins from the next session. Tools
are named `mcp__<server>__<tool>`, cut to the providers' name rules, and keep the server's JSON
schema. The `mcp` SDK is imported only here, and only when a server is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core import host_programs
from hermes_tui.core.events import Notice, Sink, discard
from hermes_tui.core.tools import mcp_asks
from hermes_tui.core.tools.mcp_config import McpServerConfig, ParsedServers, launch_args
from hermes_tui.core.tools.mcp_config import inside as _inside
from hermes_tui.core.tools.outside_writes import OutsideWrites
from hermes_tui.core.tools.registry import Tool, ToolContext

Status = Literal["disabled", "starting", "ready", "failed", "stopped"]
NAME_RULE = re.compile(r"[^a-zA-Z0-9_-]")
MAX_NAME = 64
STDERR_TAIL = 2_000
MAX_DESCRIPTION = 2_000  # sent with every request: a server must not bloat every prompt
MAX_RESULT_CHARS = 200_000  # held in memory before the registry's own cap cuts it further


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>` within `^[a-zA-Z0-9_-]{1,64}$` (OpenAI and Anthropic alike)."""
    name = NAME_RULE.sub("_", f"mcp__{server}__{tool}")
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME - 9]}_{digest}"
    return name


@dataclass
class ServerState:
    config: McpServerConfig
    status: Status = "starting"
    error: str | None = None
    tools: list[Any] = field(default_factory=list)  # the SDK's Tool objects, as listed
    client: Any = None
    stop: asyncio.Event | None = None
    ready: threading.Event = field(default_factory=threading.Event)  # ready or failed
    restarts: int = 0
    started_at: float = 0.0
    stderr: Any = None  # a temp file the stdio server's stderr is written to
    announced_late: bool = False
    task: Any = None  # the concurrent future of the task holding the connection
    left_out: dict[str, str] = field(default_factory=dict)  # tool name → why the scanner refused

    @property
    def name(self) -> str:
        return self.config.name

    def stderr_tail(self, redact: Callable[[str], str] = str) -> str:
        """The last lines the server wrote to stderr, redacted before they are cut (a secret
        cut in two would match in neither half); a line the cut fell in is left out whole."""
        if self.stderr is None:
            return ""
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            text = redact(self.stderr.read())
        except (OSError, ValueError):
            return ""
        tail = text[-STDERR_TAIL:]
        if len(text) > STDERR_TAIL and "\n" in tail:
            tail = tail.split("\n", 1)[1]
        return tail.strip()

    def describe(self, redact: Callable[[str], str] = str) -> dict[str, Any]:
        return {
            "name": self.name,
            "transport": self.config.transport,
            "status": self.status,
            "tools": len(self.tools),
            "error": self.error,
            "stderr": self.stderr_tail(redact),
            "restarts": self.restarts,
            "left_out": dict(self.left_out),
        }


class McpError(Exception):
    """A call to an MCP server that did not produce a result; the message is for the model."""


class McpManager:
    def __init__(
        self,
        parsed: ParsedServers,
        *,
        sink: Sink = discard,
        redact: Callable[[str], str] = str,
        home: Path | None = None,
    ) -> None:
        self.sink = sink
        self.home = home  # hermes-tui's home: what a call changes there is put back
        self.redact = redact  # the runtime's Redactor.text: a server's stderr may quote a key
        self.states: dict[str, ServerState] = {}
        self.problems = dict(parsed.problems)
        self._server_of: dict[str, ServerState] = {}  # a frozen tool's name → its server
        for config in parsed.servers:
            state = ServerState(config, status="starting" if config.enabled else "disabled")
            if not config.enabled:
                state.ready.set()
            self.states[config.name] = state
        for name, problem in self.problems.items():
            state = ServerState(McpServerConfig(name=name, command="?"), status="failed")
            state.error = problem
            state.ready.set()
            self.states[name] = state
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._frozen_at: float | None = None
        self._booted = threading.Event()  # the SDK is imported and every server launched
        # What the SDK logged (a server printing non-protocol lines on stdout, bad messages):
        # kept for `mcp list`, doctor and /mcp instead of reaching the terminal.
        self.warnings: deque[str] = deque(maxlen=20)

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background; returns at once."""
        with self._lock:
            if self._thread is not None:
                return
            _capture_sdk_logs(self.warnings)
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._booted.clear()
            self._thread = threading.Thread(
                target=self._thread_main, args=(loop,), name="mcp-servers", daemon=True
            )
            self._thread.start()

    def _thread_main(self, loop: asyncio.AbstractEventLoop) -> None:
        # The SDK's import (~0.3 s, seconds on a busy machine) must not eat the servers'
        # connect timeouts, so it happens first and the clocks start after it.
        try:
            import mcp  # noqa: F401
        except ImportError as exc:
            for state in self.states.values():
                if state.status == "starting":
                    self._fail(state, f"cannot start: the mcp package is missing ({exc})")
            self._booted.set()
            return
        for state in self.states.values():
            if state.status == "starting":
                self._launch(state)
        self._booted.set()
        loop.run_forever()

    def _launch(self, state: ServerState) -> None:
        assert self._loop is not None
        if state.stop is not None:  # a previous connection's task: let it close
            self._loop.call_soon_threadsafe(state.stop.set)
        state.status, state.error = "starting", None
        state.ready.clear()
        state.started_at = time.monotonic()
        state.task = asyncio.run_coroutine_threadsafe(self._serve(state), self._loop)

    def wait_settled(self, timeout: float | None = None) -> None:
        """Block until each server is ready or failed (bounded by its connect timeout)."""
        self._booted.wait(60.0 if timeout is None else timeout)
        for state in self.states.values():
            limit = state.config.connect_timeout_s + 1.0
            if timeout is not None:
                limit = min(limit, timeout)
            state.ready.wait(max(0.0, limit - (time.monotonic() - state.started_at)))

    def stop(self, timeout: float = 5.0) -> None:
        """Close every connection (stdio servers are terminated), then end the loop."""
        loop = self._loop
        if loop is None:
            return
        deadline = time.monotonic() + timeout
        for state in self.states.values():
            if state.stop is not None:
                loop.call_soon_threadsafe(state.stop.set)
            if state.status in ("starting", "ready"):
                state.status = "stopped"
        for state in self.states.values():
            if state.task is None:
                continue
            try:
                state.task.result(max(0.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - a server that will not close must not block exit
                state.task.cancel()
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(max(0.1, deadline - time.monotonic()))
        with self._lock:
            self._loop, self._thread = None, None

    # ---- one server's connection, held open by its own task ------------------------------

    async def _serve(self, state: ServerState) -> None:
        """Watch the connection task: a server not ready within its connect timeout has failed."""
        state.stop = asyncio.Event()
        connected = asyncio.Event()
        life = asyncio.ensure_future(self._hold(state, connected))
        waiter = asyncio.ensure_future(connected.wait())
        remaining = state.config.connect_timeout_s - (time.monotonic() - state.started_at)
        done, _ = await asyncio.wait(
            {life, waiter}, timeout=max(0.05, remaining), return_when=asyncio.FIRST_COMPLETED
        )
        waiter.cancel()
        if not done:
            # Failed now, for everyone waiting; the connection task is then cancelled and
            # cleans up (terminating a stdio server can take a few seconds) in its own time.
            self._fail(state, f"did not start within {state.config.connect_timeout_s:g} s")
            life.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await life

    async def _hold(self, state: ServerState, connected: asyncio.Event) -> None:
        """Connect, list the tools, and keep the connection open until stopped (one task)."""
        from mcp import Client

        try:
            transport = self._transport(state)
        except host_programs.ProgramRefused as exc:
            self._fail(state, f"could not start: {exc}")
            return
        client = Client(transport, read_timeout_seconds=state.config.timeout_s)
        try:
            await client.__aenter__()
        except Exception as exc:  # noqa: BLE001 - any start failure is a status, not a crash
            self._fail(state, _describe_exception(exc))
            return
        try:
            state.tools = await self._list_tools(client)
        except Exception as exc:  # noqa: BLE001
            self._fail(state, f"listed no tools: {_describe_exception(exc)}")
            await self._close_client(state, client)
            return
        state.client = client
        state.status = "ready"
        state.ready.set()
        connected.set()
        if self._frozen_at is not None and not state.announced_late:
            state.announced_late = True
            self.sink(
                Notice(
                    "info",
                    f"MCP server {state.name!r} is ready ({len(state.tools)} tools); "
                    "its tools join from the next session (/new).",
                )
            )
        try:
            await state.stop.wait()
        finally:
            state.client = None
            await self._close_client(state, client)

    async def _close_client(self, state: ServerState, client: Any) -> None:
        try:
            await client.__aexit__(None, None, None)
        except Exception as exc:  # noqa: BLE001 - the server may already be gone
            self.warnings.append(f"{state.name}: closing: {_describe_exception(exc)}")

    def _transport(self, state: ServerState) -> Any:
        config = state.config
        if config.url:
            if config.headers:
                import httpx2  # the SDK's own HTTP client
                from mcp.client.streamable_http import streamable_http_client

                http = httpx2.AsyncClient(headers=dict(config.headers), timeout=config.timeout_s)
                return streamable_http_client(config.url, http_client=http)
            return config.url
        from mcp.client.stdio import StdioServerParameters, stdio_client

        if state.stderr is not None:
            state.stderr.close()
        # Lives as long as the server process; the stderr tail is read from it for doctor.
        state.stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        # Found outside where commands may write (a `.venv/bin/npx` a command planted in the
        # project is never started), and so is what the server itself starts by name.
        found = host_programs.programs()
        params = StdioServerParameters(
            command=found.command(config.command or ""),
            args=launch_args(config, Path.cwd()),
            # python -m puts the start folder first on sys.path; never the script's folder
            # either, unless the server's env says otherwise.
            env={"PATH": found.env_path(), "PYTHONSAFEPATH": "1", **config.env},
            cwd=config.cwd or os.sep,
            encoding_error_handler="replace",
        )
        # A folder or script of the working directory runs here outside the sandbox (a cwd
        # there, `./tools/server.py`): said at each start (attack8's A8-7). Commands cannot
        # change one (it is read-only to them: mcp_config.server_paths) but the folder itself.
        base, work = Path(config.cwd or Path.cwd()), Path.cwd()
        written = [config.cwd or "", *(a for a in config.args if a.startswith(("./", "../")))]
        inside = [t for t in written if t and _inside(base / t, work)]
        if inside:
            whole = (base / inside[0]).resolve() == work.resolve()
            self.sink(
                Notice(
                    "warning",
                    f"MCP server {state.name!r} runs {inside[0]}, inside the working directory, "
                    + (
                        "outside the sandbox: the agent's commands write there, so a command "
                        "can change what it runs (keep the server's code elsewhere)."
                        if whole
                        else "outside the sandbox: it is read-only to the agent's commands, but "
                        "what it loads from elsewhere in the folder is not (keep the server's "
                        "code elsewhere)."
                    ),
                    key=f"mcp-inside:{state.name}",
                )
            )
        return stdio_client(params, errlog=state.stderr)

    @staticmethod
    async def _list_tools(client: Any) -> list[Any]:
        tools: list[Any] = []
        cursor = None
        for _page in range(100):
            listing = await client.list_tools(cursor=cursor)
            tools.extend(listing.tools)
            cursor = getattr(listing, "next_cursor", None)
            if not cursor:
                break
        return tools

    def _fail(self, state: ServerState, error: str) -> None:
        if state.status == "failed" and state.ready.is_set():
            return  # already reported (a timeout, then the cancelled start unwinding)
        state.status, state.error = "failed", error
        state.ready.set()
        tail = state.stderr_tail(self.redact)
        last = tail.splitlines()[-1] if tail else ""
        if len(last) > 160:  # cut between words: half a key would not be redacted
            last = last[:160].rsplit(" ", 1)[0] + " …"
        self.sink(
            Notice(
                "warning",
                f"MCP server {state.name!r} {error}" + (f" — stderr: {last}" if last else ""),
                key=f"mcp-failed:{state.name}:{error}",
            )
        )

    # ---- the session's view --------------------------------------------------------------

    def freeze(self, *, wait: bool = True) -> list[Tool]:
        """The registry tools of every ready server, for a session that opens now."""
        if wait:
            self.wait_settled()
        self._frozen_at = time.monotonic()
        tools: list[Tool] = []
        taken: set[str] = set()
        for state in self.states.values():
            if state.status != "ready":
                continue
            state.announced_late = True
            for remote in state.tools:
                if not state.config.wants(remote.name):
                    continue
                tool = self._as_tool(state, remote)
                if tool.name in taken:
                    # Two names that sanitise alike (`read.file`, `read_file`): keep both,
                    # the later one with a suffix of its own name's hash.
                    digest = hashlib.sha1(remote.name.encode()).hexdigest()[:6]
                    tool = dataclasses.replace(tool, name=f"{tool.name[: MAX_NAME - 7]}_{digest}")
                    if tool.name in taken:
                        self.warnings.append(
                            f"{state.name}: tool {remote.name!r} skipped (name clash)"
                        )
                        continue
                taken.add(tool.name)
                tools.append(tool)
                self._server_of[tool.name] = state
        return tools

    def _as_tool(self, state: ServerState, remote: Any) -> Tool:
        schema = dict(getattr(remote, "input_schema", None) or {"type": "object"})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        server, name = state.name, remote.name
        description = (remote.description or f"{name} from the {server} MCP server").strip()
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 1] + "…"

        def handle(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
            return self.call(server, name, args, context)

        return Tool(
            name=tool_name(server, name),
            toolset="mcp",
            description=f"[MCP server {server}] {description}",
            parameters=schema,
            handler=handle,
            preview=_preview,
            untrusted=True,
        )

    # ---- calls ---------------------------------------------------------------------------

    def call(
        self, server: str, tool: str, args: dict[str, Any], context: ToolContext
    ) -> dict[str, Any]:
        state = self.states.get(server)
        if state is None:
            return {"success": False, "error": f"no MCP server named {server!r} is configured"}
        # Set to ask before every call, or naming a path the sandbox hides (mcp_asks.py).
        request = mcp_asks.request(state.config, tool, args, context.workdir, self.home)
        if request is not None and not context.approvals.ask(request):
            return {
                "success": False,
                "error": f"the user did not allow this call: it {request.reason}. "
                "Ask the user, or do without this tool.",
            }
        if state.status == "failed" and state.client is None and state.tools:
            # It was running and died: restart it once (a call that killed it is not re-sent,
            # since it may have had effects; this is the next call).
            if state.restarts >= 1 or state.config.transport != "stdio":
                return {
                    "success": False,
                    "error": f"MCP server {server!r} is down ({state.error}); it was already "
                    "restarted once. Ask the user to check it (/mcp, then /mcp reload).",
                }
            state.restarts += 1
            self.sink(Notice("info", f"MCP server {server!r} died; restarting it once"))
            self._launch(state)
            state.ready.wait(state.config.connect_timeout_s + 1.0)
        watch = OutsideWrites.take(context.workdir, self.home, args, context.cwd)
        try:
            result = self._call_once(state, tool, args)
        except McpError as exc:
            result = {"success": False, "error": str(exc)}
        if undone := watch.undo():
            result = {
                **result,
                "success": False,
                "error": "the MCP call " + "; and ".join(undone) + ". Do not change what runs "
                "later (outside the sandbox); ask the user to do it themselves.",
            }
        return result

    def _call_once(self, state: ServerState, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        loop, client = self._loop, state.client
        if loop is None or client is None or state.status != "ready":
            raise McpError(
                f"MCP server {state.name!r} is not running ({state.error or state.status})"
            )
        timeout = state.config.timeout_s
        future = asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(client.call_tool(tool, args), timeout), loop
        )
        try:
            result = future.result(timeout + 2.0)
        except TimeoutError:
            future.cancel()
            return {
                "success": False,
                "error": f"MCP server {state.name!r} did not answer {tool} within {timeout:g} s",
            }
        except Exception as exc:  # noqa: BLE001 - SDK, transport or server faults
            if _is_protocol_error(exc):
                return {"success": False, "error": f"{tool} on {state.name}: {exc}"}
            state.status, state.error = "failed", _describe_exception(exc)
            state.client = None
            state.ready.set()
            self.sink(Notice("warning", f"MCP server {state.name!r} stopped during {tool}"))
            raise McpError(
                f"MCP server {state.name!r} failed during {tool}: {state.error}"
            ) from exc
        return convert_result(state.name, result)

    def describe(self) -> list[dict[str, Any]]:
        return [state.describe(self.redact) for state in self.states.values()]

    def leave_out(self, tool_name: str, why: str) -> None:
        """Note that `tool_name` (a frozen tool) was refused into sessions, so that listings
        (`mcp list`, /tools) say so instead of counting it among the server's tools."""
        if (state := self._server_of.get(tool_name)) is not None:
            state.left_out[tool_name] = why


def convert_result(server: str, result: Any) -> dict[str, Any]:
    """A CallToolResult as a tool result: text, structured content, placeholders for media."""
    parts: list[str] = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind in ("image", "audio"):
            size = len(getattr(item, "data", "") or "") * 3 // 4
            parts.append(f"[{kind}: {getattr(item, 'mime_type', '?')}, about {size:,} bytes]")
        elif kind == "resource_link":
            label = getattr(item, "name", None) or getattr(item, "title", None) or ""
            parts.append(f"[resource link: {label} {item.uri}]".replace("  ", " "))
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(
                text
                if text is not None
                else f"[binary resource {resource.uri}, "
                f"{getattr(resource, 'mime_type', None) or 'unknown type'}]"
            )
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    text = "\n".join(parts)
    if len(text) > MAX_RESULT_CHARS:
        text = (
            text[:MAX_RESULT_CHARS]
            + f"\n[… {len(text) - MAX_RESULT_CHARS:,} more characters from the MCP server cut]"
        )
    outcome: dict[str, Any] = {"success": not getattr(result, "is_error", False), "server": server}
    if outcome["success"]:
        outcome["content"] = text
        structured = getattr(result, "structured_content", None)
        if structured is not None and len(json.dumps(structured, default=str)) <= MAX_RESULT_CHARS:
            outcome["structured"] = structured
    else:
        outcome["error"] = text or "the MCP tool reported an error without a message"
    return outcome


def _preview(result: dict[str, Any]) -> str:
    text = str(result.get("content") or result.get("structured") or "")
    return " ".join(text.split())[:120] or "(no content)"


class _Collect(logging.Handler):
    def __init__(self, sink: deque[str]) -> None:
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        first = record.getMessage().strip().splitlines()
        self.sink.append(f"{record.name}: {first[0] if first else record.levelname}"[:300])


def _capture_sdk_logs(sink: deque[str]) -> None:
    """The SDK logs protocol trouble; in a full-screen app stderr must stay untouched."""
    logger = logging.getLogger("mcp")
    logger.propagate = False
    for handler in [h for h in logger.handlers if isinstance(h, _Collect)]:
        logger.removeHandler(handler)
    logger.addHandler(_Collect(sink))


def _is_protocol_error(exc: BaseException) -> bool:
    """An error the server answered with (the connection is fine), as opposed to a dead link."""
    try:
        from mcp.shared.exceptions import MCPError
    except ImportError:  # pragma: no cover - the SDK is there whenever a server ran
        return False
    return isinstance(exc, MCPError) and "closed" not in str(exc).lower()


def _describe_exception(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    message = str(exc).strip() or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return f"could not start: command not found ({exc.filename or message})"
    return f"failed: {type(exc).__name__}: {message}"[:400]
