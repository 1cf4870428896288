"""A conversation: the agent, its stored history, its nudge counters, and what a turn leaves behind.

`submit()` runs one user turn (call it from a worker thread), persists every message, saves
the nudge counters with the session, records each loaded skill's outcome, and hands a due
review to the reviewer. After a context compression the conversation continues in a child
session whose system prompt is rebuilt; `info` always names the current one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hermes_tui.core.agent.loop import Agent, TurnResult
from hermes_tui.core.agent.nudges import Due, NudgeEngine
from hermes_tui.core.checkpoints import CheckpointError, CheckpointStore
from hermes_tui.core.events import TodoChanged, UsageUpdated
from hermes_tui.core.llm.base import Usage
from hermes_tui.core.messages import Message
from hermes_tui.core.pricing import ModelPrice, UsageTotals, cost
from hermes_tui.core.sessions import SessionInfo, SessionStore
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.text import title_of, whole_characters
from hermes_tui.core.todo import TodoItem, TodoList, items_from_json, items_to_json
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import APPROVAL_MODES, ApprovalMode

if TYPE_CHECKING:  # the transcript's types load when a face first asks for it
    from hermes_tui.core.transcript import TranscriptItem


def _totals(usage: Usage) -> UsageTotals:
    return UsageTotals(
        usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.cache_creation_tokens
    )


CARRIED_CHARS = 8 << 20  # tool-result text a compressed session keeps for taint by content


class Reviewer(Protocol):
    def start(self, session: Session, due: Due) -> None:
        """Fork a background review of `session` for the due counters."""


class Session:
    def __init__(
        self,
        *,
        info: SessionInfo,
        sessions: SessionStore,
        skills: SkillLibrary,
        nudges: NudgeEngine,
        build_prompt: Callable[[], str],
        reviewer: Reviewer | None = None,
        model: str = "",
        price: ModelPrice | None = None,
        checkpoints: CheckpointStore | None = None,
        approvals: Approvals | None = None,
    ) -> None:
        self.info = info
        self.sessions = sessions
        self.skills = skills
        self.nudges = nudges
        self.build_prompt = build_prompt
        self.reviewer = reviewer
        self.agent: Agent  # set by attach(); the agent needs this session's callbacks
        self._lock = threading.Lock()
        self.model = model or info.model
        self.price = price
        # What the user allowed for the rest of this conversation, and how to ask them more:
        # the one place grants live (the faces only ask).
        self.approvals = approvals if approvals is not None else Approvals()
        # Totals of the whole conversation: a resumed one starts from what sessions.db holds.
        self.totals = sessions.usage_totals(info.id)
        self.review_totals = sessions.usage_totals(info.id, review=True)
        self._abandoned = False  # the face stopped waiting for the turn: store nothing more
        # Said before the next message (a personality chosen): the system prompt stays as built.
        self.pending_note = ""
        self._persist_lock = threading.Lock()
        # The agent's todo list (the `todo` tool writes it), stored with the session.
        self.todos = TodoList(items_from_json(info.todos), self._todos_changed)
        # What the files tools replaced, turn by turn, for /rewind (None: not recorded).
        self.checkpoints = checkpoints

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def approval_mode(self) -> ApprovalMode:
        return self.agent.context.approval_mode

    def set_approval_mode(self, mode: ApprovalMode) -> None:
        """Switch how much asks; the next tool call is judged in the new mode (grants kept)."""
        if mode not in APPROVAL_MODES:
            raise ValueError(
                f"no approval mode {mode!r}; the modes are {', '.join(APPROVAL_MODES)}"
            )
        self.agent.context.approval_mode = mode

    def attach(self, agent: Agent) -> None:
        self.agent = agent
        agent.context.todos = self.todos
        agent.context.file_writes = self.checkpoints
        # What the session took in before its history was cut (a compression, a Hermes
        # session's channel): kept with it, so a resumed session is as tainted as it was.
        agent.taint.absorb(self.sessions.taint(self.info.id))
        if self.checkpoints is not None:  # a rewind judges what it writes back against it
            self.checkpoints.workdir = agent.context.workdir

    def close(self) -> None:
        """End what this conversation's tools keep running (the sandbox's network namespace
        held for it and its filtering proxy). The stored conversation stays resumable; a
        command run after this starts them again. The faces close a session they leave (a new
        one, another resumed, the face exiting); `Runtime.close` closes what is left."""
        agent = getattr(self, "agent", None)
        if agent is not None:
            agent.registry.close()

    def _todos_changed(self, items: tuple[TodoItem, ...]) -> None:
        self.sessions.update(self.info.id, todos=items_to_json(items))
        self.agent.sink(TodoChanged(self.info.id, items))

    def transcript(self) -> list[TranscriptItem]:
        """The conversation so far as a face draws it: messages, reasoning and finished tool calls."""
        import json

        from hermes_tui.core.agent.loop import tool_output
        from hermes_tui.core.transcript import Said, Thought, ToolRun

        history = self.agent.history
        results = {m.tool_call_id: m.content for m in history if m.role == "tool"}
        items: list[TranscriptItem] = []
        for message in history:
            if message.role == "assistant" and getattr(message, "reasoning", ""):
                items.append(Thought(message.reasoning))
            if message.role in ("user", "assistant") and message.content:
                items.append(Said(message.role, message.content))
            for call in message.tool_calls if message.role == "assistant" else ():
                try:
                    outcome = json.loads(results.get(call.id, "") or "{}")
                except (ValueError, RecursionError):  # not JSON, or deeper than Python reads
                    outcome = {"output": results.get(call.id, "")}
                if not isinstance(outcome, dict):
                    outcome = {"output": str(outcome)}
                tool = self.agent.registry.get(call.name)
                preview = tool.summarise(outcome) if tool else str(outcome.get("error", ""))
                parsed = call.parsed_arguments()  # {} for a call without arguments
                arguments = parsed if parsed is not None else {"_raw": call.arguments}
                ok = bool(outcome.get("success", True))
                items.append(ToolRun(call.name, arguments, ok, preview, tool_output(outcome)))
        return items

    # Callbacks the agent uses.
    def persist(self, message: Message) -> None:
        with self._persist_lock:
            if not self._abandoned:
                self.sessions.append(self.info.id, message)

    def abandon_turn(self) -> None:
        """The face stops waiting for the running turn (a second Ctrl-C; the process ends): close
        the stored conversation so that it alternates, and store nothing more of this turn."""
        from hermes_tui.core.agent.loop import closing_messages

        with self._persist_lock:
            if self._abandoned:
                return
            self._abandoned = True
            stored = [m.message for m in self.sessions.messages(self.info.id)]
            for message in closing_messages(stored):
                self.sessions.append(self.info.id, message)

    def record_usage(self, usage: Usage) -> None:
        self.sessions.add_usage(
            self.info.id,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_tokens,
            usage.cache_creation_tokens,
        )
        self.totals += _totals(usage)
        self.agent.sink(self.usage())

    def record_review_usage(self, usage: Usage) -> None:
        """A background review's model call: counted in the session, apart from its turns."""
        self.sessions.add_usage(
            self.info.id,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_tokens,
            usage.cache_creation_tokens,
            review=True,
        )
        self.review_totals += _totals(usage)
        self.agent.sink(self.usage())

    def usage(self) -> UsageUpdated:
        """The conversation's tokens so far, its reviews' apart, and what both cost (None when
        the model has no price)."""
        spent = self.totals + self.review_totals
        dollars = cost(spent, self.price) if self.price is not None else None
        return UsageUpdated(self.info.id, self.model, self.totals, dollars, self.review_totals)

    def continue_compressed(self, messages: list[Message]) -> str:
        """Start a child session holding the compressed history; return its new prompt."""
        prompt = self.build_prompt()
        child = self.sessions.create(
            provider=self.info.provider,
            model=self.info.model,
            system_prompt=prompt,
            parent_id=self.info.id,
            title=self.info.title,
        )
        for message in messages:
            self.sessions.append(child.id, message)
        # The summary replaces the turns that read a README or a page, not what they read.
        # (The newest 8 MB of it: each compression writes its own row; every source is kept.)
        self.sessions.set_taint(child.id, self.agent.taint.export(CARRIED_CHARS))
        self.info = self.sessions.get(child.id)
        self.agent.context.session_id = child.id
        self._save_counters()
        if self.todos.items:  # the list goes on with the conversation
            self.sessions.update(child.id, todos=items_to_json(self.todos.items))
        return prompt

    def compress_now(self) -> bool:
        """Summarise the middle of the conversation now (/compress); False if too short."""
        from hermes_tui.core.agent import compression

        with self._lock:
            compressed = compression.compress(self.agent.provider, self.agent.history)
            if compressed is None:
                return False
            self.agent.history = compressed
            self.agent.system_prompt = self.continue_compressed(compressed)
            return True

    def rewind_conversation(self, number: int) -> str:
        """Go on from before turn `number`: a child session holding the messages before it
        (this one stays, resumable: nothing is lost), with the checkpoints of the turns kept.
        Returns the turn's message, for the face to offer again."""
        from hermes_tui.core.agent.taint import TaintTracker

        if self.checkpoints is None:
            raise CheckpointError("this conversation keeps no checkpoints")
        with self._lock:
            turn = self.checkpoints.get(number)
            if turn.session_id != self.info.id:
                raise CheckpointError(
                    f"the conversation was compressed after turn {number}: only its files "
                    "can be restored"
                )
            kept = self.agent.history[: turn.messages]
            child = self.sessions.create(
                provider=self.info.provider,
                model=self.info.model,
                system_prompt=self.agent.system_prompt,  # byte-identical: the cache still hits
                parent_id=self.info.id,
                title=self.info.title,
            )
            for message in kept:
                self.sessions.append(child.id, message)
            if self.todos.items:  # the list stays on screen: keep it with the new session too
                self.sessions.update(child.id, todos=items_to_json(self.todos.items))
            store = CheckpointStore(self.checkpoints.root, child.id, self.checkpoints.redact)
            store.workdir = self.checkpoints.workdir
            self.checkpoints.copy_to(store, number)
            self.checkpoints = self.agent.context.file_writes = store
            self.agent.history = list(kept)
            self.info = self.sessions.get(child.id)
            self.agent.context.session_id = child.id
            # What the dropped turns read is no longer in the conversation: taint anew.
            self.agent.taint = TaintTracker()
            self.agent.taint.observe_tools(self.agent.registry)
            self.agent.taint.replay(self.agent.history, self.agent.context)
            inherited = self.sessions.taint(self.info.parent_id or "")  # before a compression
            if inherited is not None:
                self.agent.taint.absorb(inherited)
                self.sessions.set_taint(child.id, inherited)
            self._save_counters()
            return turn.text

    def undo_last_exchange(self) -> str:
        """Drop the last user message and all that followed it (replies, tool calls and
        results) from the model's history and from sessions.db; return what the user had said.

        Only the conversation changes: files a tool wrote and commands it ran stay as they are.
        Raises SessionError when this session holds no user message (a compression moved the
        earlier ones into the session it continues).
        """
        from hermes_tui.core.sessions import SessionError

        with self._lock:
            stored = self.sessions.messages(self.info.id)
            last = next((m for m in reversed(stored) if m.message.role == "user"), None)
            history = self.agent.history
            users = [i for i, message in enumerate(history) if message.role == "user"]
            if last is None or not users:
                since = " since the last compression" if self.info.parent_id else ""
                raise SessionError(f"nothing to undo{since}: no message of yours is left")
            self.sessions.truncate(self.info.id, last.id)
            self.agent.history = history[: users[-1]]
            if self.checkpoints is not None:  # no longer a turn to rewind to
                self.checkpoints.forget_last_turn(self.info.id)
            return last.message.content

    def submit(
        self, text: str, cancel: threading.Event | None = None, *, title: str | None = None
    ) -> TurnResult:
        """One user turn. `title`: the user's own words in `text` (without what a face attached:
        pastes, mentioned files), which name a session that has no title yet; default `text`."""
        from hermes_tui.core.llm.base import NoProvider, ProviderNotConfigured

        if isinstance(self.agent.provider, NoProvider):  # said before anything is recorded
            raise ProviderNotConfigured(self.agent.provider.reason)
        text = whole_characters(text)  # undecodable argv bytes arrive as lone surrogates
        with self._lock:  # one turn at a time per conversation
            if not self.info.title:
                self._name_after(whole_characters(text if title is None else title))
            if self.checkpoints is not None:
                self.checkpoints.begin_turn(text, len(self.agent.history), self.info.id)
            self.agent.context.viewed_skills.clear()
            if self.pending_note:
                text, self.pending_note = f"{self.pending_note}\n\n{text}", ""
            result = self.agent.run_turn(text, cancel)
            due = self.nudges.end_turn(answered=result.answered, interrupted=result.interrupted)
            self._save_counters()
            self.agent.sink(self.nudges.snapshot())
            self._record_outcomes(result)
            if due.any and self.reviewer is not None:
                self.reviewer.start(self, due)
            return result

    def _name_after(self, words: str) -> None:
        """Title an untitled session from the user's words, before anything is added to them (the
        output of their `!commands`, a personality note): the store titles an untitled session
        from its first message, which holds those too."""
        self.info = self.sessions.get(self.info.id)  # a face may have named it (/title)
        title = title_of(self.sessions.redact(words))
        if title and not self.info.title:
            self.sessions.update(self.info.id, title=title)
            self.info = self.sessions.get(self.info.id)

    def gate_file_write(self, path: Path, text: str) -> dict[str, Any] | None:
        """What the write gate says of a face writing `text` to `path` for the agent (/init's
        AGENTS.md, judged as the agent's write_file would be): None to write it; otherwise
        the answer (staged in pending/, or refused with the reason) and nothing is written."""
        agent = self.agent
        if agent.gate is None:
            return None
        arguments = {"path": str(path), "content": text}
        held = agent.gate.check_file_write("write_file", arguments, agent.context, agent.taint)
        if held is None:
            return None
        result, record = held
        if record is not None:
            agent.held.append(record)
        return result

    def run_shell(self, command: str, cancel: threading.Event | None = None) -> bool:
        """The user's `!command` (Agent.run_user_command), never beside a running turn."""
        with self._lock:
            return self.agent.run_user_command(command, cancel)

    def _save_counters(self) -> None:
        self.sessions.update(
            self.info.id, nudge_memory=self.nudges.memory, nudge_skills=self.nudges.skills
        )

    def _record_outcomes(self, result: TurnResult) -> None:
        """Each skill loaded in the turn: a failure if tool errors followed it or the provider failed.

        A turn the user cancelled says nothing about the skill, so it records no outcome.
        """
        if result.interrupted:
            return
        for name in result.viewed_skills:
            if self.skills.get(name) is None:
                continue
            failed = result.error is not None or name in result.failed_after_view
            self.skills.usage.record_outcome(name, success=not failed)
