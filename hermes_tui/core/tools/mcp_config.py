"""`mcp_servers:` in config.yaml (Hermes' keys) → typed server settings, with clear errors.

A stdio server has `command` (+ `args`, `env`, `cwd`); a streamable-HTTP server has `url`
(+ `headers`). Both take `enabled`, `timeout` / `timeout_s` (seconds per call),
`connect_timeout` / `connect_timeout_s` (seconds to start and list tools), `approval:
never|always` and `tools: {include, exclude, approval: {TOOL: never|always}}`. `${VAR}` in env,
headers, args and url expands from the environment and `<home>/.env`; a variable that is not
set is an error for that server alone, never for the others.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core.redaction.forms import random_looking
from hermes_tui.core.redaction.recognise import arg_secrets, labelled, variable_secrets

Approval = Literal["never", "always"]
KNOWN_KEYS = {
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "enabled",
    "timeout",
    "timeout_s",
    "connect_timeout",
    "connect_timeout_s",
    "approval",
    "tools",
    # Hermes keys we read past: transport hints and per-server sampling settings.
    "type",
    "transport",
    "sampling",
    "description",
}
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")


class McpConfigError(ValueError):
    """One server's settings cannot be used; the message names the server and the key."""


@dataclass(frozen=True)
class McpServerConfig:
    """One entry of mcp_servers: how to start or reach the server and what it may do."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout_s: float = 60.0
    connect_timeout_s: float = 20.0
    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()
    approval: Approval = "never"
    tool_approval: Mapping[str, Approval] = field(default_factory=dict)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "http" if self.url else "stdio"

    def wants(self, tool: str) -> bool:
        if self.include is not None and tool not in self.include:
            return False
        return tool not in self.exclude

    def approval_for(self, tool: str) -> Approval:
        return self.tool_approval.get(tool, self.approval)


@dataclass(frozen=True)
class ParsedServers:
    """mcp_servers read: the usable servers, and what is wrong with the others."""

    servers: tuple[McpServerConfig, ...]
    # Servers whose settings are unusable: name -> what is wrong (shown in doctor and the app).
    problems: Mapping[str, str]


def parse_servers(raw: Mapping[str, Any] | None, env: Mapping[str, str]) -> ParsedServers:
    servers: list[McpServerConfig] = []
    problems: dict[str, str] = {}
    for name, body in (raw or {}).items():
        try:
            servers.append(parse_server(str(name), body, env))
        except McpConfigError as exc:
            problems[str(name)] = str(exc)
    return ParsedServers(tuple(servers), problems)


def parse_server(name: str, body: Any, env: Mapping[str, str]) -> McpServerConfig:
    where = f"mcp_servers.{name}"
    if not SERVER_NAME.fullmatch(name):
        raise McpConfigError(f"{where}: a server name uses letters, digits, _ and - (at most 40)")
    if not isinstance(body, Mapping):
        raise McpConfigError(f"{where}: expected a mapping with `command` or `url`")
    unknown = sorted(set(map(str, body)) - KNOWN_KEYS)
    if unknown:
        raise McpConfigError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
            f"(known: {', '.join(sorted(KNOWN_KEYS - {'type', 'transport', 'sampling'}))})"
        )
    command, url = body.get("command"), body.get("url")
    if bool(command) == bool(url):
        raise McpConfigError(f"{where}: give exactly one of `command` (stdio) or `url` (HTTP)")
    tools = body.get("tools") or {}
    if not isinstance(tools, Mapping):
        raise McpConfigError(f"{where}.tools: expected a mapping with include/exclude/approval")
    include = tools.get("include")
    return McpServerConfig(
        name=name,
        command=_expand(_text(command, f"{where}.command"), env, f"{where}.command")
        if command
        else None,
        args=tuple(
            _expand(_text(a, f"{where}.args"), env, f"{where}.args")
            for a in _list(body.get("args"), f"{where}.args")
        ),
        env=_string_map(body.get("env"), env, f"{where}.env"),
        cwd=_text(body["cwd"], f"{where}.cwd") if body.get("cwd") else None,
        url=_check_url(_expand(_text(url, f"{where}.url"), env, f"{where}.url"), where)
        if url
        else None,
        headers=_string_map(body.get("headers"), env, f"{where}.headers"),
        enabled=_flag(body.get("enabled", True), f"{where}.enabled"),
        timeout_s=_seconds(body, ("timeout_s", "timeout"), 60.0, where),
        connect_timeout_s=_seconds(body, ("connect_timeout_s", "connect_timeout"), 20.0, where),
        include=frozenset(map(str, _list(include, f"{where}.tools.include")))
        if include is not None
        else None,
        exclude=frozenset(map(str, _list(tools.get("exclude"), f"{where}.tools.exclude"))),
        approval=_approval(body.get("approval", "never"), f"{where}.approval"),
        tool_approval={
            str(tool): _approval(value, f"{where}.tools.approval.{tool}")
            for tool, value in _mapping(tools.get("approval"), f"{where}.tools.approval").items()
        },
    )


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise McpConfigError(f"{where}: expected text, got {type(value).__name__}")
    return str(value)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise McpConfigError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise McpConfigError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _string_map(value: Any, env: Mapping[str, str], where: str) -> dict[str, str]:
    return {
        str(k): _expand(_text(v, f"{where}.{k}"), env, f"{where}.{k}")
        for k, v in _mapping(value, where).items()
    }


def _expand(text: str, env: Mapping[str, str], where: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise McpConfigError(f"{where}: ${{{name}}} is not set (environment or <home>/.env)")
        return env[name]

    return _VARIABLE.sub(value, text)


def _flag(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("on", "yes", "true", "off", "no", "false"):
        return value.lower() in ("on", "yes", "true")
    raise McpConfigError(f"{where}: expected true or false, got {value!r}")


def _seconds(body: Mapping[str, Any], keys: tuple[str, ...], default: float, where: str) -> float:
    for key in keys:
        if key in body:
            value = body[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise McpConfigError(f"{where}.{key}: expected a positive number of seconds")
            return float(value)
    return default


def _approval(value: Any, where: str) -> Approval:
    if value in ("never", "always"):
        return value
    raise McpConfigError(f"{where}: expected `never` or `always`, got {value!r}")


def _check_url(url: str, where: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise McpConfigError(f"{where}.url: needs http:// or https://")
    return url


def server_secrets(servers: Iterable[McpServerConfig]) -> dict[str, str]:
    """The secrets MCP servers are given (config.yaml's, an ACP editor's), for the redaction to
    know: env values and headers the recogniser calls secret (by name, or a URL's password under
    any name: DATABASE_URL), the values after secret-looking flags in args (`--api-key X`), a
    URL's password, token user and secret-named query parameters (`?apikey=`)."""
    pairs: list[tuple[str, list[str]]] = []
    for server in servers:
        for name, value in [*server.env.items(), *server.headers.items()]:
            pairs.append((name, variable_secrets(name, value)))
        pairs.append((f"{server.name} args", arg_secrets(server.args)))
        if server.url:
            pairs.append((f"{server.name} url", variable_secrets("url", server.url)))
            # A server's URL path is often its credential (Zapier's /api/mcp/s/<token>/mcp).
            path = server.url.split("://", 1)[-1].partition("/")[2].partition("?")[0]
            tokens = [p for p in path.split("/") if len(p) >= 16 and random_looking(p)]
            pairs.append((f"{server.name} url", tokens))
    return labelled(pairs)


def launch_args(config: McpServerConfig, workdir: Path) -> list[str]:
    """The server's arguments as started. A stdio server without `cwd` starts in `/`, never in
    the working directory: `npx -y <server>` runs a package a command planted in the project's
    node_modules, and `python -m <server>` a module, outside the sandbox (attack7's A7-10).
    So an argument that is a relative path (`.`, `./data`, `../x`) names the place it named
    before, the working directory: it is made absolute against it."""
    if config.cwd:
        return list(config.args)
    return [
        str(workdir / arg) if arg in (".", "..") or arg.startswith(("./", "../")) else arg
        for arg in config.args
    ]


def server_paths(config: McpServerConfig, workdir: Path) -> list[Path]:
    """The files and folders that exist now among what a stdio server's start names: its
    `cwd`, and its arguments as launched (`launch_args`; a relative one against where it
    starts, the value of an `--option=path` too). Those inside the working directory or a
    writable root are read-only to sandboxed commands: the server runs outside the sandbox,
    and a command's edit of its `./tools/server.py` would run at its next start (attack8's
    A8-7)."""
    if config.url or not config.enabled:
        return []
    start = Path(os.path.expanduser(config.cwd)) if config.cwd else Path(os.sep)
    start = workdir / start if not start.is_absolute() else start
    named = [start] if config.cwd else []
    for arg in launch_args(config, workdir):
        for text in (arg, arg.partition("=")[2] if arg.startswith("-") else ""):
            if text and "\0" not in text and len(text) < 4096:
                named.append(start / text)  # an absolute one stays as it is
    found = []
    for path in named:
        try:
            if path.exists():
                found.append(Path(os.path.normpath(path)))
        except OSError:
            continue  # not a path at all (a name too long)
    return list(dict.fromkeys(found))


def inside(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies in it, links resolved."""
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents
