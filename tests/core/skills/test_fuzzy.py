"""Specification of fuzzy find-and-replace: each strategy, and what the file keeps."""

from __future__ import annotations

import pytest

from hermes_tui.core.skills.fuzzy import STRATEGIES, FuzzyMatchError, find, find_and_replace

CODE = "def deploy():\n    build()\n    push(tag='v1')\n    notify()\n"


def test_there_are_nine_strategies_in_the_documented_order() -> None:
    assert STRATEGIES == (
        "exact", "line_trimmed", "whitespace_normalized", "indentation_flexible",
        "escape_normalized", "trimmed_boundary", "unicode_normalized", "block_anchor",
        "context_aware",
    )  # fmt: skip


def test_exact_match_wins_first() -> None:
    result = find_and_replace(CODE, "build()", "build(fast=True)")
    assert result.strategy == "exact" and "build(fast=True)" in result.content


def test_different_indentation_applies_and_keeps_the_files_indentation() -> None:
    result = find_and_replace(CODE, "build()\npush(tag='v1')", "build()\npush(tag='v2')")
    assert result.strategy == "line_trimmed"
    assert result.content == "def deploy():\n    build()\n    push(tag='v2')\n    notify()\n"


def test_collapsed_whitespace_inside_a_line_applies() -> None:
    content = "run:   make    test   --verbose\n"
    result = find_and_replace(content, "make test --verbose", "make test")
    assert result.strategy == "whitespace_normalized"
    assert result.content == "run:   make test\n"


def test_blank_lines_the_model_dropped_do_not_block_a_match() -> None:
    content = "steps:\n  - one\n\n  - two\nend\n"
    result = find_and_replace(content, "- one\n- two", "- one\n- three")
    assert result.strategy == "indentation_flexible"
    assert result.content == "steps:\n  - one\n  - three\nend\n"


def test_escaped_newlines_from_a_json_double_encode_apply() -> None:
    content = 'say "hi"\nthen\nleave\n'
    result = find_and_replace(content, 'say \\"hi\\"\\nthen', 'say \\"bye\\"\\nthen')
    assert result.strategy == "escape_normalized"
    assert result.content == 'say "bye"\nthen\nleave\n'


def test_smart_quotes_apply_and_the_file_keeps_its_curly_quotes() -> None:
    content = "Tell the user \u201cdeploy done\u201d \u2014 then stop.\n"
    result = find_and_replace(
        content, 'user "deploy done" -- then stop', 'user "deploy done" -- then wait'
    )
    assert result.strategy == "unicode_normalized"
    assert result.content == "Tell the user \u201cdeploy done\u201d \u2014 then wait.\n"


def test_crlf_file_keeps_its_line_endings() -> None:
    content = "a\r\n    b\r\n    c\r\n"
    result = find_and_replace(content, "b\nc", "b\nc\nd")
    assert result.content == "a\r\n    b\r\n    c\r\n    d\r\n"


def test_block_anchor_matches_first_and_last_lines_with_a_similar_middle() -> None:
    content = "start\nalpha beta gamma delta\nend\nother\n"
    strategy, spans = find(content, "start\nalpha beta gamma delts\nend")
    assert strategy == "block_anchor" and len(spans) == 1


def test_context_aware_matches_mostly_similar_lines() -> None:
    content = "x = compute(alpha)\ny = compute(beta)\nz = 3\n"
    strategy, _ = find(content, "x = compute(alpah)\ny = compute(beta)")
    assert strategy == "context_aware"


def test_ambiguous_match_is_refused_unless_replace_all() -> None:
    content = "retry()\nwait()\nretry()\n"
    with pytest.raises(FuzzyMatchError) as error:
        find_and_replace(content, "retry()", "retry(3)")
    assert error.value.kind == "ambiguous" and "line 1, line 3" in str(error.value)
    assert find_and_replace(content, "retry()", "retry(3)", replace_all=True).count == 2


def test_no_match_reports_the_closest_candidate_only_when_one_is_alike() -> None:
    near = CODE.splitlines()[1][:-3] + "zzz"  # one line, its end changed
    with pytest.raises(FuzzyMatchError) as error:
        find_and_replace(CODE, near, "x")
    assert error.value.kind == "no_match"
    assert error.value.closest_line == 2 and "closest text" in str(error.value)
    # As Hermes: text that nothing resembles gets no "closest" line to mislead with.
    with pytest.raises(FuzzyMatchError) as unrelated:
        find_and_replace(CODE, "§§§§ qqqq wwww", "x")
    assert unrelated.value.closest is None and "closest" not in str(unrelated.value)


def test_empty_and_identical_strings_are_refused() -> None:
    with pytest.raises(FuzzyMatchError, match="empty"):
        find_and_replace(CODE, "   ", "x")
    with pytest.raises(FuzzyMatchError, match="identical"):
        find_and_replace(CODE, "build()", "build()")


def test_a_search_past_the_work_bound_fails_as_no_unique_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Long runs of equal lines make every line window compare hundreds of lines before it
    fails: the matcher gives up after WORK_BOUND comparisons instead of taking minutes."""
    monkeypatch.setattr("hermes_tui.core.skills.fuzzy.WORK_BOUND", 1_000_000)  # a fast test
    content = "x = 1\n" * 3_000
    old = "x = 1\n" * 400 + "y = 2\n"

    with pytest.raises(FuzzyMatchError) as raised:
        find(content, old)

    assert raised.value.kind == "no_match" and "no unique match" in str(raised.value)
    assert "401 lines" in str(raised.value)


def test_a_strategy_that_gives_up_leaves_the_cheaper_ones_after_it_their_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("hermes_tui.core.skills.fuzzy.WORK_BOUND", 1_000_000)
    content = "x = 1\n" * 3_000 + "y  =  2\n"
    old = "x = 1\n" * 400 + "y = 2\n"  # line windows give up; collapsing spaces finds it

    result = find_and_replace(content, old, "z = 3\n")

    assert result.strategy == "whitespace_normalized"
    assert result.content == "x = 1\n" * 2_600 + "z = 3\n"
