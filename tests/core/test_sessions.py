"""Specification of the session store: persistence, FTS5 search, fallback and migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.core.sessions import (
    SCHEMA_VERSION,
    SessionError,
    SessionStore,
    SessionStoreError,
    fts_query,
)


def _store(home: Path) -> SessionStore:
    return SessionStore(home / "sessions.db")


def test_sessions_keep_prompt_counters_and_token_totals(home: Path) -> None:
    store = _store(home)
    info = store.create(provider="openai", model="m", system_prompt="PROMPT")
    store.append(info.id, Message("user", "deploy the api to staging"))
    store.update(info.id, nudge_memory=3, nudge_skills=7)
    store.add_usage(info.id, 100, 20, 80)
    again = SessionStore(home / "sessions.db").get(info.id[:12])
    assert (again.system_prompt, again.nudge_memory, again.nudge_skills) == ("PROMPT", 3, 7)
    assert (again.input_tokens, again.cached_tokens, again.message_count) == (100, 80, 1)
    assert again.title == "deploy the api to staging"


def test_wal_mode_is_on(home: Path) -> None:
    _store(home)
    mode = sqlite3.connect(home / "sessions.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_search_quotes_user_text_so_syntax_cannot_break_match(home: Path) -> None:
    store = _store(home)
    info = store.create(provider="p", model="m", system_prompt="")
    store.append(info.id, Message("user", 'rollout for flask-app: namespace "prod" failed'))
    store.append(
        info.id,
        Message(
            "assistant", "", (ToolCall("c1", "terminal", '{"command": "kubectl rollout undo"}'),)
        ),
    )
    for query in ["flask-app:", '"prod', "namespace AND OR NOT", "(kubectl", "NEAR(x"]:
        store.search(query)  # must not raise
    hits = store.search("flask-app prod")
    assert hits and hits[0].role == "user" and "[prod]" in hits[0].snippet
    tool_hit = store.search("kubectl")[0]
    assert tool_hit.role == "assistant" and "[kubectl]" in tool_hit.snippet
    assert fts_query('a"b c-d') == '"a" "b" "c-d"'


def test_like_fallback_without_fts5(home: Path) -> None:
    store = _store(home)
    store.has_fts = False
    info = store.create(provider="p", model="m", system_prompt="")
    store.append(info.id, Message("user", "the migration of the billing database"))
    assert [h.session_id for h in store.search("billing migration")] == [info.id]
    assert store.search("nothing-like-this") == []


def test_version_one_database_is_migrated(home: Path) -> None:
    path = home / "sessions.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema_version', '1');"
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL,"
        " updated_at REAL NOT NULL, provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '',"
        " system_prompt TEXT NOT NULL DEFAULT '', parent_id TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,"
        " output_tokens INTEGER NOT NULL DEFAULT 0, cached_tokens INTEGER NOT NULL DEFAULT 0);"
        "INSERT INTO sessions (id, created_at, updated_at, title) VALUES ('old', 1, 1, 'from v1');"
    )
    db.close()
    store = SessionStore(path)
    assert store.get("old").title == "from v1" and store.get("old").nudge_memory == 0
    version = (
        sqlite3.connect(path)
        .execute("SELECT value FROM meta WHERE key='schema_version'")
        .fetchone()[0]
    )
    assert int(version) == SCHEMA_VERSION


def test_around_returns_the_neighbourhood_of_a_message(home: Path) -> None:
    store = _store(home)
    info = store.create(provider="p", model="m", system_prompt="")
    ids = [store.append(info.id, Message("user", f"message {i}")) for i in range(10)]
    around = store.around(ids[5], radius=2)
    assert [m.message.content for m in around] == [f"message {i}" for i in range(3, 8)]


def test_reasoning_and_signed_thinking_blocks_are_kept_with_their_message(home: Path) -> None:
    from hermes_tui.core.messages import ThinkingBlock

    store = _store(home)
    info = store.create(provider="anthropic", model="m", system_prompt="")
    thought = Message(
        "assistant",
        "the answer",
        reasoning="first I think «¿»",
        thinking=(ThinkingBlock("first I think «¿»", "sig-1"), ThinkingBlock(data="enc")),
    )
    store.append(info.id, thought)
    store.append(info.id, Message("user", "plain"))
    stored = [m.message for m in store.messages(info.id)]
    assert stored == [thought, Message("user", "plain")]


# ---- a database that cannot be used is reported, moved aside or rebuilt, never a traceback --


def _filled(home: Path, count: int = 200) -> str:
    store = _store(home)
    info = store.create(provider="openai", model="m", system_prompt="P")
    for i in range(count):
        store.append(info.id, Message("user", f"message {i} about the kubernetes rollout"))
    store.close()
    return info.id


def test_a_file_that_is_not_a_database_is_moved_aside_and_a_fresh_one_started(
    home: Path,
) -> None:
    path = home / "sessions.db"
    garbage = bytes(range(256)) * 20
    path.write_bytes(garbage)
    store = _store(home)
    assert store.recovered is not None
    moved = store.recovered.moved_to
    assert moved.name.startswith("sessions.db.corrupt-") and moved.read_bytes() == garbage
    assert str(moved) in store.recovered.message()
    info = store.create(provider="openai", model="m", system_prompt="P")
    assert [s.id for s in store.list()] == [info.id]
    store.close()
    assert _store(home).recovered is None, "the user is told once, not at every start"


def test_a_truncated_database_is_moved_aside(home: Path) -> None:
    _filled(home)
    path = home / "sessions.db"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    store = _store(home)
    assert store.recovered is not None and "malformed" in store.recovered.reason
    assert store.list() == []


def test_a_dropped_search_index_is_rebuilt_from_the_messages(home: Path) -> None:
    session_id = _filled(home, count=5)
    raw = sqlite3.connect(home / "sessions.db")
    raw.execute("DROP TABLE messages_fts")
    raw.commit()
    raw.close()
    store = _store(home)
    hits = store.search("kubernetes")
    assert len(hits) == 5 and {hit.session_id for hit in hits} == {session_id}
    store.append(session_id, Message("user", "and the canary"))
    assert len(store.search("canary")) == 1, "the triggers are back too"


def test_a_lock_held_too_long_is_a_clear_error_naming_the_holder(home: Path) -> None:
    session_id = _filled(home, count=1)
    blocker = sqlite3.connect(home / "sessions.db", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionStoreError, match="locked by another process") as opening:
            SessionStore(home / "sessions.db", busy_timeout=0.1)
        assert "this process" in str(opening.value) and "waited 0.1 s" in str(opening.value)
    finally:
        blocker.execute("ROLLBACK")
    store = SessionStore(home / "sessions.db", busy_timeout=0.1)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionStoreError, match="locked by another process"):
            store.append(session_id, Message("user", "blocked"))
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    store.append(session_id, Message("user", "after the lock"))
    assert store.get(session_id).message_count == 2


def test_search_snippets_read_as_text_not_stored_json(home: Path) -> None:
    store = _store(home)
    info = store.create(provider="p", model="m", system_prompt="")
    arguments = '{"command": "printf \'a\\nb\' && kubectl get pods"}'
    store.append(info.id, Message("assistant", "", (ToolCall("call_1", "terminal", arguments),)))
    snippet = store.search("kubectl")[0].snippet
    assert snippet.startswith("tool call: terminal, command: printf")
    assert "[kubectl] get" in snippet
    assert "\\n" not in snippet and '"' not in snippet and "call_1" not in snippet


def test_search_by_session_groups_hits_and_sessions_can_be_renamed_and_deleted(
    home: Path,
) -> None:
    store = _store(home)
    first = store.create(provider="p", model="m", system_prompt="")
    second = store.create(provider="p", model="m", system_prompt="")
    for text in ("deploy the api", "deploy again", "deploy once more"):
        store.append(first.id, Message("user", text))
    store.append(second.id, Message("user", "deploy the web app"))
    matches = store.search_sessions("deploy")
    assert sorted((m.session_id, m.hits) for m in matches) == sorted(
        [(first.id, 3), (second.id, 1)]
    )
    store.rename(first.id, "  API   deploys ")
    assert store.get(first.id).title == "API deploys"
    with pytest.raises(SessionError, match="cannot be empty"):
        store.rename(first.id, "   ")
    store.delete(second.id)
    assert [s.id for s in store.list()] == [first.id]
    assert [m.session_id for m in store.search_sessions("deploy")] == [first.id]
    with pytest.raises(SessionError):
        store.get(second.id)


def test_reasoning_is_stored_redacted_and_a_redacted_thinking_block_is_not_sent_back(
    home: Path,
) -> None:
    from hermes_tui.core.llm.anthropic import to_anthropic_messages
    from hermes_tui.core.messages import ThinkingBlock
    from hermes_tui.core.redaction import Redactor

    secret = "Vr7-kumquat-Secret-55aa19"
    store = SessionStore(home / "sessions.db", redact=Redactor({"DB_TOKEN": secret}).text)
    info = store.create(provider="anthropic", model="m", system_prompt="")
    store.append(
        info.id,
        Message(
            "assistant",
            "the answer",
            reasoning=f"the token is {secret}",
            thinking=(
                ThinkingBlock(f"the token is {secret}", "sig-1"),
                ThinkingBlock("ok", "sig-2"),
            ),
        ),
    )
    assert secret.encode() not in (home / "sessions.db").read_bytes()
    (stored,) = [m.message for m in store.messages(info.id)]
    assert stored.reasoning == "the token is [REDACTED DB_TOKEN]"
    # The redacted block's signature would not match its text: it is kept, unsigned, and only
    # the untouched block goes back to the provider.
    assert stored.thinking == (
        ThinkingBlock("the token is [REDACTED DB_TOKEN]", ""),
        ThinkingBlock("ok", "sig-2"),
    )
    (turn,) = to_anthropic_messages([stored])
    assert [b["type"] for b in turn["content"]] == ["thinking", "text"]
    assert turn["content"][0]["signature"] == "sig-2"
