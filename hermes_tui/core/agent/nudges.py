"""The nudge engine: counters that decide when a background review looks back at the session.

Hermes semantics: the memory counter goes up once per user turn, the skill counter once per
model call inside the tool loop; a successful `memory` / `skill_manage` call resets its
counter; at the end of a turn that produced a final answer and was not interrupted, a counter
at its interval fires a review and starts again. An interval of 0 turns a counter off.

Ours beyond Hermes: a counter stops at its interval (reaching it is what matters, and the
screen never reads `4/1`), and a turn the user cancelled counts for nothing: what it added to the
counters is taken back, so a cancel neither brings a review closer nor fires one.
"""

from __future__ import annotations

from hermes_tui.core.events import NudgeCounters
from hermes_tui.core.records import datarecord


@datarecord
class Due:
    """Which reviews a finished turn has made due."""

    memory: bool
    skills: bool

    @property
    def any(self) -> bool:
        return self.memory or self.skills

    @property
    def kind(self) -> str:
        return "combined" if self.memory and self.skills else "memory" if self.memory else "skills"


class NudgeEngine:
    def __init__(
        self, memory_interval: int, skills_interval: int, memory: int = 0, skills: int = 0
    ) -> None:
        self.memory_interval = memory_interval
        self.skills_interval = skills_interval
        self.memory = min(memory, memory_interval) if memory_interval else memory
        self.skills = min(skills, skills_interval) if skills_interval else skills
        self._turn_memory = 0  # what the running turn added, taken back if it is cancelled
        self._turn_skills = 0

    def snapshot(self) -> NudgeCounters:
        return NudgeCounters(self.memory, self.memory_interval, self.skills, self.skills_interval)

    def on_user_turn(self) -> None:
        self._turn_memory = self._turn_skills = 0
        if self.memory_interval and self.memory < self.memory_interval:
            self.memory += 1
            self._turn_memory += 1

    def on_model_call(self) -> None:
        if self.skills_interval and self.skills < self.skills_interval:
            self.skills += 1
            self._turn_skills += 1

    def on_tool_result(self, name: str, ok: bool) -> None:
        if not ok:
            return
        if name == "memory":
            self.memory = self._turn_memory = 0
        elif name == "skill_manage":
            self.skills = self._turn_skills = 0

    def end_turn(self, *, answered: bool, interrupted: bool) -> Due:
        if interrupted:
            self.memory -= self._turn_memory
            self.skills -= self._turn_skills
        self._turn_memory = self._turn_skills = 0
        if not answered or interrupted:
            return Due(False, False)
        due = Due(
            bool(self.memory_interval) and self.memory >= self.memory_interval,
            bool(self.skills_interval) and self.skills >= self.skills_interval,
        )
        if due.memory:
            self.memory = 0
        if due.skills:
            self.skills = 0
        return due
