"""What an ACP client brings to a session: its editor's buffers (`fs/read_text_file`,
`fs/write_text_file`) for the file tools, and the MCP servers it passes in `session/new`."""

from __future__ import annotations

import asyncio
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import acp

EDITOR_TIMEOUT = 30.0


class EditorBuffers:
    """The client's files (`fs/read_text_file`, `fs/write_text_file`) for the file tools of one
    session: reads see unsaved edits, writes land in the editor. Called from the turn's worker
    thread; each request waits on the protocol's loop, bounded by EDITOR_TIMEOUT."""

    def __init__(self, agent: Any, session_id: str, read: bool, write: bool) -> None:
        self.agent, self.session_id = agent, session_id
        self.can_read, self.can_write = read, write

    def _call(self, request: Any) -> Any:
        if self.agent.loop is None or self.agent.conn is None:
            raise OSError("the editor is not connected")
        future = asyncio.run_coroutine_threadsafe(request, self.agent.loop)
        try:
            return future.result(EDITOR_TIMEOUT)
        except FutureTimeout as exc:
            future.cancel()
            raise OSError(f"no answer from the editor in {EDITOR_TIMEOUT:.0f} s") from exc
        except acp.RequestError as exc:
            raise OSError(str(exc)) from exc

    def read_text(self, path: Path) -> str:
        conn = self.agent.conn
        response = self._call(conn.read_text_file(session_id=self.session_id, path=str(path)))
        return response.content

    def write_text(self, path: Path, text: str) -> None:
        conn = self.agent.conn
        self._call(conn.write_text_file(session_id=self.session_id, path=str(path), content=text))


def client_mcp_servers(servers: Any, sink: Any, redactor: Any = None) -> Any:
    """The MCP servers an ACP client passes in session/new (stdio or HTTP), as our manager.
    They are the user's own, configured in their editor, so they run as configured servers do
    (no approval per call); their results are untrusted like every MCP result. The tokens they
    are given (env, headers, args, URL: mcp_config.server_secrets) become known secrets of
    `redactor` before any of them starts, as config.yaml's servers' are."""
    from hermes_tui.core.tools.mcp import McpManager
    from hermes_tui.core.tools.mcp_config import McpServerConfig, ParsedServers, server_secrets

    configs, problems = [], {}
    for server in servers:
        name = str(getattr(server, "name", "") or "client")
        url = getattr(server, "url", None)
        if url:
            headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
            configs.append(McpServerConfig(name=name, url=url, headers=headers))
        elif getattr(server, "command", None):
            env = {e.name: e.value for e in getattr(server, "env", None) or []}
            configs.append(
                McpServerConfig(
                    name=name, command=server.command, args=tuple(server.args or ()), env=env
                )
            )
        else:
            problems[name] = "neither a command nor a url"
    if redactor is not None:
        redactor.learn(server_secrets(configs))
    return McpManager(ParsedServers(tuple(configs), problems), sink=sink)
