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


def test_no_review_after_a_failed_turn_and_zero_disables() -> None:
    nudges = NudgeEngine(1, 0)
    nudges.on_user_turn()
    nudges.on_model_call()
    assert not nudges.end_turn(answered=False, interrupted=False).any
    assert nudges.memory == 1, "the counter waits for a turn that ends properly"
    assert nudges.skills == 0, "interval 0 turns the skill counter off"
    assert nudges.end_turn(answered=True, interrupted=False).kind == "memory"


def test_counters_stop_at_their_interval() -> None:
    nudges = NudgeEngine(memory_interval=2, skills_interval=1, memory=7, skills=3)
    assert (nudges.memory, nudges.skills) == (2, 1), "a saved counter past its interval is capped"
    nudges.on_user_turn()
    for _ in range(4):
        nudges.on_model_call()
    assert nudges.snapshot().skills == 1 and nudges.snapshot().memory == 2
    assert nudges.end_turn(answered=True, interrupted=False).kind == "combined"


def test_a_cancelled_turn_counts_for_nothing() -> None:
    nudges = NudgeEngine(memory_interval=3, skills_interval=5, memory=1, skills=2)
    nudges.on_user_turn()
    nudges.on_model_call()
    nudges.on_model_call()
    assert (nudges.memory, nudges.skills) == (2, 4)
    assert not nudges.end_turn(answered=True, interrupted=True).any
    assert (nudges.memory, nudges.skills) == (1, 2), "back to where the turn found them"


def test_a_cancelled_turn_that_wrote_memory_keeps_the_reset() -> None:
    nudges = NudgeEngine(memory_interval=3, skills_interval=5, memory=2, skills=2)
    nudges.on_user_turn()
    nudges.on_model_call()
    nudges.on_tool_result("memory", ok=True)
    nudges.on_model_call()
    nudges.end_turn(answered=False, interrupted=True)
    assert (nudges.memory, nudges.skills) == (0, 2)
