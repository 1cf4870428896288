"""sessions.db's shape: its tables, the FTS5 index and its triggers, and the migrations that bring
an older database forward (version in `meta.schema_version`). SessionStore (sessions.py) runs
`migrate` when it opens the file, inside one transaction.
"""

from __future__ import annotations

import sqlite3

from hermes_tui.core.session_records import sql_statements

SCHEMA_VERSION = 7
_FTS_PARTS = frozenset({"messages_fts", "messages_ai", "messages_ad", "messages_au"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    provider TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    parent_id TEXT REFERENCES sessions(id),
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    tool_calls TEXT NOT NULL DEFAULT '',
    tool_call_id TEXT,
    tool_name TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, id);
"""

_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content, tool_calls, tool_name, content='messages', content_rowid='id', tokenize='unicode61'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content, tool_calls, tool_name)
    VALUES (new.id, new.content, new.tool_calls, new.tool_name);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_calls, tool_name)
    VALUES ('delete', old.id, old.content, old.tool_calls, old.tool_name);
END;
CREATE TRIGGER IF NOT EXISTS messages_au AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_calls, tool_name)
    VALUES ('delete', old.id, old.content, old.tool_calls, old.tool_name);
    INSERT INTO messages_fts(rowid, content, tool_calls, tool_name)
    VALUES (new.id, new.content, new.tool_calls, new.tool_name);
END;
"""

# Version 2 added nudge counters to sessions (issue 5); older databases gain the columns.
_MIGRATIONS: dict[int, list[str]] = {
    2: [
        "ALTER TABLE sessions ADD COLUMN nudge_memory INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sessions ADD COLUMN nudge_skills INTEGER NOT NULL DEFAULT 0",
    ],
    # Version 3 keeps the model's reasoning with its message (issue 14): JSON with the text and
    # Anthropic's signed thinking blocks, or '' when there was none.
    3: ["ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT ''"],
    # Version 4 keeps the prompt tokens written to the provider's cache (Anthropic bills them at
    # 1.25 x input), so a resumed session's cost is the cost it ran up.
    4: ["ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0"],
    # Version 5 counts the background reviews' tokens of a session apart from its own turns'.
    5: [
        f"ALTER TABLE sessions ADD COLUMN review_{name} INTEGER NOT NULL DEFAULT 0"
        for name in ("input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens")
    ],
    # Version 6 keeps the agent's todo list with its session (core/todo.py's JSON), so a
    # resumed conversation shows it again.
    6: ["ALTER TABLE sessions ADD COLUMN todos TEXT NOT NULL DEFAULT ''"],
    # Version 7 keeps what a session took in before its history was cut (a compression's
    # child, a Hermes session's channel): taint.TaintTracker.export as JSON, read on resume.
    # A table of its own, so listing sessions never reads it.
    7: [
        "CREATE TABLE IF NOT EXISTS session_taint ("
        "session_id TEXT PRIMARY KEY REFERENCES sessions(id), state TEXT NOT NULL)"
    ],
}


def probe_fts(db: sqlite3.Connection) -> bool:
    """Whether this SQLite has FTS5 (where it lacks it, search falls back to LIKE)."""
    try:
        db.execute("CREATE VIRTUAL TABLE temp.fts_probe USING fts5(x)")
        db.execute("DROP TABLE temp.fts_probe")
    except sqlite3.OperationalError:
        return False
    return True


def migrate(db: sqlite3.Connection, has_fts: bool) -> None:
    """Create the version-1 tables if missing, then apply every later migration in order; with
    FTS5, make the index and its triggers, rebuilding the index when a part of it was missing."""
    for statement in sql_statements(_SCHEMA):
        db.execute(statement)
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    version = int(row["value"]) if row else 1
    for target in range(version + 1, SCHEMA_VERSION + 1):
        for statement in _MIGRATIONS.get(target, []):
            db.execute(statement)
    db.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (str(SCHEMA_VERSION),),
    )
    if has_fts:
        present = {
            row["name"]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')"
            )
        }
        for statement in sql_statements(_FTS):
            db.execute(statement)
        if _FTS_PARTS - present:
            # A dropped index or trigger: index every stored message again, so search does
            # not silently find nothing.
            db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
