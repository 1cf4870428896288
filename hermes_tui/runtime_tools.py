"""The tools a conversation gets, built from the configuration (the Runtime's `tool_registry`).

Apart from runtime.py so that the composition root stays readable: one place lists every
toolset and what each is handed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from hermes_tui.core.events import Sink
    from hermes_tui.core.tools.mcp import McpManager
    from hermes_tui.core.tools.registry import Tool, ToolRegistry
    from hermes_tui.runtime import Runtime


def tool_registry(runtime: Runtime) -> ToolRegistry:
    from hermes_tui.core import host_programs
    from hermes_tui.core.tools import schemas
    from hermes_tui.core.tools.memory import make_memory_tools
    from hermes_tui.core.tools.registry import Deferred, ToolRegistry
    from hermes_tui.core.tools.sandbox_probe import DEFAULT_NETWORK_ALLOW
    from hermes_tui.core.tools.session_search import make_session_search_tools
    from hermes_tui.core.tools.skills import make_skill_tools
    from hermes_tui.core.tools.todo import make_todo_tools

    memory = runtime.config.memory
    limits = runtime.result_limits()
    terminal = runtime.config.terminal
    writable_roots = tuple(Path(p).expanduser() for p in terminal.writable_roots)
    programs = runtime.programs()
    # Where the skill library reads them from (relative ones from the working directory).
    skill_dirs = tuple(Path(p).expanduser().absolute() for p in runtime.config.skills.external_dirs)
    server_paths = mcp_server_paths(runtime)
    if not runtime._registries:  # the runtime's first conversation: said once
        load_paths_warning(runtime.sink, writable_roots)
    # The programs the app runs outside the sandbox are found now, before any tool ran (as the
    # terminal's sandbox would when made): the terminal module itself loads on its first call.
    host_programs.settle(writable_roots)

    def terminal_tools() -> list[Tool]:
        from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

        return make_terminal_tools(
            TerminalSettings(
                allow=terminal.allow,
                deny=terminal.deny,
                sandbox=terminal.sandbox,  # type: ignore[arg-type]
                network=terminal.network,  # type: ignore[arg-type]
                network_allow=(*DEFAULT_NETWORK_ALLOW, *terminal.network_allow),
                env_passthrough=terminal.env_passthrough,
                writable_roots=writable_roots,
                deny_read=tuple(Path(p).expanduser() for p in terminal.deny_read),
                allow_read=tuple(Path(p).expanduser() for p in terminal.allow_read),
                hermes_home=runtime.home,
                cache_dir=runtime.sandbox_cache_dir,
                programs=programs,
                skill_dirs=skill_dirs,
                server_paths=server_paths,
            )
        )

    def file_tools() -> list[Tool]:
        from hermes_tui.core.tools.files import make_file_tools

        return make_file_tools(
            allowed_roots=runtime.config.files.allowed_roots,
            hermes_home=runtime.home,
            limits=limits,
            skill_dirs=skill_dirs,
            server_paths=server_paths,
        )

    registry = ToolRegistry(
        [
            *Deferred(terminal_tools).tools(*schemas.TERMINAL_TOOLS),
            *Deferred(file_tools).tools(*schemas.FILE_TOOLS),
            *make_memory_tools(
                runtime.memory,
                memory_enabled=memory.memory_enabled,
                user_enabled=memory.user_profile_enabled,
            ),
            # skills.inline_shell runs a skill's snippets through this registry's terminal.
            *make_skill_tools(runtime.skills, runtime.skill_runtime_settings(lambda: registry)),
            *make_session_search_tools(runtime.sessions, lambda: runtime.catalog),
            *make_todo_tools(),
            *vetted_mcp_tools(runtime),
        ],
        limits=limits,
    )
    return registry


def load_paths_warning(sink: Sink, writable_roots: tuple[Path, ...]) -> None:
    """A warning when LD_LIBRARY_PATH, PYTHONPATH or another loader's path has an entry in
    the working directory (empty, `.`, relative) or a writable root (load_paths.py)."""
    import os

    from hermes_tui.core.events import Notice
    from hermes_tui.core.tools.load_paths import entries, warning

    text = warning(entries(os.environ), [Path.cwd(), *writable_roots], Path.cwd())
    if text:
        sink(Notice("warning", text, key="load-paths"))


def mcp_server_paths(runtime: Runtime) -> tuple[Path, ...]:
    """What the configured stdio MCP servers start from (their script, `cwd`, a folder they
    are given), as they are started: from the current working directory. Read-only to
    commands inside a writable place, asked about by the files tools (attack8's A8-7)."""
    if not runtime.config.mcp_servers:
        return ()
    from hermes_tui.core.tools.mcp_config import parse_servers, server_paths

    parsed = parse_servers(runtime.config.mcp_servers, runtime.config.env)
    return tuple(path for s in parsed.servers for path in server_paths(s, Path.cwd()))


def vetted_mcp_tools(runtime: Runtime) -> list[Tool]:
    """The session's MCP tools that `vetted` keeps; judged when the frozen list is first used
    (the refused leave it), so later registries (a review's) agree."""
    tools = runtime._mcp_tools
    if tools:
        tools[:] = vetted(tools, runtime.scanner.refused, runtime.sink, runtime.mcp)
    return tools


def vetted(
    tools: list[Tool],
    refused: Callable[[str], str | None],
    sink: Sink,
    manager: McpManager | None = None,
) -> list[Tool]:
    """The MCP tools whose description and parameter schema the scanner lets into a prompt, as
    an installed skill's description must be (attack7's A7-11: every turn sends them to the
    model). One it refuses is left out of the session, saying which tool and why (and noted
    with `manager`, an McpManager, for the listings)."""
    from hermes_tui.core.agent.provenance import result_text
    from hermes_tui.core.events import Notice

    kept = []
    for tool in tools:
        found = refused(f"{tool.description}\n{result_text(tool.parameters)}")
        if found is None:
            kept.append(tool)
            continue
        text = (
            f"MCP tool {tool.name} left out of this session: its description or parameters "
            f"read as instructions to the model ({found}); the server's other tools are kept"
        )
        sink(Notice("warning", text, key=f"mcp-refused:{tool.name}"))
        if manager is not None:
            manager.leave_out(tool.name, f"reads as instructions to the model ({found})")
    return kept
