"""The agent loop's own cost per tool iteration, against a zero-latency provider.

A scripted in-process provider asks for a trivial tool N times, then answers. The baseline
does the same provider calls and tool calls in a bare loop; the difference per iteration is
what the loop adds (events, guardrails, JSON, SQLite persistence). Target: under 5 ms.
Run: `.venv/bin/python bench/turn_overhead.py`.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from hermes_tui.core.agent.loop import Agent, AgentSettings
from hermes_tui.core.llm.base import StreamEnd, TextChunk, ToolCallReady, Usage, UsageReport
from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.core.sessions import SessionStore
from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry

ITERATIONS = 200


class Scripted:
    name, model, base_url = "bench", "bench", None

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def stream(self, system, messages, tools):
        done = sum(1 for m in messages if m.role == "tool")
        yield TextChunk("working ")
        if done < self.calls:
            yield ToolCallReady(ToolCall(f"c{done}", "noop", json.dumps({"n": done})))
        yield UsageReport(Usage(10, 2))
        yield StreamEnd("tool_calls" if done < self.calls else "stop")


NOOP = Tool(
    "noop",
    "bench",
    "does nothing",
    {"type": "object", "properties": {"n": {"type": "integer"}}},
    lambda args, ctx: {"success": True, "n": args.get("n")},
)


def with_agent(store: SessionStore) -> float:
    session = store.create(provider="bench", model="bench", system_prompt="S")
    agent = Agent(
        provider=Scripted(ITERATIONS),
        registry=ToolRegistry([NOOP]),
        system_prompt="S",
        history=[],
        context=ToolContext(),
        settings=AgentSettings(max_turns=ITERATIONS + 5),
        sink=lambda e: None,
        persist=lambda m: store.append(session.id, m),
    )
    start = time.perf_counter()
    agent.run_turn("go")
    return (time.perf_counter() - start) / ITERATIONS


def bare() -> float:
    provider, registry, context = Scripted(ITERATIONS), ToolRegistry([NOOP]), ToolContext()
    history: list[Message] = [Message("user", "go")]
    start = time.perf_counter()
    while True:
        calls = [e.call for e in provider.stream("S", history, []) if isinstance(e, ToolCallReady)]
        if not calls:
            break
        history.append(Message("assistant", "working ", tuple(calls)))
        for call in calls:
            history.append(
                Message(
                    "tool",
                    str(registry.call(call.name, call.arguments, context)),
                    tool_call_id=call.id,
                )
            )
    return (time.perf_counter() - start) / ITERATIONS


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "sessions.db")
        agent = statistics.median(with_agent(store) for _ in range(5))
    baseline = statistics.median(bare() for _ in range(5))
    overhead = agent - baseline
    print(f"bare loop per iteration     {baseline * 1000:7.3f} ms")
    print(f"agent loop per iteration    {agent * 1000:7.3f} ms   ratio {agent / baseline:6.1f}x")
    print(f"loop overhead per iteration {overhead * 1000:7.3f} ms   (target < 5 ms)")


if __name__ == "__main__":
    main()
