"""Taint: what a conversation has taken in from tool results, and the writes that holds.

Two rules, either of which holds a memory or skill write (or a files-tool write to an
instruction file the prompt loads, context_writes.py) for the user in pending/ (whatever the
scanner says; `--yolo` is about commands, not memory), naming the tool call:

- By content (provenance.py): a write that reproduces text from ANY tool result of the
  conversation (8 consecutive words, or most of its 5-word runs, compared in the scanner's
  normal form and decodings) is held, with both excerpts. A README inside the working
  directory, a file copied in and printed, a page a script fetched: the channel does not matter.
- By channel (untrusted.py): once a conversation has taken in an untrusted result (the files
  tools outside the working directory, network commands, network egress through the sandbox's
  proxy, web_fetch's pages, tools marked `untrusted` such as every MCP tool, skills from
  outside, any session_search), every later write is held, even in its own words.

The scanner's hold tier goes the same way. A review forks the conversation: its agent replays
the history it is given and takes in the live tracker's export, so it inherits the taint and the
content of the turns it reviews, compressed ones too. A resumed session replays its stored
history plus what sessions.db kept beyond it (a compression's dropped results, a Hermes
gateway session's channel: `export`/`absorb`); a Hermes session's plain-text tool results and
the user's own `!command` output in their messages are replayed as tool results.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core import threats
from hermes_tui.core.agent.context_gate import ContextFileGate
from hermes_tui.core.agent.context_gate import held_reason as _reason
from hermes_tui.core.agent.context_writes import FILE_WRITE_TOOLS
from hermes_tui.core.agent.provenance import (
    PROJECT_FILE,
    PROJECT_FILE_MAX_CHARS,
    ContentIndex,
    ContentMatch,
    result_text,
)
from hermes_tui.core.agent.removals import lost_entries, lost_lines, lost_reason
from hermes_tui.core.agent.untrusted import (
    OWN_TEXT_TOOLS,
    indexes_content,
    inside,
    untrusted_reason,
)
from hermes_tui.core.events import Sink, WriteHeld
from hermes_tui.core.memory import MemoryRefused, MemoryStore
from hermes_tui.core.messages import Message
from hermes_tui.core.pending import PendingStore, PendingWrite
from hermes_tui.core.records import datarecord
from hermes_tui.core.tools.memory import refusal_payload

if TYPE_CHECKING:
    from hermes_tui.core.skills.library import SkillLibrary
    from hermes_tui.core.tools.registry import ToolContext, ToolRegistry

EXCERPT_CHARS = 160
SKILL_WRITE_ACTIONS = frozenset({"create", "patch", "edit", "delete", "write_file", "remove_file"})


@datarecord
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


ATTACHED_FILE = "attached file"  # the "tool" of a file the user attached to a message
TOOL_DOCS = "MCP server docs"  # the "tool" of an MCP tool's description and schema
# How the output of the user's own `!command` starts inside their next message (loop.py).
USER_COMMAND_BLOCK = "[Before this message I ran a shell command myself"
# Hermes Agent's tools whose results come from the network, an MCP server or a subagent.
FOREIGN_NETWORK_TOOLS = re.compile(
    r"(web_|browser_|mcp_|vision_|fetch|http|delegate|mixture_of_agents)", re.IGNORECASE
)


class TaintTracker:
    """The untrusted results one conversation holds, in the order they came in."""

    def __init__(self, untrusted_tools: frozenset[str] = frozenset()) -> None:
        self.untrusted_tools = untrusted_tools
        self.sources: list[TaintSource] = []
        self.content = ContentIndex()  # every tool result's text, for taint by content
        self._described: set[str] = set()  # the untrusted tools whose descriptions are indexed

    def observe_tools(self, registry: ToolRegistry) -> None:
        """The conversation's tools: an untrusted one's (MCP) results taint, and its description
        and parameter schema, someone else's text the model reads every turn, are indexed as a
        source, so a write copying them is held as a copy of its result would be (A7-11)."""
        from hermes_tui.core.agent.untrusted import untrusted_tool_names

        self.untrusted_tools = untrusted_tool_names(registry)
        for name in sorted(self.untrusted_tools - self._described):
            tool = registry.get(name)
            if tool is not None and tool.toolset == "mcp":  # not our own web_fetch's
                text = f"{tool.description}\n{result_text(tool.parameters)}"
                self.content.add(TOOL_DOCS, f"{name}: description", text)
        self._described |= self.untrusted_tools

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
        if indexes_content(name, result):
            self.content.add(name, _render_call(name, arguments), result_text(result))
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

    def export(self, max_chars: int | None = None) -> dict[str, Any]:
        """What this conversation has taken in, as plain data: a compressed conversation's child
        session keeps it (sessions.db's session_taint, the newest `max_chars` of text and every
        source), so dropping the turns that read a README never lowers the taint (A7-6)."""
        content = self.content.entries(max_chars)
        return {"sources": [asdict(s) for s in self.sources], "content": content}

    def absorb(self, state: dict[str, Any] | None) -> None:
        """Take in what another tracker exported (the parent of a compressed conversation, a
        Hermes session's channel): its sources taint this one, its results are indexed."""
        if not isinstance(state, dict):
            return
        fields = ("tool", "call", "reason", "excerpt")
        for source in state.get("sources") or ():
            if isinstance(source, dict) and all(isinstance(source.get(f), str) for f in fields):
                self.sources.append(TaintSource(*(source[f] for f in fields)))
        content = state.get("content")
        self.content.absorb(content if isinstance(content, list) else [])

    def observe_project_files(self, cwd: Path) -> None:
        """Index the project's instruction files the system prompt carries (AGENTS.md, CLAUDE.md,
        .cursor rules...): in a cloned repository someone else wrote them, so a write that
        copies them is held as a copy of a tool result is. They do not taint the turn."""
        from hermes_tui.core.agent.prompt import context_file_paths

        try:
            paths = context_file_paths(cwd)
        except OSError:
            return
        for path in paths:
            try:
                if not path.is_file():  # a FIFO a command made would hang the start
                    continue
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(PROJECT_FILE_MAX_CHARS)
            except OSError:
                continue
            self.content.add(PROJECT_FILE, str(path), text)

    def observe_attachments(self, text: str) -> None:
        """Index the files attached to a user's message (`@path`, an editor's embedded file):
        the file's text, not the user's words, so a write that copies it is held as a copy of
        a read_file result is (attack4's A4-11)."""
        if "<attached_file " not in text and "<file uri=" not in text:
            return  # most messages: no need for the mentions module (chat -q's start)
        from hermes_tui.core.mentions import attached_files

        for path, body in attached_files(text):
            self.content.add(ATTACHED_FILE, f"@{path}", body)

    def replay(self, history: list[Message], context: ToolContext) -> None:
        """Read the taint of a conversation from its messages (a review's fork, a resume),
        the memory writes it had refused or held and those it stored (both for split attacks:
        a write is joined to them); index the project's instruction files first."""
        self.observe_project_files(context.cwd)
        calls = {}
        stored: list[str] = []
        for message in history:
            if message.role == "user" and isinstance(message.content, str):
                self.observe_attachments(message.content)
                self._observe_user_commands(message.content, context)
            for call in message.tool_calls or ():
                calls[call.id] = call
            if message.role != "tool" or not message.tool_call_id:
                continue
            context.replayed_results.append(str(message.content))
            call = calls.get(message.tool_call_id)
            if call is None:
                continue
            try:
                result = json.loads(message.content)
            except (ValueError, RecursionError, TypeError):  # not ours, or deeper than Python reads
                result = None
            if not isinstance(result, dict):
                # Not ours: a Hermes session's tool result is its plain text (a page, a README,
                # a command's output), indexed as such and judged by its tool (A7-4).
                self._observe_foreign(call.name, call.parsed_arguments(), message, context)
                continue
            self.observe(call.name, call.parsed_arguments(), result, context)
            arguments = call.parsed_arguments()
            if call.name != "memory" or not isinstance(arguments, dict):
                continue
            if result.get("staged") or result.get("pattern_ids"):
                context.suspect_writes.extend(_memory_contents(arguments))
            elif result.get("success") is True:
                # Stored: the next write of a resumed session is joined to the last of these,
                # as it would have been had the session gone on (threats.Scanner.assess_sequel).
                stored.extend(_memory_contents(arguments))
        # The kept history decides (a rewind replays what is left of it): not appended to.
        context.stored_writes[:] = stored

    def _observe_user_commands(self, text: str, context: ToolContext) -> None:
        """The output of the user's own `!commands`, sent inside their next message
        (loop.run_user_command): a terminal result as it was live, not the user's words."""
        if USER_COMMAND_BLOCK not in text:
            return
        for block in text.split(USER_COMMAND_BLOCK)[1:]:
            _, _, rest = block.partition("\n$ ")
            command, _, output = rest.partition("\n")
            self.observe("terminal", {"command": command}, {"output": output}, context)

    def _observe_foreign(
        self, name: str, arguments: Any, message: Message, context: ToolContext
    ) -> None:
        """A tool result that is not our JSON (Hermes Agent's): its text indexed; a tool that
        reads the network or an MCP server taints the conversation, as ours do."""
        text = str(message.content)
        if not text.strip() or name in OWN_TEXT_TOOLS:
            return
        arguments = arguments if isinstance(arguments, dict) else {}
        if FOREIGN_NETWORK_TOOLS.match(name):
            call = _render_call(name, arguments)
            self.content.add(name, call, text)
            reason = f"a Hermes Agent tool that reads the network or an MCP server ({name})"
            self.sources.append(TaintSource(name, call, reason, _excerpt({"output": text})))
            return
        self.observe(name, arguments, {"output": text}, context)


def foreign_channel(session_id: str, source: str, history: list[Message]) -> dict[str, Any] | None:
    """The taint a Hermes Agent session brings beyond its tool results (TaintTracker.export),
    or None: one from a messaging gateway (telegram, discord, …: anything but `cli`) holds other
    people's messages in the user's place, so it taints the conversation and its user messages
    are indexed as a tool result's text would be (attack7's A7-4)."""
    if source in ("", "cli"):
        return None
    tracker = TaintTracker()
    call = f"{source} messages of {session_id}"
    users = [m.content for m in history if m.role == "user" and isinstance(m.content, str)]
    for text in users:
        tracker.content.add(f"hermes {source}", call, text)
    reason = f"a Hermes Agent session from {source}: messages from other people"
    excerpt = _excerpt({"output": users[0] if users else ""})
    tracker.sources.append(TaintSource(f"hermes {source}", call, reason, excerpt))
    return tracker.export()


def _memory_contents(arguments: dict[str, Any]) -> list[str]:
    operations = arguments.get("operations")
    if isinstance(operations, list):
        return [
            str(op.get("content"))
            for op in operations
            if isinstance(op, dict) and op.get("content")
        ]
    return [str(arguments["content"])] if arguments.get("content") else []


def _refused_as_continuation(verdict: threats.Verdict, kind: str = "memory") -> dict[str, Any]:
    refused = [f for f in verdict.findings if threats.tier_of(f) == "refuse"]
    return {
        "success": False,
        "error": (
            f"refused ({verdict.id}): joined to an entry refused or held earlier, the text "
            f"matches {threats.describe(refused)}. {kind.capitalize()} is injected into future "
            "system prompts, so it may not hold instructions, secrets or hidden text, in one "
            "entry or split across several."
        ),
        "pattern_ids": [finding.id for finding in refused],
    }


def _skill_texts(arguments: dict[str, Any]) -> list[str]:
    keys = ("content", "file_content", "new_string")
    return [str(arguments[key]) for key in keys if arguments.get(key)]


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


class WriteGate(ContextFileGate):
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
        taint: TaintTracker,
    ) -> tuple[dict[str, Any], PendingWrite | None] | None:
        """None to let the call run; otherwise the result the model reads and what was staged."""
        if name == "memory":
            return self._memory(arguments, context, taint)
        if name == "skill_manage" and arguments.get("action") in SKILL_WRITE_ACTIONS:
            return self._skill(arguments, context, taint)
        if name in FILE_WRITE_TOOLS and context.approval_mode != "plan":  # AGENTS.md...
            return self.check_file_write(name, arguments, context, taint)
        return None

    def _memory(
        self, arguments: dict[str, Any], context: ToolContext, taint: TaintTracker
    ) -> tuple[dict[str, Any], PendingWrite | None] | None:
        target = arguments.get("target") or "memory"
        if target not in ("memory", "user"):
            return None  # the tool gives the error
        contents = _memory_contents(arguments)
        held: list[threats.Finding] = []
        for content in contents:
            verdict = self.scanner.assess_continuation(self._suspects(context), content)
            verdict = self.scanner.assess_sequel(context.stored_writes, content, verdict)
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
                if threats.tier_of(f) == "hold" or (taint.sources and threats.tier_of(f) == "flag")
            )
        copied = _copies(taint, contents)
        operations = _memory_operations(arguments)
        drops = taint.content.read_results() and any(
            isinstance(op, dict) and op.get("action") in ("remove", "replace") for op in operations
        )
        if not taint.sources and not held and not copied and not drops:
            return None
        try:
            preview = asdict(self.memory.preview(target, operations))  # before, after
        except MemoryRefused as refused:
            return context.memory_budget.apply(refusal_payload(refused.refusal)), None
        lost = lost_entries(preview["before"], preview["after"]) if drops else []
        if not taint.sources and not held and not copied and not lost:
            return None
        action = "batch" if arguments.get("operations") else str(arguments.get("action"))
        reason = "; ".join(filter(None, [_reason(taint.sources, copied, held), lost_reason(lost)]))
        return self._stage(
            context, "memory", target, action, "memory", arguments, preview, reason, taint, copied
        )

    def _suspects(self, context: ToolContext) -> list[str]:
        """The texts a write may complete: writes waiting in pending/ from any session (oldest
        first), then those this conversation had refused or held (newest last)."""
        waiting = [
            text
            for record in self.pending.list()
            if record.kind in ("memory", "skill")  # a held AGENTS.md is a whole file
            for text in (_memory_contents if record.kind == "memory" else _skill_texts)(
                record.arguments
            )
        ]
        return [t for t in waiting if t not in context.suspect_writes] + context.suspect_writes

    def _skill(
        self, arguments: dict[str, Any], context: ToolContext, taint: TaintTracker
    ) -> tuple[dict[str, Any], PendingWrite | None] | None:
        texts = _skill_texts(arguments)
        copied = _copies(taint, texts)
        held: list[threats.Finding] = []
        for text in texts:  # a skill text may complete a memory entry held before (split attack)
            verdict = self.scanner.assess_continuation(self._suspects(context), text, skill=True)
            joined = [f for f in verdict.findings if f.view == threats.JOINED]
            if verdict.tier != "allow":
                context.suspect_writes.append(text)
            if any(threats.tier_of(f) == "refuse" for f in joined):
                return _refused_as_continuation(verdict, "a skill"), None
            # A skill goes to every later prompt (its index line, skill_view): what the scanner
            # holds alone counts, as it does for a memory entry, whoever writes it (attack4's
            # A4-12: a text memory held went into a new skill of the agent's as it was).
            alone = [f for f in verdict.findings if f not in joined]
            held.extend(f for f in joined + alone if threats.tier_of(f) == "hold")
        split = self._split_exfiltration(arguments, texts)
        drops = taint.content.read_results()  # a step deleted on a README's say-so (A7-12)
        if not taint.sources and not copied and not held and not split and not drops:
            return None
        name = str(arguments.get("name") or "")
        action = str(arguments.get("action"))
        planned = self._planned_skill(arguments)
        if "error" in planned:
            if not taint.sources and not copied and not held and not split:
                return None  # the tool gives the error
            return {"success": False, "error": planned["error"]}, None
        lost = lost_lines(planned.get("before"), planned.get("after")) if drops else []
        if not taint.sources and not copied and not held and not split and not lost:
            return None
        reasons = [_reason(taint.sources, copied, held), split, lost_reason(lost, "skill")]
        reason = "; ".join(filter(None, reasons))
        return self._stage(
            context,
            "skill",
            name,
            action,
            "skill_manage",
            arguments,
            planned,
            reason,
            taint,
            copied,
        )

    def _split_exfiltration(self, arguments: dict[str, Any], texts: list[str]) -> str | None:
        """The skill's files with this write, read together (skills/exfil.py): credentials
        read in one and data sent in another waits for the user."""
        from hermes_tui.core.skills.exfil import split_exfiltration

        action = arguments.get("action")
        if action in ("delete", "remove_file") or not texts:
            return None
        written = (
            str(arguments.get("file_path") or "SKILL.md") if action != "create" else "SKILL.md"
        )
        files: dict[str, str] = {}
        skill = self.skills.get(str(arguments.get("name") or ""))
        if skill is not None and action != "create":
            for path in sorted(skill.directory.rglob("*"))[:100]:
                relative = path.relative_to(skill.directory).as_posix()
                if path.is_file() and not path.is_symlink() and relative != written:
                    with contextlib.suppress(OSError, UnicodeDecodeError):
                        files[relative] = path.read_bytes()[: 1 << 20].decode("utf-8")
        files[written] = "\n".join(texts)
        return split_exfiltration(files)

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
            if not inside(path, skill.directory):
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
        from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace

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
        taint: TaintTracker,
        copied: list[ContentMatch],
        workdir: str = "",
    ) -> tuple[dict[str, Any], PendingWrite]:
        sources = taint.sources
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
            copied=tuple(asdict(match) for match in copied[:3]),
            workdir=workdir,
        )
        first = copied[0] if copied else None
        self.sink(
            WriteHeld(
                record.id,
                kind,
                target,
                action,
                context.origin,
                reason,
                first.call if first else sources[-1].describe() if sources else "",
                tool_excerpt=first.source_excerpt if first else "",
                write_excerpt=first.write_excerpt if first else "",
                copies=first is not None,
            )
        )
        result = {
            "success": True,
            "staged": True,
            "pending_id": record.id,
            # Not the reason: the model is not told which rule held it (a model steered by an
            # injection would learn to word the next try around it).
            "message": (
                "Held for the user's approval. It is saved only if they approve; do not repeat "
                "it or write it again in other words."
            ),
        }
        return result, record


def _copies(taint: TaintTracker, texts: list[str]) -> list[ContentMatch]:
    return [match for text in texts if (match := taint.content.match(text)) is not None]
