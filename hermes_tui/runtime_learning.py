"""The Runtime's learning side: held writes, the curator and insights (runtime.py composes them).

A mixin of `Runtime`: it builds from what the runtime already holds (config, stores, provider)
and constructs nothing the composition root does not know of.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.memory import join_entries
from hermes_tui.core.pending import PendingWrite

if TYPE_CHECKING:
    from hermes_tui.core.agent.review import ReviewManager
    from hermes_tui.core.agent.session import Due, Reviewer, Session
    from hermes_tui.core.agent.taint import WriteGate
    from hermes_tui.core.insights import Insights
    from hermes_tui.core.skills.curator import Curator, CuratorReport
    from hermes_tui.core.skills.schedule import CuratorPolicy

log = logging.getLogger("hermes_tui.runtime")


class _ReviewerWhenDue:
    """A session's `Reviewer` that asks the runtime for its review manager on the first review."""

    def __init__(self, manager: Callable[[], ReviewManager]) -> None:
        self._manager = manager

    def start(self, session: Session, due: Due) -> None:
        self._manager().start(session, due)


class LearningParts:
    config: Any
    memory: Any
    skills: Any
    pending: Any
    scanner: Any
    sink: Any
    audit: Any
    started_at: float
    _last_activity: tuple[float | None] | None
    _provider: Any

    def use_provider(self, provider: Any) -> None:
        """Talk to `provider` instead of the configured one (the eval's scripted model)."""
        self._provider = provider

    def write_gate(self) -> WriteGate:
        """Holds tainted memory and skill writes (and ones the scanner holds) for approval."""
        from hermes_tui.core.agent.taint import WriteGate

        return WriteGate(
            memory=self.memory,
            skills=self.skills,
            pending=self.pending,
            scanner=self.scanner,
            sink=self.sink,
        )

    def session_reviewer(self) -> Reviewer:
        """A session's reviewer: the review manager (`reviewer()`) is made when the session's
        first review is due, so a turn that starts none never imports it."""
        return _ReviewerWhenDue(self.reviewer)  # type: ignore[attr-defined]

    def pending_target_text(self, record: PendingWrite) -> str | None:
        """The staged write's target as it is now (to check it did not change meanwhile)."""
        if record.kind == "memory":
            return join_entries(self.memory.entries(record.target))  # type: ignore[arg-type]
        if record.kind == "file":  # an instruction file (AGENTS.md...): its path
            try:
                return Path(record.target).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
        skill = self.skills.get(record.target)
        if skill is None:
            return None
        file_path = record.arguments.get("file_path")
        path = (
            skill.directory / file_path
            if file_path and record.action != "delete"
            else skill.skill_md
        )
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def approve_pending(self, pending_id: str) -> PendingWrite:
        """Apply a held write: the record applied, or PendingError (PendingRefused when the
        store refuses the replayed write, with the store's reason)."""
        from hermes_tui.core.pending import PendingRefused
        from hermes_tui.core.tools.registry import ToolContext

        registry = self.tool_registry()

        def apply(record: PendingWrite) -> None:
            tool = registry.get(record.tool)
            assert tool is not None, record.tool
            # Replayed as whoever made it (the agent, a review) but past the gate: the user's
            # approval is what the gate was waiting for.
            origin = record.origin if record.origin in ("agent", "review", "curator") else "review"
            context = ToolContext(origin=origin, viewed_skills={record.target})
            if record.workdir:  # a file write: the path policy judges it where it was made
                context.cwd = context.workdir = Path(record.workdir)
            # The replayed call answers as it would answer the model; its refusal is the error.
            result = tool.handler(dict(record.arguments), context)
            if not result.get("success"):
                raise PendingRefused(str(result.get("error") or "the write was refused"))

        return self.pending.approve(pending_id, self.pending_target_text, apply)

    def insights(self, days: int = 30, now: float | None = None) -> Insights:
        """What the agent did and learned over the last `days` (from what is already recorded)."""
        from hermes_tui.core.insights import compute

        return compute(
            sessions=self.catalog.as_source(),  # Hermes sessions included
            library=self.skills,
            audit=self.audit,
            reviews=self.reviews,
            memory_limits={
                "memory": self.config.memory.memory_char_limit,
                "user": self.config.memory.user_char_limit,
            },
            days=days,
            now=now,
        )

    def curator_policy(self) -> CuratorPolicy:
        from hermes_tui.core.skills.schedule import CuratorPolicy

        settings = self.config.curator
        return CuratorPolicy(
            enabled=settings.enabled,
            interval_hours=settings.interval_hours,
            min_idle_hours=settings.min_idle_hours,
            stale_after_days=settings.stale_after_days,
            archive_after_days=settings.archive_after_days,
            consolidate=settings.consolidate,
            backup_enabled=settings.backup[0],
            backup_keep=settings.backup[1],
        )

    def curator_due(self, clock: Callable[[], float] = time.time) -> bool:
        """Whether a scheduled curator pass is due; the curator itself is imported only to run."""
        from hermes_tui.core.skills.schedule import STATE_FILE, due

        state = self.skills.skills_dir / STATE_FILE
        return due(self.curator_policy(), state, clock, self._activity_before_start)

    def curator(self, clock: Callable[[], float] = time.time) -> Curator:
        from hermes_tui.core.skills.curator import Curator

        return Curator(
            self.skills,
            self.home,
            self.curator_policy(),
            clock=clock,
            sink=self.sink,
            last_activity=self._activity_before_start,
        )

    def _activity_before_start(self) -> float | None:
        """When a session was last used before this process started (for min_idle_hours)."""
        if self._last_activity is None:
            try:
                self._last_activity = (self.sessions.last_activity(before=self.started_at),)
            except Exception as exc:  # a locked or damaged database must not stop the curator
                log.warning("could not read the last session activity: %s", exc)
                self._last_activity = (None,)
        return self._last_activity[0]

    def run_curator(
        self,
        *,
        dry_run: bool = False,
        consolidate: bool | None = None,
        clock: Callable[[], float] = time.time,
    ) -> CuratorReport:
        """One curator pass; the model consolidation runs when asked or set in config."""
        from hermes_tui.core.skills.curator import CuratorAction

        wants_model = self.config.curator.consolidate if consolidate is None else consolidate
        merge = None
        if consolidate and not dry_run:
            self.provider()  # asked for by name: no model is an error, not a silent skip
        if wants_model and not dry_run:

            def merge(names: list[str]) -> list[CuratorAction]:
                changes = self.reviewer().consolidate(names, Path.cwd())
                return [
                    CuratorAction(c.target, "consolidate", f"{c.action} by the model")
                    for c in changes
                ]

        return self.curator(clock).run(dry_run=dry_run, consolidate=merge)
