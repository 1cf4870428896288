"""Specification of the nudge counters."""

from __future__ import annotations

from hermes_tui.core.agent.nudges import NudgeEngine


def test_memory_counts_user_turns_and_skills_count_model_calls() -> None:
    nudges = NudgeEngine(memory_interval=2, skills_interval=3)
    nudges.on_user_turn()
    for _ in range(2):
        nudges.on_model_call()
    assert (nudges.memory, nudges.skills) == (1, 2)
    assert not nudges.end_turn(answered=True, interrupted=False).any
    nudges.on_user_turn()
    nudges.on_model_call()
    due = nudges.end_turn(answered=True, interrupted=False)
    assert due.memory and due.skills and due.kind == "combined"
    assert (nudges.memory, nudges.skills) == (0, 0)


def test_a_successful_write_resets_its_counter_only() -> None:
    nudges = NudgeEngine(10, 10, memory=5, skills=5)
    nudges.on_tool_result("memory", ok=True)
    nudges.on_tool_result("skill_manage", ok=False)
    assert (nudges.memory, nudges.skills) == (0, 5)
    nudges.on_tool_result("skill_manage", ok=True)
    assert nudges.skills == 0


def test_no_review_after_an_interrupted_or_failed_turn_and_zero_disables() -> None:
    nudges = NudgeEngine(1, 0)
    nudges.on_user_turn()
    nudges.on_model_call()
    assert not nudges.end_turn(answered=True, interrupted=True).any
    assert nudges.memory == 1, "the counter waits for a turn that ends properly"
    assert nudges.skills == 0, "interval 0 turns the skill counter off"
    assert nudges.end_turn(answered=True, interrupted=False).kind == "memory"
