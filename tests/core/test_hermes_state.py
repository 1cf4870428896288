"""Hermes Agent's session history (state.db) seen beside ours, never written (issue 28,
Deliver 1). The fixture was written by Hermes 0.19.0's own SessionDB:
tests/data/make_hermes_state.py says how."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.core.events import Notice
from hermes_tui.core.hermes_state import HermesSessions, HermesStateError
from hermes_tui.core.messages import Message
from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.runtime import Runtime

FIXTURE = Path(__file__).parent.parent / "data" / "hermes-0.19.0-home" / "state.db"
FIRST = "20260921_101500_ab12cd"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def hermes_home(home: Path) -> Path:
    shutil.copy(FIXTURE, home / "state.db")
    return home


def test_hermes_sessions_list_with_their_titles_sources_and_tokens(hermes_home: Path) -> None:
    sessions = HermesSessions(hermes_home / "state.db")
    listed = {s.info.id: s for s in sessions.list()}
    first = listed[f"hermes:{FIRST}"]
    assert first.info.title == "Fix the flaky payments test" and first.source == "cli"
    assert first.info.input_tokens == 5200 and first.info.cached_tokens == 4100
    assert first.info.message_count == 4 and first.tool_calls == 1
    assert listed["hermes:20260922_090000_ef34gh"].source == "telegram"
    assert sessions.version == 22


def test_messages_keep_tool_calls_results_and_reasoning(hermes_home: Path) -> None:
    messages = [s.message for s in HermesSessions(hermes_home / "state.db").messages(FIRST)]
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    call = messages[1].tool_calls[0]
    assert call.name == "terminal" and call.parsed_arguments() == {
        "command": "pytest -q -p no:randomly"
    }
    assert messages[1].reasoning == "Order-dependent state is the usual cause."
    assert messages[2].tool_call_id == "call_1" and messages[2].tool_name == "terminal"


def test_tool_calls_nested_past_what_python_reads_are_dropped_not_a_crash(
    hermes_home: Path,
) -> None:
    with sqlite3.connect(hermes_home / "state.db") as db:
        db.execute(
            "UPDATE messages SET tool_calls = ? WHERE session_id = ? AND tool_calls IS NOT NULL",
            ("[" * 50_000 + "]" * 50_000, FIRST),
        )
    messages = [s.message for s in HermesSessions(hermes_home / "state.db").messages(FIRST)]
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1].tool_calls == ()


def test_reading_and_searching_never_changes_state_db(hermes_home: Path) -> None:
    before = _digest(hermes_home / "state.db")
    runtime = Runtime.open(hermes_home)
    hits = runtime.catalog.search("kubernetes rollout")
    assert hits and hits[0].session_id == "hermes:20260922_090000_ef34gh"
    assert "pause" in runtime.catalog.messages(hits[0].session_id)[1].message.content
    listed = runtime.catalog.list()
    assert {e.origin for e in listed} == {"hermes"}
    insights = runtime.insights(days=100_000)
    assert any(s.id == f"hermes:{FIRST}" and s.tool_calls == 1 for s in insights.sessions)
    assert _digest(hermes_home / "state.db") == before
    assert not (hermes_home / "state.db-wal").exists()


def test_ours_and_hermes_interleave_newest_first(hermes_home: Path) -> None:
    runtime = Runtime.open(hermes_home)
    ours = runtime.sessions.create(provider="openai", model="m", system_prompt="s")
    runtime.sessions.append(ours.id, Message("user", "kubernetes again"))
    listed = runtime.catalog.list()
    assert listed[0].info.id == ours.id and listed[0].origin == "hermes-tui"
    found = {h.session_id for h in runtime.catalog.search("kubernetes")}
    assert found == {ours.id, "hermes:20260922_090000_ef34gh"}


def test_a_newer_schema_is_refused_once_and_ours_still_list(hermes_home: Path) -> None:
    with sqlite3.connect(hermes_home / "state.db") as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(HermesStateError, match="schema version 99, newer than the 22"):
        HermesSessions(hermes_home / "state.db").list()
    notices: list[Notice] = []
    runtime = Runtime.open(hermes_home, sink=lambda e: notices.append(e))
    runtime.sessions.create(provider="openai", model="m", system_prompt="s")
    assert len(runtime.catalog.list()) == 1 and len(runtime.catalog.list()) == 1
    assert [n.text for n in notices if "newer than" in n.text] and len(notices) == 1


def test_session_search_tool_reaches_hermes_sessions(hermes_home: Path) -> None:
    runtime = Runtime.open(hermes_home)
    tool = runtime.tool_registry().get("session_search")
    found = tool.handler({"query": "ledger fixture"}, ToolContext())
    assert found["results"][0]["session_id"] == f"hermes:{FIRST}"
    read = tool.handler({"session_id": f"hermes:{FIRST}"}, ToolContext())
    assert read["title"] == "Fix the flaky payments test" and len(read["messages"]) == 4
