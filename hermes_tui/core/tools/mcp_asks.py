"""What an MCP tool call asks the user first: a server set to ask before every call (`approval:
always`), a call whose arguments name a path the sandbox hides from commands, and one naming
the home's startup files and tools' settings (its dot entries, `~/bin`: `startup_paths`).

An MCP server runs as the user, outside the sandbox: a filesystem server given `~` read
`~/.ssh/id_ed25519` on the model's word, where a sandboxed command finds nothing. So a call
naming one of the sandbox's unreadable paths (sandbox.unreadable_paths: the credentials under
the home, the hermes home's `.env`, `auth.json`, sessions and other hermes homes' secrets) or
another project's `.env`, in the home or outside it (the sandbox empties both but for the
working directory) is asked about, once each time (no session grant: a secret is named every time).
A path is any string argument, at any depth, that is absolute, starts with `~` or is a
`file://` URI, or a relative one as the server resolves it (against its `cwd`, `/` without);
links resolved. terminal.deny_read is not known here (the sandbox's list without it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.approvals import ApprovalRequest, McpGrant
from hermes_tui.core.tools.mcp_config import McpServerConfig

MAX_STRINGS = 2_000  # arguments looked at per call (a call's JSON may be large)


def request(
    config: McpServerConfig,
    tool: str,
    args: dict[str, Any],
    workdir: Path,
    hermes_home: Path | None,
) -> ApprovalRequest | None:
    """The question to put before this call, or None when it runs unasked."""
    reasons: list[str] = []
    server = config.name
    if config.approval_for(tool) == "always":
        reasons.append(
            f"calls {tool} on the MCP server {server}, which is set to ask before every call "
            "(approval: always)"
        )
    hidden = hidden_paths(config, args, workdir, hermes_home)
    if hidden:
        reasons.append(
            f"names {', '.join(hidden[:3])}, which the sandbox hides from commands (credentials "
            f"or another project's secrets), and the MCP server {server} runs outside it"
        )
    own = [p for p in in_hermes_home(config, args, hermes_home) if p not in hidden]
    if own:
        reasons.append(
            f"names {', '.join(own[:3])}, in hermes-tui's own home (its config.yaml starts MCP "
            "servers, its SOUL.md, memories and skills are in every prompt), which commands "
            f"cannot write, and the MCP server {server} runs outside the sandbox"
        )
    startup = [p for p in startup_paths(config, args, workdir) if p not in (*hidden, *own)]
    if startup:
        reasons.append(
            f"names {', '.join(startup[:3])}, in your home's startup files and tools' settings "
            "(what your shell, git or login reads and runs), which the sandbox keeps read-only, "
            f"and the MCP server {server} runs outside it"
        )
    if not reasons:
        return None
    shown = json.dumps(args, ensure_ascii=False)[:300]
    grant = McpGrant(server, tool) if not (hidden or own or startup) else None
    return ApprovalRequest(f"mcp {server}.{tool} {shown}", "mcp", tuple(reasons), grant)


def hidden_paths(
    config: McpServerConfig, args: Any, workdir: Path, hermes_home: Path | None
) -> list[str]:
    """The paths among the call's arguments that the sandbox hides from commands."""
    from hermes_tui.core.tools.sandbox import unreadable_paths

    home = Path.home()
    hidden = [
        os.path.realpath(path)
        for path in unreadable_paths(home, hermes_home or Path("/nonexistent"), (), (workdir,))
    ]
    real_work = os.path.realpath(workdir)
    start = config.cwd or os.sep
    found = []
    for text in _strings(args):
        path = _as_path(text, start)
        if path is None:
            continue
        real = os.path.realpath(path)
        # Another project's `.env`, under the home or elsewhere (/workspaces, /srv: the
        # sandbox empties those too, root_view.py); the working directory's own is the work.
        name = os.path.basename(real)
        if any(_within(real, secret) for secret in hidden) or (
            not _within(real, real_work) and (name == ".env" or name.startswith(".env."))
        ):
            found.append(text)
    return list(dict.fromkeys(found))


def in_hermes_home(config: McpServerConfig, args: Any, hermes_home: Path | None) -> list[str]:
    """The paths among the call's arguments that are the hermes home or lie in it, as written
    or where they lead: a filesystem server moved a prepared folder into `skills/`, or the
    home aside and another into its place, and the next start ran its config.yaml's servers
    (attack9's A9-13). A folder holding the home is not judged (a listing of `~`)."""
    if hermes_home is None:
        return []
    homes = dict.fromkeys((os.path.normpath(hermes_home), os.path.realpath(hermes_home)))
    found = []
    for text in _strings(args):
        path = _as_path(text, config.cwd or os.sep)
        if path is not None and any(
            _within(seen, home) for seen in (path, os.path.realpath(path)) for home in homes
        ):
            found.append(text)
    return list(dict.fromkeys(found))


def startup_paths(config: McpServerConfig, args: Any, workdir: Path) -> list[str]:
    """The paths among the call's arguments that lie in the home's dot entries or `~/bin`
    (run_later.in_home: what the sandbox keeps read-only to a command started in the home),
    as written or where they lead (`~/.bashrc` a link into a dotfiles checkout), outside the
    working directory: a filesystem server given `~` wrote `~/.gitconfig`'s core.fsmonitor
    unasked, and the user's next `git status` anywhere ran it (attack9's A9-18)."""
    from hermes_tui.core.tools.run_later import in_home

    homes = dict.fromkeys((Path.home(), Path(os.path.realpath(Path.home()))))
    works = (os.path.normpath(workdir), os.path.realpath(workdir))
    found = []
    for text in _strings(args):
        path = _as_path(text, config.cwd or os.sep)
        if path is None:
            continue
        for seen in dict.fromkeys((path, os.path.realpath(path))):
            if any(_within(seen, work) for work in works):
                continue
            if any(in_home(Path(seen), home) for home in homes):
                found.append(text)
                break
    return list(dict.fromkeys(found))


def _strings(value: Any) -> Iterator[str]:
    stack, seen = [value], 0
    while stack and seen < MAX_STRINGS:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += list(item.values())
        elif isinstance(item, list | tuple):
            stack += list(item)


def _as_path(text: str, start: str) -> str | None:
    text = text.strip()
    if not text or "\0" in text or "\n" in text or len(text) > 4096:
        return None
    if text.startswith("file://"):
        text = text[len("file://") :]
    if text.startswith("~"):
        text = os.path.expanduser(text)
    if not os.path.isabs(text):
        if "/" not in text and not text.startswith("."):
            return None  # a word, not a path (a relative path names a folder or a dot file)
        text = os.path.join(start, text)
    return os.path.normpath(text)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
