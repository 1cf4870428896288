"""The background review: a quiet fork of the agent that decides what is worth keeping.

It runs on a daemon thread over a snapshot of the conversation with the parent's exact system
prompt and tools list (so the provider's prefix cache hits), but only `memory`, `skills_list`,
`skill_view` and `skill_manage` execute. It may patch or edit only skills it viewed in this
review that are agent-created and unpinned; its delete archives. With write approval on, its
writes are staged in pending/ instead. Each review leaves a record in `logs/reviews/<id>.json`
and emits ReviewStarted / ReviewFinished with every change's before and after.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.core.agent.loop import Agent, AgentSettings
from hermes_tui.core.agent.nudges import Due
from hermes_tui.core.agent.taint import WriteGate
from hermes_tui.core.events import (
    Event,
    ReviewChange,
    ReviewFinished,
    ReviewStarted,
    Sink,
    ToolCallFinished,
    ToolCallStarted,
)
from hermes_tui.core.llm.base import Provider, Usage
from hermes_tui.core.llm.retry import RetryPolicy
from hermes_tui.core.memory import MemoryRefused, MemoryStore, join_entries
from hermes_tui.core.messages import Message
from hermes_tui.core.pending import QUARANTINE, PendingStore
from hermes_tui.core.sessions import SessionStore
from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find_and_replace
from hermes_tui.core.skills.library import SkillError, SkillLibrary
from hermes_tui.core.skills.model import names_main_file
from hermes_tui.core.storage import atomic_write_text, ensure_private_dir
from hermes_tui.core.tools.memory import refusal_payload
from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry

REVIEW_TOOLS = frozenset({"memory", "skills_list", "skill_view", "skill_manage"})
MODIFYING_SKILL_ACTIONS = frozenset({"patch", "edit", "write_file", "remove_file", "delete"})
FILE_ACTIONS = frozenset({"patch", "write_file", "remove_file"})

_COMMON = """[Background review] The conversation above is over; the user is not reading this. \
You are reviewing it to decide what is worth keeping for future sessions. You can only use \
memory, skills_list, skill_view and skill_manage. Save nothing about transient problems \
(a flaky network, a typo that was fixed, one failed command). Saving nothing is a fine outcome: \
if nothing qualifies, reply exactly "Nothing to save."  Finish with one short line saying \
what you changed."""

MEMORY_PROMPT = """Look for durable facts: who the user is, their preferences, how they like to \
work, and facts about their projects and environment that will still hold next week. Treat a \
correction the user made as important. Write short declarative entries; merge with or replace \
an existing entry instead of adding a near-duplicate; keep within the limits."""

SKILLS_PROMPT = """Look for procedures worth keeping. A non-trivial technique that took several \
steps, trial and error, or a correction from the user about the approach should become a skill \
written for the whole class of task (not a narrative of this one). If the agent loaded a skill \
that turned out wrong, incomplete or outdated, patch it. Prefer patching an existing skill over \
creating a near-duplicate: check skills_list and skill_view first. You may only change skills \
you have viewed in this review, and only agent-created, unpinned ones."""


CONSOLIDATE_SYSTEM = """You maintain a library of skills (playbooks) that an agent wrote for \
itself. You merge skills that cover the same task so the library stays small and clear."""

CONSOLIDATE_PROMPT = """These agent-created skills are yours to tidy: {names}. View the ones \
whose names or descriptions overlap. When two cover the same task, patch or edit the better one \
so it covers both, then delete the other with absorbed_into set to the survivor. Do not touch \
skills that are merely related. If nothing overlaps, reply "Nothing to merge." """


def review_prompt(kind: str, focus: str | None, poor_skills: list[str]) -> str:
    parts = [_COMMON]
    if kind in ("memory", "combined"):
        parts.append("Memory: " + MEMORY_PROMPT)
    if kind in ("skills", "combined"):
        parts.append("Skills: " + SKILLS_PROMPT)
        if poor_skills:
            parts.append(
                "These skills have a poor record (turns that used them ended with errors); check "
                "whether this conversation shows why and patch them: " + ", ".join(poor_skills)
            )
    if focus:
        parts.append(f"The user asked this review to focus on: {focus}")
    return "\n\n".join(parts)


@dataclass
class ReviewRecord:
    """One background review: when, what it was asked, how it ended and what it changed."""

    id: str
    session_id: str
    kind: str
    started_at: float
    finished_at: float | None = None
    status: str = "running"
    summary: str = ""
    reply: str = ""
    error: str | None = None
    changes: list[ReviewChange] = field(default_factory=list)
    undone: list[int] = field(default_factory=list)  # indexes into changes the user undid


def summarise(changes: list[ReviewChange]) -> str:
    """`memory +1 (user) · skill flask-k8s-deploy created`, or `nothing to save`."""
    if not changes:
        return "nothing to save"
    parts: list[str] = []
    memory = Counter((c.target, c.action) for c in changes if c.kind == "memory")
    signs = {"add": "+", "replace": "~", "remove": "-", "batch": "±"}
    for (target, action), count in memory.items():
        parts.append(f"memory {signs.get(action, action)}{count} ({target})")
    words = {
        "create": "created",
        "patch": "patched",
        "edit": "rewritten",
        "delete": "archived",
        "write_file": "file written",
        "remove_file": "file removed",
    }
    for change in (c for c in changes if c.kind == "skill"):
        parts.append(f"skill {change.target} {words.get(change.action, change.action)}")
    text = " · ".join(parts)
    held = sum(1 for c in changes if c.pending_id)
    if held:
        text += f" ({held} awaiting approval, {QUARANTINE}: hermes-tui pending list)"
    return text


class ReviewStore:
    """logs/reviews/<id>.json (0700 folder), secrets redacted from the text saved."""

    def __init__(self, directory: Path, redact: Callable[[str], str] = str) -> None:
        self.directory = directory
        self.redact = redact

    def save(self, record: ReviewRecord) -> None:
        ensure_private_dir(self.directory)
        atomic_write_text(
            self.directory / f"{record.id}.json",
            self.redact(json.dumps(asdict(record), indent=2, ensure_ascii=False)),
        )

    def mark_undone(self, review_id: str, index: int) -> ReviewRecord:
        """Record that change `index` of a review was undone (shown, and not undone twice)."""
        record = next((r for r in self.list() if r.id == review_id), None)
        if record is None:
            raise FileNotFoundError(f"no review record {review_id} in {self.directory}")
        if index not in record.undone:
            record.undone.append(index)
            self.save(record)
        return record

    def list(self) -> list[ReviewRecord]:
        records = []
        for path in self.directory.glob("*.json"):
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
                raw["changes"] = [ReviewChange(**c) for c in raw.get("changes", [])]
                records.append(ReviewRecord(**raw))
            except (OSError, json.JSONDecodeError, TypeError):
                continue
        return sorted(records, key=lambda r: r.started_at, reverse=True)


class ReviewManager:
    """Starts reviews (the Reviewer of a Session) and runs on-demand ones."""

    def __init__(
        self,
        *,
        provider: Callable[[], Provider],
        registry: Callable[[], ToolRegistry],
        memory: MemoryStore,
        skills: SkillLibrary,
        pending: PendingStore,
        store: ReviewStore,
        sink: Sink,
        max_iterations: int = 16,
        retry: RetryPolicy | None = None,
        memory_approval: bool = False,
        skills_approval: bool = False,
        gate: WriteGate | None = None,
        sessions: SessionStore | None = None,
    ) -> None:
        self._provider = provider
        self.sessions = sessions  # where the reviews' tokens are counted
        self._registry = registry
        self.memory = memory
        self.skills = skills
        self.pending = pending
        self.store = store
        self.sink = sink
        self.max_iterations = max_iterations
        self.retry = retry or RetryPolicy()
        self.memory_approval = memory_approval
        self.skills_approval = skills_approval
        # Holds writes of a review whose conversation read untrusted content (taint.py).
        self.gate = gate
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    # Reviewer protocol, called by Session.submit at the end of a turn.
    def start(self, session: Any, due: Due) -> None:
        agent = session.agent
        snapshot = (agent.system_prompt, list(agent.history), session.id, agent.context.cwd)
        thread = threading.Thread(
            target=self.run,
            args=(*snapshot, due.kind),
            # The live taint: what compressed turns read is no longer in the history (A7-6).
            kwargs={"record_usage": session.record_review_usage, "taint": agent.taint.export()},
            name=f"review-{session.id}",
            daemon=True,
        )
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait for running reviews; False if some were still running at the deadline."""
        deadline = time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in threads)

    def run(
        self,
        system_prompt: str,
        history: list[Message],
        session_id: str,
        cwd: Path,
        kind: str,
        focus: str | None = None,
        record_usage: Callable[[Usage], None] | None = None,
        taint: dict[str, Any] | None = None,
    ) -> ReviewRecord:
        """Review `history`; `taint` is what the conversation took in (TaintTracker.export),
        by default what sessions.db kept of it beyond the history."""
        record = ReviewRecord(uuid.uuid4().hex[:10], session_id, kind, time.time())
        self.store.save(record)
        self.sink(ReviewStarted(record.id, session_id, kind))
        try:
            agent = Agent(
                provider=self._provider(),
                registry=self._guarded_registry(record),
                system_prompt=system_prompt,
                history=_complete(history),
                context=ToolContext(origin="review", cwd=cwd, workdir=cwd, session_id=session_id),
                settings=AgentSettings(
                    max_turns=self.max_iterations, retry=self.retry, source="review"
                ),
                sink=self._forward,
                record_usage=record_usage or self._store_usage(session_id),
                allowed_tools=REVIEW_TOOLS,
                gate=self.gate,
            )
            if taint is None and self.sessions is not None:
                taint = self.sessions.taint(session_id)
            agent.taint.absorb(taint)
            result = agent.run_turn(review_prompt(kind, focus, self._poor_skills()))
            for held in agent.held:
                record.changes.append(
                    ReviewChange(
                        held.kind,  # type: ignore[arg-type]
                        held.target,
                        held.action,
                        held.before,
                        held.after,
                        held.id,
                    )
                )
            record.reply = result.text.strip()
            if result.error is not None:
                record.status, record.error = "failed", result.error.user_message()
            else:
                record.status = "done"
        except Exception as exc:  # the review must never take the user's session down with it
            record.status, record.error = "failed", f"{type(exc).__name__}: {exc}"
        record.finished_at = time.time()
        record.summary = summarise(record.changes)
        if record.status == "failed":
            record.summary = f"failed ({record.error}); " + record.summary
        self.store.save(record)
        self.sink(
            ReviewFinished(
                record.id, session_id, record.status, record.summary, tuple(record.changes)
            )
        )
        return record

    def consolidate(self, names: list[str], cwd: Path) -> list[ReviewChange]:
        """The curator's optional model pass: merge overlapping agent-created skills.

        Runs with only the skill tools under the review's guards, as origin "curator"; every
        retired skill must name the skill that absorbed it.
        """
        if len(names) < 2:
            return []
        record = ReviewRecord(uuid.uuid4().hex[:10], "curator", "consolidate", time.time())
        registry = self._guarded_registry(record)
        agent = Agent(
            provider=self._provider(),
            registry=ToolRegistry(
                [
                    t
                    for n in ("skills_list", "skill_view", "skill_manage")
                    if (t := registry.get(n))
                ],
                limits=registry.limits,
            ),
            system_prompt=CONSOLIDATE_SYSTEM,
            history=[],
            context=ToolContext(origin="curator", cwd=cwd, workdir=cwd),
            settings=AgentSettings(
                max_turns=self.max_iterations, retry=self.retry, source="review"
            ),
            sink=self._forward,
            allowed_tools=frozenset({"skills_list", "skill_view", "skill_manage"}),
        )
        agent.run_turn(CONSOLIDATE_PROMPT.format(names=", ".join(sorted(names))))
        return record.changes

    def _store_usage(self, session_id: str) -> Callable[[Usage], None]:
        """Where a review's tokens go when no live session hears them (`hermes-tui review`)."""

        def record(usage: Usage) -> None:
            if self.sessions is not None:
                self.sessions.add_usage(
                    session_id,
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cached_tokens,
                    usage.cache_creation_tokens,
                    review=True,
                )

        return record

    def _forward(self, event: Event) -> None:
        # The user sees the review's tool calls in the trace (tagged), not its text.
        if isinstance(event, (ToolCallStarted, ToolCallFinished)):
            self.sink(event)

    def _poor_skills(self) -> list[str]:
        usage = self.skills.usage.all()
        return sorted(
            name
            for name, record in usage.items()
            if int(record.get("failure_count", 0)) >= 2
            and int(record.get("failure_count", 0)) > int(record.get("success_count", 0))
        )

    # ---- the review's tools -------------------------------------------------------------

    def _guarded_registry(self, record: ReviewRecord) -> ToolRegistry:
        """The parent's tools with identical schemas; memory and skill_manage wrapped."""
        base = self._registry()
        tools: list[Tool] = []
        for name in base.names():
            tool = base.get(name)
            assert tool is not None
            if name == "memory":
                tool = dataclasses.replace(tool, handler=self._memory_handler(tool, record))
            elif name == "skill_manage":
                tool = dataclasses.replace(tool, handler=self._skill_handler(tool, record))
            tools.append(tool)
        return ToolRegistry(tools, limits=base.limits)

    def _memory_handler(self, tool: Tool, record: ReviewRecord):
        def handle(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
            target = args.get("target") or "memory"
            if target not in ("memory", "user"):
                return tool.handler(args, context)
            operations = args.get("operations") or [
                {
                    "action": args.get("action"),
                    "content": args.get("content"),
                    "old_text": args.get("old_text"),
                }
            ]
            action = "batch" if args.get("operations") else str(args.get("action"))
            if self.memory_approval:
                try:
                    preview = self.memory.preview(target, operations)
                except MemoryRefused as refused:
                    return context.memory_budget.apply(refusal_payload(refused.refusal))
                staged = self.pending.stage(
                    review_id=record.id,
                    kind="memory",
                    target=target,
                    action=action,
                    tool="memory",
                    arguments=args,
                    before=preview.before,
                    after=preview.after,
                )
                record.changes.append(
                    ReviewChange("memory", target, action, preview.before, preview.after, staged.id)
                )
                return {
                    "success": True,
                    "staged": True,
                    "pending_id": staged.id,
                    "message": "Staged for the user's approval; do not repeat it.",
                }
            before = join_entries(self.memory.entries(target))
            result = tool.handler(args, context)
            after = join_entries(self.memory.entries(target))
            if result.get("success") and after != before:
                record.changes.append(ReviewChange("memory", target, action, before, after))
            return result

        return handle

    def _skill_handler(self, tool: Tool, record: ReviewRecord):
        def handle(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
            action, name = args.get("action"), str(args.get("name") or "")
            refusal = self._refuse(name, context) if action in MODIFYING_SKILL_ACTIONS else None
            survivor = str(args.get("absorbed_into") or "").strip()  # "   " names nobody
            if context.origin == "curator" and action == "delete" and not survivor:
                refusal = "the curator may only retire a skill into another: set absorbed_into"
            if refusal:
                return {"success": False, "error": refusal}
            file_path = args.get("file_path") or None
            on_file = file_path if action in FILE_ACTIONS else None
            if on_file is not None and names_main_file(name, on_file):
                on_file = None  # Hermes' way of naming the main file
            if on_file is not None and (skill := self.skills.get(name)) is not None:
                # The same confinement as the skill tools, before anything is read or staged.
                try:
                    self.skills.support_path(skill, on_file)
                except SkillError as exc:
                    return {"success": False, "error": str(exc)}
            before = self._skill_text(name, on_file)
            if self.skills_approval:
                planned = self._planned_skill_text(args, before)
                if isinstance(planned, dict):
                    return planned
                staged = self.pending.stage(
                    review_id=record.id,
                    kind="skill",
                    target=name,
                    action=str(action),
                    tool="skill_manage",
                    arguments=args,
                    before=before,
                    after=planned,
                )
                record.changes.append(
                    ReviewChange("skill", name, str(action), before, planned, staged.id)
                )
                return {
                    "success": True,
                    "staged": True,
                    "pending_id": staged.id,
                    "message": "Staged for the user's approval; do not repeat it.",
                }
            result = tool.handler(args, context)
            if result.get("success"):
                after = None if action == "delete" else self._skill_text(name, on_file)
                record.changes.append(
                    ReviewChange("skill", name, str(action), before, after, file=on_file)
                )
            return result

        return handle

    def _refuse(self, name: str, context: ToolContext) -> str | None:
        skill = self.skills.get(name)
        if skill is None:
            return None  # the library gives the "no such skill" answer
        usage = self.skills.usage.get(name)
        if name not in context.viewed_skills:
            return f"view {name!r} with skill_view in this review before changing it."
        if usage.get("pinned"):
            return f"{name!r} is pinned by the user; leave it alone."
        if skill.root.kind != "home" or usage.get("created_by") != "agent":
            return (
                f"{name!r} was not created by the agent, so a review may not change it. If it needs "
                "work, create a new skill or mention it in your final line for the user."
            )
        return None

    def _skill_text(self, name: str, file_path: str | None) -> str | None:
        skill = self.skills.get(name)
        if skill is None:
            return None
        try:
            path = self.skills.support_path(skill, file_path) if file_path else skill.skill_md
            return path.read_text(encoding="utf-8")
        except (SkillError, OSError, UnicodeDecodeError):
            return None

    @staticmethod
    def _planned_skill_text(
        args: dict[str, Any], before: str | None
    ) -> str | None | dict[str, Any]:
        action = args.get("action")
        if action in ("create", "edit"):
            return str(args.get("content") or "")
        if action == "write_file":
            return str(args.get("file_content") or "")
        if action in ("delete", "remove_file"):
            return None
        if action == "patch":
            if before is None:
                return {"success": False, "error": f"{args.get('name')!r} has nothing to patch"}
            try:
                return find_and_replace(
                    before,
                    str(args.get("old_string") or ""),
                    str(args.get("new_string") or ""),
                    replace_all=bool(args.get("replace_all")),
                ).content
            except FuzzyMatchError as exc:
                return {"success": False, "error": str(exc)}
        return {"success": False, "error": f"unknown action {action!r}"}


def _complete(history: list[Message]) -> list[Message]:
    """Drop a dangling assistant tool call at the end (a cut turn) so the fork's request is valid."""
    messages = list(history)
    while messages and messages[-1].role == "assistant" and messages[-1].tool_calls:
        messages.pop()
    return messages
