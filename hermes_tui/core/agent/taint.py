"""Taint: which untrusted tool results a conversation has taken in, and the writes they hold.

A tool result is untrusted when it carries text neither the user nor the project wrote: the
files tools outside the working directory, terminal output of network commands, web_fetch's
pages, tools marked `untrusted` (every MCP tool), session_search hits from other sessions. Once a conversation has
taken one in, the text stays in its context, so every later memory or skill write it makes is
tainted: `WriteGate` stages it in pending/ for the user, whatever the scanner says (`--yolo` is
about commands, not memory), with the tool call that tainted it. The scanner's hold tier goes
the same way. A review forks the conversation: its agent replays the history it is given, so
it inherits the taint of the turns it reviews. A resumed session replays its stored history.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core import threats
from hermes_tui.core.events import Sink, WriteHeld
from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.messages import Message
from hermes_tui.core.pending import PendingStore, PendingWrite
from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

if TYPE_CHECKING:
    from hermes_tui.core.skills.library import SkillLibrary
    from hermes_tui.core.tools.registry import ToolContext, ToolRegistry

EXCERPT_CHARS = 160
FILE_TOOLS = frozenset({"read_file", "search_files"})
SKILL_WRITE_ACTIONS = frozenset({"create", "patch", "edit", "delete", "write_file", "remove_file"})
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


@dataclass(frozen=True)
class TaintSource:
    """One tool result that brought untrusted text into the conversation."""

    tool: str
    call: str  # the call as the model made it: read_file(path='/tmp/notes.md')
    reason: str  # why its result is untrusted
    excerpt: str  # the start of what it returned

    def describe(self) -> str:
        return f"{self.call}: {self.reason}"


def _render_call(name: str, arguments: dict[str, Any]) -> str:
    shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    text = f"{name}({shown})"
    return text if len(text) <= 200 else text[:199] + "…"


def _excerpt(result: dict[str, Any]) -> str:
    for key in ("content", "output", "stdout", "matches", "results", "messages", "text"):
        if key in result:
            value = result[key]
            break
    else:
        value = {k: v for k, v in result.items() if k != "success"}
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    flat = " ".join(text.split())
    return flat[:EXCERPT_CHARS] + ("…" if len(flat) > EXCERPT_CHARS else "")


def _inside(path: Path, root: Path) -> bool:
    try:
        resolved, base = path.resolve(), root.resolve()
    except (OSError, RuntimeError):
        return False
    return resolved == base or base in resolved.parents


def network_program(command: str) -> str | None:
    """The network program a shell command runs ('curl', 'git clone'), or None."""
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
        if subcommands and len(words) > 1 and words[1] in subcommands:
            return f"{program} {words[1]}"
        if re.fullmatch(r"python[\d.]*|node|ruby|perl|deno|bun", program) and _FETCH_IN_CODE.search(
            segment
        ):
            return f"{program} fetching a URL"
    return None


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
                if not _inside(path, workdir):
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
        if not _inside(path, workdir):
            return f"a file outside the working directory ({path})"
        return None
    if name == "skill_view" and result.get("provenance") in OUTSIDE_PROVENANCE:
        # Installed from a hub or read from an external folder: written by someone else.
        return f"a skill from outside ({result['provenance']}: {result.get('name')})"
    if name == "session_search":
        foreign = [
            hit
            for hit in result.get("results") or []
            if isinstance(hit, dict) and not hit.get("current_session")
        ]
        if foreign:
            return f"text from {len(foreign)} hit(s) in other sessions"
        asked = arguments.get("session_id")
        if asked and asked != session_id and result.get("messages"):
            return f"messages of another session ({asked})"
    return None


class TaintTracker:
    """The untrusted results one conversation holds, in the order they came in."""

    def __init__(self, untrusted_tools: frozenset[str] = frozenset()) -> None:
        self.untrusted_tools = untrusted_tools
        self.sources: list[TaintSource] = []

    @property
    def tainted(self) -> bool:
        return bool(self.sources)

    def observe(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        result: dict[str, Any],
        context: ToolContext,
    ) -> TaintSource | None:
        arguments = arguments if isinstance(arguments, dict) else {}
        reason = untrusted_reason(
            name,
            arguments,
            result,
            workdir=context.workdir,
            cwd=context.cwd,
            session_id=context.session_id,
            untrusted_tools=self.untrusted_tools,
        )
        if reason is None:
            return None
        source = TaintSource(name, _render_call(name, arguments), reason, _excerpt(result))
        self.sources.append(source)
        return source

    def replay(self, history: list[Message], context: ToolContext) -> None:
        """Read the taint of a conversation from its messages (a review's fork, a resume),
        and the memory writes it had refused or held (for split attacks)."""
        calls = {}
        for message in history:
            for call in message.tool_calls or ():
                calls[call.id] = call
            if message.role != "tool" or not message.tool_call_id:
                continue
            call = calls.get(message.tool_call_id)
            if call is None:
                continue
            try:
                result = json.loads(message.content)
            except (json.JSONDecodeError, TypeError):
                continue
            if not isinstance(result, dict):
                continue
            self.observe(call.name, call.parsed_arguments(), result, context)
            if call.name == "memory" and (result.get("staged") or result.get("pattern_ids")):
                arguments = call.parsed_arguments()
                if isinstance(arguments, dict):
                    context.suspect_writes.extend(_memory_contents(arguments))


def _memory_contents(arguments: dict[str, Any]) -> list[str]:
    operations = arguments.get("operations")
    if isinstance(operations, list):
        return [
            str(op.get("content"))
            for op in operations
            if isinstance(op, dict) and op.get("content")
        ]
    return [str(arguments["content"])] if arguments.get("content") else []


def _refused_as_continuation(verdict: threats.Verdict) -> dict[str, Any]:
    refused = [f for f in verdict.findings if threats.tier_of(f) == "refuse"]
    return {
        "success": False,
        "error": (
            f"refused ({verdict.id}): joined to an entry refused or held earlier in this "
            f"conversation, the text matches {threats.describe(refused)}. Memory is injected "
            "into every future system prompt, so it may not hold instructions, secrets or "
            "hidden text, in one entry or split across several."
        ),
        "pattern_ids": [finding.id for finding in refused],
    }


def _memory_operations(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    operations = arguments.get("operations")
    if isinstance(operations, list):
        return operations
    return [
        {
            "action": arguments.get("action"),
            "content": arguments.get("content"),
            "old_text": arguments.get("old_text"),
        }
    ]


class WriteGate:
    """Stages memory and skill writes that a person must approve: tainted ones, and ones the
    scanner holds. Everything else goes through to the tool (which refuses what it must)."""

    def __init__(
        self,
        *,
        memory: MemoryStore,
        skills: SkillLibrary,
        pending: PendingStore,
        scanner: threats.Scanner,
        sink: Sink,
    ) -> None:
        self.memory = memory
        self.skills = skills
        self.pending = pending
        self.scanner = scanner
        self.sink = sink

    def check(
        self,
        name: str,
        arguments: dict[str, Any],
        context: ToolContext,
        sources: list[TaintSource],
    ) -> tuple[dict[str, Any], PendingWrite | None] | None:
        """None to let the call run; otherwise the result the model reads and what was staged."""
        if name == "memory":
            return self._memory(arguments, context, sources)
        if name == "skill_manage" and arguments.get("action") in SKILL_WRITE_ACTIONS and sources:
            return self._skill(arguments, context, sources)
        return None

    def _memory(
        self, arguments: dict[str, Any], context: ToolContext, sources: list[TaintSource]
    ) -> tuple[dict[str, Any], PendingWrite | None] | None:
        target = arguments.get("target") or "memory"
        if target not in ("memory", "user"):
            return None  # the tool gives the error
        held: list[threats.Finding] = []
        for content in _memory_contents(arguments):
            verdict = self.scanner.assess_continuation(context.suspect_writes, content)
            if verdict.tier != "allow":
                context.suspect_writes.append(content)
            if verdict.tier == "refuse":
                if self.scanner.assess(content).tier == "refuse":
                    return None  # the store refuses it with the finding's id
                return _refused_as_continuation(verdict), None
            # In a tainted turn the scanner's weak signals count too.
            held.extend(
                f
                for f in verdict.findings
                if threats.tier_of(f) == "hold" or (sources and threats.tier_of(f) == "flag")
            )
        if not sources and not held:
            return None
        operations = _memory_operations(arguments)
        preview = self.memory.preview(target, operations)
        if not preview.get("success"):
            return context.memory_budget.apply(preview), None
        action = "batch" if arguments.get("operations") else str(arguments.get("action"))
        reason = (
            "tainted: the conversation read untrusted content"
            if sources
            else f"the scanner holds it: {threats.describe(held)}"
        )
        if sources and held:
            reason += f"; the scanner also holds it: {threats.describe(held)}"
        return self._stage(
            context, "memory", target, action, "memory", arguments, preview, reason, sources
        )

    def _skill(
        self, arguments: dict[str, Any], context: ToolContext, sources: list[TaintSource]
    ) -> tuple[dict[str, Any], PendingWrite | None]:
        name = str(arguments.get("name") or "")
        action = str(arguments.get("action"))
        planned = self._planned_skill(arguments)
        if "error" in planned:
            return {"success": False, "error": planned["error"]}, None
        reason = "tainted: the conversation read untrusted content"
        return self._stage(
            context, "skill", name, action, "skill_manage", arguments, planned, reason, sources
        )

    def _planned_skill(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """{before, after} of the skill file the call would change, or {error}."""
        action = arguments.get("action")
        skill = self.skills.get(str(arguments.get("name") or ""))
        file_path = (
            arguments.get("file_path") if action in ("write_file", "remove_file", "patch") else None
        )
        before: str | None = None
        if skill is not None:
            path = skill.directory / str(file_path) if file_path else skill.skill_md
            if not _inside(path, skill.directory):
                return {"error": f"file_path {file_path!r} leaves the skill's folder"}
            try:
                before = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                before = None
        if action in ("create", "edit"):
            return {"before": before, "after": str(arguments.get("content") or "")}
        if action == "write_file":
            return {"before": before, "after": str(arguments.get("file_content") or "")}
        if action in ("delete", "remove_file"):
            return {"before": before, "after": None}
        if before is None:
            return {"error": f"{arguments.get('name')!r} has nothing to patch"}
        try:
            after = find_and_replace(
                before,
                str(arguments.get("old_string") or ""),
                str(arguments.get("new_string") or ""),
                replace_all=bool(arguments.get("replace_all")),
            ).content
        except FuzzyMatchError as exc:
            return {"error": str(exc)}
        return {"before": before, "after": after}

    def _stage(
        self,
        context: ToolContext,
        kind: str,
        target: str,
        action: str,
        tool: str,
        arguments: dict[str, Any],
        change: dict[str, Any],
        reason: str,
        sources: list[TaintSource],
    ) -> tuple[dict[str, Any], PendingWrite]:
        record = self.pending.stage(
            review_id="",
            kind=kind,
            target=target,
            action=action,
            tool=tool,
            arguments=arguments,
            before=change.get("before"),
            after=change.get("after"),
            origin=context.origin,
            reason=reason,
            sources=tuple(asdict(source) for source in sources[-3:]),
        )
        self.sink(
            WriteHeld(
                record.id,
                kind,
                target,
                action,
                context.origin,
                reason,
                sources[-1].describe() if sources else "",
            )
        )
        result = {
            "success": True,
            "staged": True,
            "pending_id": record.id,
            "message": (
                f"Held for the user's approval ({reason}). It is saved only if they approve; "
                "do not repeat it."
            ),
        }
        return result, record


def untrusted_tool_names(registry: ToolRegistry) -> frozenset[str]:
    return frozenset(
        name for name in registry.names() if (tool := registry.get(name)) and tool.untrusted
    )
