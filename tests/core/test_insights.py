"""Insights from a home built by hand: every figure is what the fixture says, counted by hand."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import run_main, skill_text

from hermes_tui.core.agent.review import ReviewChange, ReviewRecord
from hermes_tui.core.insights import DAY, sparkline
from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.runtime import Runtime


def _call(name: str, args: dict) -> ToolCall:
    return ToolCall(f"c{time.monotonic_ns()}", name, json.dumps(args))


def _tool(ok: bool) -> Message:
    return Message("tool", json.dumps({"success": ok}), tool_call_id="x", tool_name="t")


def build_home(home: Path) -> Runtime:
    # No provider: the stores need none (a demo runtime would live in its own home).
    runtime = Runtime.open(home, environ={})
    sessions = runtime.sessions
    # Session 1: two turns, three tool calls, two of them failed, loads "deploy".
    one = sessions.create(provider="demo", model="m", system_prompt="s")
    sessions.update(one.id, title="deploy the api")
    for message in (
        Message("user", "deploy"),
        Message("assistant", "", tool_calls=(_call("skill_view", {"name": "deploy"}),)),
        _tool(True),
        Message("assistant", "", tool_calls=(_call("terminal", {"command": "make"}),)),
        _tool(False),
        Message("assistant", "done"),
        Message("user", "again"),
        Message("assistant", "", tool_calls=(_call("terminal", {"command": "make"}),)),
        _tool(False),
        Message("assistant", "failed"),
    ):
        sessions.append(one.id, message)
    # Session 2: one turn, one successful call.
    two = sessions.create(provider="demo", model="m", system_prompt="s")
    sessions.update(two.id, title="deploy again")
    for message in (
        Message("user", "deploy"),
        Message("assistant", "", tool_calls=(_call("skill_view", {"name": "deploy"}),)),
        _tool(True),
        Message("assistant", "ok"),
    ):
        sessions.append(two.id, message)

    skills = runtime.skills
    skills.create("deploy", skill_text("deploy"), category="ops", origin="review")
    skills.patch("deploy", "1. Do it.", "1. Do it carefully.", origin="review")
    skills.patch("deploy", "carefully.", "carefully, then check.", origin="review")
    for success in (True, True, False):
        skills.usage.record_outcome("deploy", success)
    skills.usage.update("deploy", lambda r: r.update(use_count=5))
    runtime.memory.add("memory", "The api deploys with make deploy.", origin="review")
    runtime.memory.add("memory", "Staging is at staging.internal.", origin="agent")
    runtime.audit.record(
        origin="curator", kind="skill", action="mark_stale", target="old", before=None, after=None
    )
    store = runtime.reviews
    store.save(
        ReviewRecord(
            "r1",
            one.id,
            "combined",
            time.time(),
            time.time(),
            "done",
            changes=[ReviewChange("skill", "deploy", "patch", "a", "b")],
        )
    )
    store.save(ReviewRecord("r2", two.id, "memory", time.time(), time.time(), "failed"))
    store.save(ReviewRecord("r0", one.id, "memory", time.time() - 40 * DAY, None, "done"))
    return runtime


def test_every_figure_is_counted_from_what_was_recorded(home: Path) -> None:
    runtime = build_home(home)
    insights = runtime.insights(30)
    assert insights.totals == {"sessions": 2, "turns": 3, "tool_calls": 4, "tool_errors": 2}
    one, two = insights.sessions
    assert (one.title, one.turns, one.tool_calls, one.tool_errors) == ("deploy the api", 2, 3, 2)
    assert one.skills_loaded == ("deploy",) and two.skills_loaded == ("deploy",)
    deploy = next(s for s in insights.skills if s.name == "deploy")
    assert (deploy.provenance, deploy.uses, deploy.patches) == ("agent", 5, 2)
    assert deploy.success_rate == 2 / 3
    assert deploy.patches_per_day[-1] == 2 and sum(deploy.patches_per_day) == 2
    first_fact = len("The api deploys with make deploy.")
    both = first_fact + len("\n§\n") + len("Staging is at staging.internal.")
    assert insights.memory_fill == {"memory": (first_fact, both), "user": ()}
    assert insights.reviews == {"reviews": 2, "done": 1, "failed": 1, "changes": 1}
    assert insights.curator == {"mark_stale": 1}
    assert insights.learned_by == {
        "agent": 1,
        "curator": 1,
        "review": 4,
    }  # create, 2 patches, 1 memory


def test_insights_json_from_the_cli_matches(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_home(home)
    done = run_main(capsys, home, "insights", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["totals"] == {"sessions": 2, "turns": 3, "tool_calls": 4, "tool_errors": 2}
    deploy = next(s for s in data["skills"] if s["name"] == "deploy")
    assert deploy["success_rate"] == 2 / 3 and deploy["patches"] == 2
    text = run_main(capsys, home, "insights", "--days", "7").stdout
    assert text.startswith("Last 7 days: 2 sessions, 3 turns, 4 tool calls, 2 tool errors")
    assert "Reviews: 2 (1 done, 1 failed), 1 change" in text


def test_a_window_leaves_older_records_out(home: Path) -> None:
    runtime = build_home(home)
    later = runtime.insights(1, now=time.time() + 3 * DAY)
    assert later.totals["sessions"] == 0 and later.reviews["reviews"] == 0


def test_sparklines_scale_to_the_largest_value_or_a_given_top() -> None:
    assert sparkline([0, 1, 2, 4]) == "▁▃▅█"
    assert sparkline([1100, 2200], top=2200) == "▅█"
    assert sparkline([0, 0]) == "▁▁"


def test_a_skill_created_in_the_window_is_shown_before_its_first_use(home: Path) -> None:
    from hermes_tui.core.insights import render_text

    runtime = Runtime.open(home, environ={})
    runtime.skills.create("fresh-one", skill_text("fresh-one"), origin="review")
    insights = runtime.insights(30)
    (fresh,) = [s for s in insights.skills if s.name == "fresh-one"]
    assert fresh.created_in_window and fresh.uses == 0
    assert "fresh-one" in render_text(insights)
