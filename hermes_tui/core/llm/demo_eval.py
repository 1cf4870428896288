"""The scripted model's eval mode: it plays an eval suite's tasks offline, and what it does
depends on what it is given, so the runner, the arms and the statistics can be checked in CI.

Each task it knows comes with two ways to do it (from the family's `scripted:` block): the
unaware way walks into the family's trap and recovers (more calls, tool errors); the aware way
goes straight there. Per model call it reads the conversation and picks:
- the task's skill listed in the system prompt's skills index: load it (skill_view), then aware;
- the task's marker in the system prompt (a memory entry) or in the user's message: aware;
- otherwise: unaware, one command per call, then a final answer.
In a background review it saves the task's lesson to memory (or the user profile) and creates
the task's skill, unless the system prompt shows they are already there.
`reads_prompt=False` is the prompt-ignoring variant: it never looks at the system prompt, so
nothing it learned can change what it does (the runner's null hypothesis).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

from hermes_tui.core.llm.base import (
    StreamEnd,
    StreamEvent,
    TextChunk,
    ToolCallReady,
    Usage,
    UsageReport,
)
from hermes_tui.core.messages import Message, ToolCall

REVIEW_MARK = "[Background review]"


@dataclass(frozen=True)
class ScriptedPlay:
    """How the scripted model plays a task (an eval family's `scripted:` block)."""

    marker: str
    lesson: str
    unaware: tuple[str, ...]
    aware: tuple[str, ...]
    lesson_target: str = "memory"
    skill_name: str | None = None
    skill_description: str = ""


@dataclass(frozen=True, kw_only=True)
class ScriptedTask(ScriptedPlay):
    """One rendered task (a family's variation) as the scripted model knows it."""

    prompt: str

    @classmethod
    def playing(cls, play: ScriptedPlay, prompt: str) -> ScriptedTask:
        return cls(prompt=prompt, **{f.name: getattr(play, f.name) for f in fields(play)})

    def skill_text(self) -> str:
        steps = "\n".join(f"{n}. `{command}`" for n, command in enumerate(self.aware, 1))
        return (
            f"---\nname: {self.skill_name}\ndescription: {self.skill_description}\n"
            "metadata:\n  hermes:\n    tags:\n      - eval\n---\n\n"
            f"# {self.skill_name}\n\n{self.lesson}\n\n"
            f"What worked last time (use this task's names):\n\n{steps}\n"
        )


def _turn(messages: Sequence[Message]) -> tuple[int, str]:
    """Where the last user message is, and its text."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index, messages[index].content
    return -1, ""


class EvalScriptedProvider:
    name = "scripted"
    base_url = None

    def __init__(
        self, tasks: Sequence[ScriptedTask], *, reads_prompt: bool = True, model: str = ""
    ) -> None:
        self.tasks = {task.prompt.strip(): task for task in tasks}
        self.reads_prompt = reads_prompt
        self.model = model or ("scripted-eval" if reads_prompt else "scripted-eval-ignorant")
        self._counter = 0

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        text, calls = self.decide(system, messages)
        yield TextChunk(text)
        for name, arguments in calls:
            self._counter += 1
            yield ToolCallReady(ToolCall(f"eval_{self._counter}", name, json.dumps(arguments)))
        prompt_chars = len(system) + sum(len(m.content) for m in messages)
        usage = Usage(prompt_chars // 4, len(text) // 4 + 20 * len(calls), len(system) // 4)
        yield UsageReport(usage)
        yield StreamEnd("tool_calls" if calls else "stop")

    def decide(
        self, system: str, messages: Sequence[Message]
    ) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        """The next reply: its text and tool calls (name, arguments)."""
        seen = system if self.reads_prompt else ""
        start, text = _turn(messages)
        if text.startswith(REVIEW_MARK):
            task = self._task_in(messages[:start])
            steps = sum(1 for m in messages[start + 1 :] if m.role == "assistant")
            return self._review(task, text, seen, steps)
        task = self.tasks.get(text.strip())
        if task is None:
            return ("(scripted) I only know the tasks of the eval suite I was given.", [])
        done = sum(1 for m in messages[start + 1 :] if m.role == "assistant")
        plan: list[tuple[str, dict[str, Any]]]
        if task.skill_name and f"- {task.skill_name}:" in seen:
            plan = [("skill_view", {"name": task.skill_name})]
            plan += [("terminal", {"command": c}) for c in task.aware]
            how = f"following my skill {task.skill_name}"
        elif task.marker in seen or task.marker in text:
            plan = [("terminal", {"command": c}) for c in task.aware]
            how = "as I remember it should be done"
        else:
            plan = [("terminal", {"command": c}) for c in task.unaware]
            how = "finding my way"
        if done < len(plan):
            return (f"(scripted) Step {done + 1}, {how}.\n", [plan[done]])
        return (f"(scripted) Done, {how}.", [])

    def _task_in(self, messages: Sequence[Message]) -> ScriptedTask | None:
        for message in messages:
            if message.role == "user" and message.content.strip() in self.tasks:
                return self.tasks[message.content.strip()]
        return None

    @staticmethod
    def _review(
        task: ScriptedTask | None, prompt: str, seen: str, steps: int
    ) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        plan: list[tuple[str, dict[str, Any]]] = []
        if task is not None:
            if "Memory:" in prompt and task.marker not in seen:
                plan.append(
                    (
                        "memory",
                        {"action": "add", "target": task.lesson_target, "content": task.lesson},
                    )
                )
            if "Skills:" in prompt and task.skill_name and f"- {task.skill_name}:" not in seen:
                plan.append(
                    (
                        "skill_manage",
                        {
                            "action": "create",
                            "name": task.skill_name,
                            "category": "eval",
                            "content": task.skill_text(),
                        },
                    )
                )
        if steps < len(plan):
            return ("", [plan[steps]])
        return ("Saved what this run taught me." if plan else "Nothing to save.", [])
