"""A known secret printed in small pieces across a conversation's tool results (ATTACK.md
A3-1: `cut -c1-6`, `cut -c7-12`, …): the provider never gets more than a fifth of it, whatever
the cut (core/redaction/pieces.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime

from hermes_tui.core.redaction.pieces import SHARE, PieceLedger

KEY = "Vr7kumquatSecret55aa19xq"


def _shown(outputs: list[str], pieces: list[str]) -> list[str]:
    """The pieces the tool results the provider got still show."""
    return [piece for piece, output in zip(pieces, outputs, strict=True) if piece in output]


@pytest.mark.parametrize("count", [3, 4, 6])
def test_a_secret_cut_in_pieces_reaches_the_provider_at_most_a_fifth_shown(
    home: Path, tmp_path: Path, count: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "secret.txt").write_text(KEY + "\n")
    (home / ".env").write_text(f"DB_TOKEN={KEY}\n")
    size = len(KEY) // count
    cuts = [(start + 1, start + size) for start in range(0, len(KEY), size)]
    pieces = [KEY[a - 1 : b] for a, b in cuts]
    with FakeLLM() as llm:
        runtime = open_runtime(home, llm.openai_url, memory={"nudge_interval": 0})
        llm.script(
            Reply(
                tool_calls=[("terminal", {"command": f"cut -c{a}-{b} secret.txt"}) for a, b in cuts]
            ),
            Reply(text="ok"),
        )
        runtime.open_session(cwd=project).submit("print it in parts")
        tools = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    outputs = [json.loads(m["content"])["output"] for m in tools]
    assert any("[REDACTED DB_TOKEN piece]" in output for output in outputs)
    shown = _shown(outputs, pieces)
    assert sum(map(len, shown)) <= SHARE * len(KEY), shown


def test_pieces_in_other_cases_and_results_count_together() -> None:
    ledger = PieceLedger({"DB_TOKEN": KEY})
    assert ledger.withheld(["part one: vr7k"]) == {}  # 4 of 24 characters: shown
    assert ledger.withheld(["again: VR7K, then UMQUAT"]) == {"umquat": "DB_TOKEN"}
    assert PieceLedger.replace("then UMQUAT", {"umquat": "DB_TOKEN"}) == (
        "then [REDACTED DB_TOKEN piece]"
    )


def test_ordinary_words_inside_a_secret_are_not_pieces() -> None:
    """`Secret` and `quat` of a value are words: text holding them is left alone."""
    ledger = PieceLedger({"DB_TOKEN": KEY})
    text = "the secret of the aquatic cret in a quatrain; secretly"
    for _ in range(3):
        assert ledger.withheld([text]) == {}


def test_values_that_are_words_or_urls_have_no_pieces() -> None:
    ledger = PieceLedger({"A": "correct-horse-battery-staple", "B": "https://u:p@h.example/x"})
    assert not ledger and ledger.withheld(["correct horse https://u"]) == {}


def test_a_resumed_conversation_counts_the_pieces_it_was_shown_before(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "secret.txt").write_text(KEY + "\n")
    (home / ".env").write_text(f"DB_TOKEN={KEY}\n")
    with FakeLLM() as llm:
        runtime = open_runtime(home, llm.openai_url, memory={"nudge_interval": 0})
        llm.script(Reply(tool_calls=[("terminal", {"command": "cut -c1-4 secret.txt"})]))
        llm.script(Reply(text="ok"))
        session = runtime.open_session(cwd=project)
        session.submit("first part")
        llm.script(Reply(tool_calls=[("terminal", {"command": "cut -c5-8 secret.txt"})]))
        llm.script(Reply(text="ok"))
        runtime.open_session(session.id, cwd=project).submit("next part")
        outputs = [
            json.loads(m["content"])["output"]
            for m in llm.requests[-1].body["messages"]
            if m["role"] == "tool"
        ]
    assert outputs[0].strip() == KEY[:4]  # a sixth, shown before the resume
    assert KEY[4:8] not in outputs[1] and "piece]" in outputs[1]


def test_a_cut_results_saved_path_stays_readable_after_the_pieces_were_used_up(
    tmp_path: Path,
) -> None:
    """The note of a cut result is ours: the digits of its saved file's time stamp are no piece
    to withhold, even when the conversation was shown them before (a secret holding today's
    date, a `date` or `ls -l` earlier). Seen in CI with `seq`'s output and a secret holding
    `0123456789`: the path became `…-17[REDACTED GITHUB_TOKEN piece]-…`, a file not there."""
    import time

    from hermes_tui.core.redaction.known import Redactor
    from hermes_tui.core.tools.results import ResultLimits, bound_result, withhold_pieces

    today = time.strftime("%Y%m%d")
    secret = f"ghp_Kq7{today}Zx9wPmVr"
    redactor = Redactor({"GITHUB_TOKEN": secret})
    ledger = redactor.piece_ledger()
    ledger.withheld([f"built on {today[:4]} and {today}"])  # a share of it shown already
    limits = ResultLimits(redactor=redactor, max_chars=2_000, scratch_root=tmp_path)
    output = f"made {today}\n" * 500
    bounded = withhold_pieces(bound_result("terminal", {"output": output}, limits, "s"), ledger)
    assert "[REDACTED GITHUB_TOKEN piece]" in bounded.result["output"]
    note = bounded.result["truncation"]
    saved = Path(note.split(" is saved at ")[1].split(": page")[0])
    assert saved == bounded.saved_to and saved.read_text() == output


def test_a_tools_own_truncation_key_is_not_taken_for_our_note() -> None:
    from hermes_tui.core.redaction.known import Redactor
    from hermes_tui.core.tools.results import ResultLimits, bound_result, withhold_pieces

    secret = "ghp_e2eSecretValue0123456789"
    redactor = Redactor({"GITHUB_TOKEN": secret})
    ledger = redactor.piece_ledger()
    ledger.withheld(["\n".join(map(str, range(1, 3000)))])
    limits = ResultLimits(redactor=redactor, max_chars=20_000)
    raw = {"output": "short", "truncation": "mine: 3456 7890"}
    bounded = withhold_pieces(bound_result("mcp__x__y", raw, limits, "s"), ledger)
    assert bounded.result["truncation"] == "mine: [REDACTED GITHUB_TOKEN piece] 7890"
