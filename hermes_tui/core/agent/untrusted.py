"""Which tool results bring untrusted text into a conversation: taint by channel.

The files tools outside the working directory, terminal commands that reach the network (seen
by the sandbox's proxy, or a network program in the command) or print a file from outside it,
web_fetch's pages, tools marked `untrusted` (every MCP tool), skills from a hub or an external
folder, and any session_search. `untrusted_reason` says why a result is untrusted, or None; the
tracker and the write gate that act on it are in taint.py.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_tui.core.tools.registry import ToolRegistry

FILE_TOOLS = frozenset({"read_file", "search_files"})
# Programs whose output is whatever a remote host chose to send.
NETWORK_PROGRAMS = frozenset(
    {
        "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat",
        "telnet", "ssh", "scp", "sftp", "ftp", "rsync", "lynx", "w3m", "links", "elinks",
        "aria2c", "gh", "dig", "nslookup", "host", "whois", "openssl",
    }
)  # fmt: skip
NETWORK_SUBCOMMANDS = {
    "git": frozenset({"clone", "fetch", "pull", "ls-remote"}),
    "pip": frozenset({"download", "index"}),
    "npm": frozenset({"view", "info"}),
}
# Interpreters handed a one-liner that fetches something.
_FETCH_IN_CODE = re.compile(r"urllib|requests\.|httpx|http\.client|fetch\(|urlopen|LWP|Net::HTTP")
_WRAPPERS = frozenset(
    {
        "sudo", "env", "time", "nohup", "command", "exec", "xargs", "nice", "ionice", "stdbuf",
        "setsid", "unbuffer", "chrt", "taskset", "flock", "timeout", "watch", "builtin", "doas",
    }
)  # fmt: skip
# Wrappers whose first plain argument is theirs, not the command's (`timeout 5 curl …`).
_WRAPPER_ARGUMENT = frozenset({"timeout", "chrt", "taskset", "flock"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# Programs that print a file they are given: reading one outside the working directory brings
# its text into the conversation as surely as read_file does.
READERS = frozenset(
    {
        "cat", "tac", "head", "tail", "less", "more", "nl", "grep", "egrep", "fgrep", "rg",
        "sed", "awk", "jq", "yq", "base64", "xxd", "od", "hexdump", "strings", "cut", "sort",
        "uniq", "column", "fold", "fmt", "tr", "diff", "cmp", "find", "ls", "tree", "file",
    }
)  # fmt: skip
_SEGMENTS = re.compile(r"\|\|?|&&|;|\n|\$\(|`|\(|\)")
# Tools whose results are our own stores' text (already scanned when written), not indexed.
OWN_TEXT_TOOLS = frozenset({"memory", "skill_manage", "skills_list"})


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, its links resolved, is `root` or lies under it."""
    try:
        resolved, base = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return False
    return resolved == base or base in resolved.parents


def network_program(command: str) -> str | None:
    """The network program a shell command runs ('curl', 'git clone'), or None."""
    import shlex  # only a turn that ran a command reads one (bench/oneshot.py)

    for segment in _SEGMENTS.split(command):
        try:
            words = shlex.split(segment, posix=True)
        except ValueError:
            words = segment.split()
        words = _unwrapped(words)
        if not words:
            continue
        program = os.path.basename(words[0])
        if program in _SHELLS and "-c" in words[1:-1]:
            # The script may have been cut at a `|` above: read on to the segment's end.
            inner = network_program(" ".join(words[words.index("-c", 1) + 1 :]).strip("'\""))
            if inner:
                return inner
            continue
        if program in NETWORK_PROGRAMS:
            return program
        subcommands = NETWORK_SUBCOMMANDS.get(program)
        rest = _past_global_options(words[1:]) if program == "git" else words[1:]
        if subcommands and rest and rest[0] in subcommands:
            return f"{program} {rest[0]}"
        if re.fullmatch(r"python[\d.]*|node|ruby|perl|deno|bun", program) and _FETCH_IN_CODE.search(
            segment
        ):
            return f"{program} fetching a URL"
    return None


def _past_global_options(words: list[str]) -> list[str]:
    """git's arguments after its global options (`git -C sub -c k=v fetch` → [fetch])."""
    while words and words[0].startswith("-"):
        option = words.pop(0)
        if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and words:
            words.pop(0)
    return words


def _unwrapped(words: list[str]) -> list[str]:
    """The command a run of wrappers and VAR=value prefixes runs (`timeout 5 env X=1 curl …`)."""
    while words and ("=" in words[0].split("/")[0] or os.path.basename(words[0]) in _WRAPPERS):
        wrapper = os.path.basename(words.pop(0))
        while words and words[0].startswith("-"):
            words.pop(0)  # the wrapper's own options (sudo -u x is close enough)
        if wrapper in _WRAPPER_ARGUMENT and words:
            words.pop(0)
        while words and re.fullmatch(r"[\d.]+[smhd]?", words[0]):
            words.pop(0)  # an option's value (`nice -n 5`, `timeout -k 1 5`)
    return words


def outside_read(command: str, workdir: Path, cwd: Path) -> str | None:
    """A file outside the working directory that a terminal command prints, or None."""
    import shlex

    for segment in _SEGMENTS.split(command):
        try:
            words = _unwrapped(shlex.split(segment, posix=True))
        except ValueError:
            continue
        if not words or os.path.basename(words[0]) not in READERS:
            continue
        for word in words[1:]:
            if word.startswith("-") or word in ("/dev/null", "-"):
                continue
            if word.startswith(("/", "~")) or word.startswith(".."):
                path = Path(os.path.expanduser(word))
                path = path if path.is_absolute() else cwd / path
                if not inside(path, workdir):
                    return str(path)
    return None


OUTSIDE_PROVENANCE = frozenset({"hub", "external"})


def untrusted_reason(
    name: str,
    arguments: dict[str, Any],
    result: dict[str, Any],
    *,
    workdir: Path,
    cwd: Path,
    session_id: str | None,
    untrusted_tools: frozenset[str],
) -> str | None:
    """Why this tool result is untrusted input, or None when it is not."""
    if name == "terminal":
        # Checked whether or not the command failed: its output is there either way.
        reached = sorted(
            {
                str(c.get("host"))
                for c in result.get("network") or ()
                if isinstance(c, dict) and c.get("allowed")
            }
        )
        if reached:  # whatever program it was: the proxy saw it go out
            return f"network egress through the sandbox's proxy ({', '.join(reached)})"
        command = str(arguments.get("command") or "")
        program = network_program(command)
        if program:
            return f"output of a network command ({program})"
        outside = outside_read(command, workdir, cwd)
        return (
            f"a file outside the working directory ({outside}), printed by the terminal"
            if outside
            else None
        )
    if result.get("success") is False:
        return None  # an error message is ours, not the outside world's
    if name == "web_fetch":
        return f"a web page ({str(arguments.get('url') or '')[:200]})"
    if name in untrusted_tools:
        return "an external tool (MCP) result"
    if name in FILE_TOOLS:
        raw = str(arguments.get("path") or ".")
        path = Path(os.path.expanduser(raw))
        path = path if path.is_absolute() else cwd / path
        if not inside(path, workdir):
            return f"a file outside the working directory ({path})"
        return None
    if name == "skill_view" and result.get("provenance") in OUTSIDE_PROVENANCE:
        # Installed from a hub or read from an external folder: written by someone else.
        return f"a skill from outside ({result['provenance']}: {result.get('name')})"
    if name == "session_search":
        # Every mode: hits, a session's messages, the messages around one, the recent list all
        # carry stored text, tool output of other sessions included.
        mode = next(
            (key for key in ("around_message_id", "session_id", "query") if arguments.get(key)),
            "recent sessions",
        )
        return f"text from stored sessions (session_search by {mode})"
    return None


def indexes_content(name: str, result: dict[str, Any]) -> bool:
    """Whether a tool result is text a write could copy from outside our own stores."""
    if name in OWN_TEXT_TOOLS:
        return False
    return name != "skill_view" or result.get("provenance") in OUTSIDE_PROVENANCE


def untrusted_tool_names(registry: ToolRegistry) -> frozenset[str]:
    return frozenset(
        name for name in registry.names() if (tool := registry.get(name)) and tool.untrusted
    )
