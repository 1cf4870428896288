"""The demo provider: a scripted model that shows the agent learning, with no API key.

It drives the real loop, tools, stores, nudges and background review through one recurring
task in a sandbox directory (find the calls to a deprecated function and write a report):
- run 1 knows nothing: it explores, runs a grep in the wrong folder (an error), recovers and
  writes the report; the review that follows saves a memory fact and creates a skill;
- run 2 loads the skill and does it in three calls with no error; its review patches the skill
  to do the count and the report in one command;
- run 3 follows the patched skill: two calls.
Everything it says is labelled as the demo. Its decisions read only the conversation, so it
behaves the same in the TUI, in `chat -q` and in tests.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_tui.core.llm.base import (
    StreamEnd,
    StreamEvent,
    TextChunk,
    ToolCallReady,
    Usage,
    UsageReport,
)
from hermes_tui.core.llm.ping import PING_PROMPT, PING_TOOL
from hermes_tui.core.messages import Message, ToolCall

SKILL_NAME = "deprecated-calls-report"
TASK = "Find the calls to the deprecated old_api() in this project and write a report."
MEMORY_FACT = (
    "Demo sandbox: the source code lives under app/ (there is no src/); reports go in report.md."
)
COUNT_COMMAND = "grep -rn 'old_api(' app/ | wc -l"
ONE_SHOT = (
    "{ echo '# Deprecated calls'; grep -rn 'old_api(' app/ | sed 's/^/- /'; echo; "
    "echo \"Total: $(grep -rn 'old_api(' app/ | wc -l)\"; } > report.md && cat report.md"
)

SKILL_V1 = f"""---
name: {SKILL_NAME}
description: Find calls to a deprecated function and list them in report.md with a total.
metadata:
  hermes:
    tags:
      - demo
      - reporting
---

# Deprecated calls report

1. The code is under `app/` (not `src/`).
2. Count: `{COUNT_COMMAND}`
3. List them with `grep -rn 'old_api(' app/` and write `report.md` with a heading, one line
   per call and the total.
"""

SANDBOX_FILES = {
    "app/main.py": "from lib.legacy import old_api\n\ndef main():\n    old_api('start')\n",
    "app/storage.py": "from lib.legacy import old_api, new_api\n\ndef save(data):\n    old_api(data)\n    new_api(data)\n",
    "app/web/routes.py": "from lib.legacy import old_api\n\nROUTES = {'/': lambda: old_api('home')}\n",
    "lib/legacy.py": "def old_api(*args):\n    return new_api(*args)\n\ndef new_api(*args):\n    return args\n",
    "README.md": "# Demo project\n\nA tiny project for the hermes-tui demo. Its code is in app/.\n",
}


def ensure_sandbox(directory: Path) -> Path:
    """Create the demo project (once); the demo works only inside it."""
    for relative, text in SANDBOX_FILES.items():
        path = directory / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return directory


def _turn(messages: list[Message]) -> tuple[str, list[Message]]:
    """The last user text and the messages after it."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index].content, messages[index + 1 :]
    return "", []


def _results(after: list[Message]) -> list[dict[str, Any]]:
    out = []
    for message in after:
        if message.role == "tool":
            try:
                out.append(json.loads(message.content))
            except json.JSONDecodeError:
                out.append({})
    return out


class DemoProvider:
    name = "demo"
    base_url = None

    def __init__(self, model: str = "hermes-demo", delay: float = 0.0) -> None:
        self.model = model
        self.delay = delay
        self._counter = 0

    def stream(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]]
    ) -> Iterator[StreamEvent]:
        text, calls = self._decide(system, messages)
        for start in range(0, len(text), 6):
            if self.delay:
                time.sleep(self.delay)
            yield TextChunk(text[start : start + 6])
        for name, arguments in calls:
            self._counter += 1
            yield ToolCallReady(ToolCall(f"demo_{self._counter}", name, json.dumps(arguments)))
        prompt_chars = len(system) + sum(len(m.content) for m in messages)
        yield UsageReport(
            Usage(
                prompt_chars // 4, len(text) // 4 + 10 * len(calls), cached_tokens=len(system) // 4
            )
        )
        yield StreamEnd("tool_calls" if calls else "stop")

    def _decide(
        self, system: str, messages: list[Message]
    ) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        user_text, after = _turn(messages)
        results = _results(after)
        if user_text == PING_PROMPT and not after:
            # `doctor --ping` and the model picker's check: it follows the instruction as a
            # model with tool calling does.
            return ("", [(PING_TOOL, {"status": "pong"})])
        if user_text.startswith("[Background review]"):
            step = sum(1 for m in after if m.role == "assistant")
            return self._review(user_text, step, results)
        if "old_api" not in user_text.lower() and "deprecated" not in user_text.lower():
            return (
                "(demo) I am the scripted demo model, so I only know one task. Type: "
                f'"{TASK}" and send it three times to watch me learn. Set a real provider '
                "to chat about anything else.",
                [],
            )
        listed = next((r for r in results if "skills" in r), None)
        if f"- {SKILL_NAME}:" not in system and listed is None:
            return ("(demo) Checking my saved skills first.\n", [("skills_list", {})])
        known = f"- {SKILL_NAME}:" in system or any(
            s.get("name") == SKILL_NAME for s in (listed or {}).get("skills", [])
        )
        done = _Progress(after, results)
        return self._with_skill(done) if known else self._first_time(done)

    @staticmethod
    def _first_time(done: _Progress) -> tuple[str, list]:
        if not done.ran("ls"):
            return (
                "(demo) No skill for this yet. Let me look around first.\n",
                [("terminal", {"command": "ls"})],
            )
        if not done.ran("src/"):
            return (
                "Code is usually in src/, let me search there.\n",
                [("terminal", {"command": "grep -rn 'old_api(' src/"})],
            )
        if not done.ran(COUNT_COMMAND):
            return (
                "No src/ here. The files are under app/, so I will count there.\n",
                [("terminal", {"command": COUNT_COMMAND})],
            )
        if not done.ran(ONE_SHOT):
            return ("Now the report.\n", [("terminal", {"command": ONE_SHOT})])
        return (
            f"(demo) Done: report.md lists {done.count()} calls. That took some trial and "
            "error; the background review will decide what is worth remembering.",
            [],
        )

    @staticmethod
    def _with_skill(done: _Progress) -> tuple[str, list]:
        skill = next((r for r in done.results if "content" in r and "linked_files" in r), None)
        if skill is None:
            return (
                f"(demo) I have a skill for this: loading {SKILL_NAME}.\n",
                [("skill_view", {"name": SKILL_NAME})],
            )
        one_shot = "one command" in skill.get("content", "")
        if not one_shot and not done.ran(COUNT_COMMAND):
            return (
                "Following the skill: count under app/.\n",
                [("terminal", {"command": COUNT_COMMAND})],
            )
        if not done.ran(ONE_SHOT):
            text = (
                "The skill says one command does it all.\n" if one_shot else "Writing the report.\n"
            )
            return (text, [("terminal", {"command": ONE_SHOT})])
        return (
            f"(demo) Done with the skill, no detours: report.md lists {done.count()} calls.",
            [],
        )

    @staticmethod
    def _review(prompt: str, step: int, results: list[dict[str, Any]]) -> tuple[str, list]:
        wants_memory = "Memory:" in prompt
        wants_skills = "Skills:" in prompt
        plan: list[tuple[str, list]] = []
        if wants_memory:
            plan.append(
                ("", [("memory", {"action": "add", "target": "memory", "content": MEMORY_FACT})])
            )
        if wants_skills:
            plan.append(("", [("skills_list", {})]))
        if step < len(plan):
            return plan[step]
        if wants_skills:
            listed = next((r for r in results if "skills" in r), None)
            exists = bool(listed) and any(
                s.get("name") == SKILL_NAME for s in listed.get("skills", [])
            )
            viewed = next(
                (r for r in results if r.get("name") == SKILL_NAME and "content" in r), None
            )
            acted = any(r.get("action") in ("create", "patch") for r in results)
            if not exists and not acted:
                return (
                    "",
                    [
                        (
                            "skill_manage",
                            {
                                "action": "create",
                                "name": SKILL_NAME,
                                "category": "demo",
                                "content": SKILL_V1,
                            },
                        )
                    ],
                )
            if exists and viewed is None and not acted:
                return ("", [("skill_view", {"name": SKILL_NAME})])
            if viewed is not None and "one command" not in viewed.get("content", "") and not acted:
                return (
                    "",
                    [
                        (
                            "skill_manage",
                            {
                                "action": "patch",
                                "name": SKILL_NAME,
                                "old_string": "3. List them with `grep -rn 'old_api(' app/` and write `report.md` with a heading, one line\n   per call and the total.",
                                "new_string": f"3. Faster: one command writes the whole report:\n   `{ONE_SHOT}`",
                            },
                        )
                    ],
                )
        changed = [r for r in results if r.get("success") and (r.get("action") or r.get("target"))]
        return ("(demo) Saved what this run taught me." if changed else "Nothing to save.", [])


class _Progress:
    """What the current turn has done so far, read from its tool calls and results."""

    def __init__(self, after: list[Message], results: list[dict[str, Any]]) -> None:
        self.commands = [
            call.parsed_arguments() or {}
            for m in after
            if m.role == "assistant"
            for call in m.tool_calls
        ]
        self.results = results

    def ran(self, needle: str) -> bool:
        return any(needle in str(args.get("command", "")) for args in self.commands)

    def count(self) -> str:
        for result in reversed(self.results):
            output = str(result.get("output", "")).strip()
            if output.startswith("# Deprecated calls") and "Total:" in output:
                return output.rsplit("Total:", 1)[1].strip()
            if output.isdigit():
                return output
        return "the"
