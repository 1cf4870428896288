"""Sessions and their messages in SQLite (WAL), searchable with FTS5.

Each session keeps its frozen system prompt, provider and model, parent (a compressed session
continues in a child), nudge counters and token totals. Messages are indexed by an external
content FTS5 table kept in sync by triggers. Search quotes the user's words so `-`, `:` and
quotes cannot break MATCH, ranks with bm25 and returns snippets; where SQLite lacks FTS5 it
falls back to LIKE. The schema carries a version and migrates forward (session_schema.py).

A database that cannot be used never surfaces as a raw sqlite3 traceback: a lock held too long
(busy timeout) or a read-only home is a SessionStoreError that says so; a damaged file found
when opening is moved aside to `sessions.db.corrupt-<ts>` and a fresh one started (`recovered`
tells the faces, once); a dropped FTS index is rebuilt from the messages, not left empty.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from hermes_tui.core.messages import Message
from hermes_tui.core.pricing import UsageTotals
from hermes_tui.core.records import datarecord
from hermes_tui.core.session_records import (
    SearchHit,
    SessionInfo,
    SessionMatch,
    StoredMessage,
    info_from_row,
    readable_snippet,
    reasoning_column,
    stored_from_row,
)
from hermes_tui.core.session_schema import SCHEMA_VERSION, migrate, probe_fts
from hermes_tui.core.sqlite_errors import error_kind, processes_holding, readonly_hint
from hermes_tui.core.storage import make_private, plain_os_error

__all__ = [
    "SCHEMA_VERSION",
    "SearchHit",
    "SessionError",
    "SessionInfo",
    "SessionMatch",
    "SessionStore",
    "SessionStoreError",
    "StoredMessage",
]

# How long a write waits for another process's transaction before giving up with a message.
BUSY_TIMEOUT_S = 10.0


class SessionError(LookupError):
    """A session id that does not exist, or an ambiguous prefix."""


class SessionStoreError(Exception):
    """sessions.db cannot be used (locked, read-only, damaged); the message says what to do."""


@datarecord
class Recovery:
    """A damaged sessions.db found at open, moved aside so a fresh one could start."""

    moved_to: Path
    reason: str

    def message(self) -> str:
        return (
            f"sessions.db could not be read ({self.reason}); it was moved to {self.moved_to} "
            "and a new, empty one was started. Past sessions stay in the moved file."
        )


def fts_query(text: str) -> str:
    """Every word quoted, so user text is never parsed as FTS5 syntax."""
    words = re.findall(r"\w[\w.@'-]*", text, flags=re.UNICODE)
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


class SessionStore:
    def __init__(
        self,
        path: Path,
        *,
        busy_timeout: float = BUSY_TIMEOUT_S,
        redact: Callable[[str], str] = str,
        redact_pair: Callable[[str, str], tuple[str, str]] | None = None,
    ) -> None:
        self.path = path
        # The runtime's Redactor.text, over what a message stores (reasoning included), and its
        # Redactor.pair: a secret split between a reply's reasoning and its text is one secret.
        self.redact = redact
        self.redact_pair = redact_pair or (lambda a, b: (redact(a), redact(b)))
        self.busy_timeout = busy_timeout
        self.recovered: Recovery | None = None
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionStoreError(
                f"cannot create {path.parent} for sessions.db: {plain_os_error(exc)}"
            ) from exc
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            if error_kind(exc) != "damaged":
                self._close_quietly()
                raise self._unusable(exc) from exc
            self._close_quietly()
            self.recovered = Recovery(self._move_aside(), str(exc))
            try:
                self._open()
            except sqlite3.DatabaseError as again:
                self._close_quietly()
                raise self._unusable(again) from again

    def _open(self) -> None:
        _create_private(self.path)
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, timeout=self.busy_timeout, isolation_level=None
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self.has_fts = probe_fts(self._db)
        self._migrate()

    def _close_quietly(self) -> None:
        if self._db is not None:
            # A connection to a damaged file may fail to close; it is dropped either way.
            with suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}.{counter}")
            counter += 1
        try:
            os.replace(self.path, target)
            for suffix in ("-wal", "-shm"):
                companion = self.path.with_name(self.path.name + suffix)
                if companion.exists():
                    os.replace(companion, target.with_name(target.name + suffix))
        except OSError as exc:
            raise SessionStoreError(
                f"{self.path} is damaged and could not be moved aside ({plain_os_error(exc)}); move it "
                "away by hand to start a new one"
            ) from exc
        return target

    def _unusable(self, exc: sqlite3.DatabaseError) -> SessionStoreError:
        """The error a user sees for a database that cannot be used, with what to do."""
        kind = error_kind(exc)
        if kind == "locked":
            holders = processes_holding(self.path)
            held = f" (held by {', '.join(holders)})" if holders else ""
            return SessionStoreError(
                f"{self.path} is locked by another process{held}; waited "
                f"{self.busy_timeout:g} s. Close the other hermes-tui (or whatever holds it) "
                "and retry."
            )
        if kind == "damaged":
            return SessionStoreError(
                f"{self.path} is damaged ({exc}). `hermes-tui doctor` checks it; move the file "
                "aside to start a new one."
            )
        return SessionStoreError(f"cannot use {self.path}: {readonly_hint(self.path.parent, exc)}")

    def close(self) -> None:
        with self._lock:
            self._close_quietly()

    @contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one read; sqlite3 errors come out as SessionStoreError."""
        with self._lock:
            if self._db is None:
                raise SessionStoreError(f"{self.path} is closed")
            try:
                yield self._db
            except sqlite3.DatabaseError as exc:
                raise self._unusable(exc) from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._using() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._transaction() as db:
            migrate(db, self.has_fts)

    # ---- sessions ------------------------------------------------------------------------

    def create(
        self,
        *,
        provider: str,
        model: str,
        system_prompt: str,
        parent_id: str | None = None,
        title: str = "",
    ) -> SessionInfo:
        now = time.time()
        session_id = time.strftime("%Y%m%d-%H%M%S-", time.localtime(now)) + uuid.uuid4().hex[:6]
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions(id, title, created_at, updated_at, provider, model, system_prompt, parent_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, title, now, now, provider, model, system_prompt, parent_id),
            )
        return self.get(session_id)

    def get(self, session_id: str) -> SessionInfo:
        with self._using() as db:
            rows = db.execute(
                "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
                "FROM sessions s WHERE s.id = ? OR s.id LIKE ? ORDER BY s.id = ? DESC LIMIT 2",
                (session_id, session_id + "%", session_id),
            ).fetchall()
        if not rows:
            raise SessionError(f"no session {session_id!r}; `hermes-tui sessions list` shows them")
        if len(rows) > 1 and rows[0]["id"] != session_id:
            raise SessionError(f"{session_id!r} matches several sessions; give more of the id")
        return info_from_row(rows[0])

    def latest(self) -> SessionInfo | None:
        with self._using() as db:
            row = db.execute(
                "SELECT id FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 1"
            ).fetchone()
        return self.get(row["id"]) if row else None

    def last_activity(self, *, before: float) -> float | None:
        """When any session was last written before `before` (None: none was)."""
        with self._using() as db:
            row = db.execute(
                "SELECT MAX(updated_at) AS last FROM sessions WHERE updated_at < ?", (before,)
            ).fetchone()
        return row["last"] if row and row["last"] is not None else None

    def list(self, limit: int = 50) -> list[SessionInfo]:
        with self._using() as db:
            rows = db.execute(
                "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
                "FROM sessions s ORDER BY s.updated_at DESC, s.id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [info_from_row(row) for row in rows]

    def update(self, session_id: str, **fields: Any) -> None:
        allowed = {"title", "nudge_memory", "nudge_skills", "todos"}
        if not fields or set(fields) - allowed:
            raise ValueError(f"can only update {sorted(allowed)}")
        # A title or the todo list (the model's own words) kept as its messages are: redacted.
        fields = {
            key: self.redact(value)
            if key in ("title", "todos") and isinstance(value, str)
            else value
            for key, value in fields.items()
        }
        assignments = ", ".join(f"{key} = ?" for key in fields)
        with self._transaction() as db:
            db.execute(
                f"UPDATE sessions SET {assignments}, updated_at = ? WHERE id = ?",
                (*fields.values(), time.time(), session_id),
            )

    def set_taint(self, session_id: str, state: dict[str, Any]) -> None:
        """Keep what the session took in before its history was cut (taint.TaintTracker
        .export); every text redacted as messages are."""
        text = json.dumps(_redacted(state, self.redact), ensure_ascii=False)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO session_taint(session_id, state) VALUES (?, ?) "
                "ON CONFLICT(session_id) DO UPDATE SET state=excluded.state",
                (session_id, text),
            )

    def taint(self, session_id: str) -> dict[str, Any] | None:
        """What `set_taint` kept for the session, or None."""
        with self._using() as db:
            row = db.execute(
                "SELECT state FROM session_taint WHERE session_id = ?", (session_id,)
            ).fetchone()
        try:
            state = json.loads(row["state"]) if row else None
        except (ValueError, RecursionError):
            return None
        return state if isinstance(state, dict) else None

    def add_usage(
        self,
        session_id: str,
        input_tokens: int,
        output_tokens: int,
        cached_tokens: int,
        cache_write_tokens: int = 0,
        *,
        review: bool = False,
    ) -> None:
        """Add a model call's tokens to the session; `review`: a background review's call,
        counted apart."""
        prefix = "review_" if review else ""
        columns = ("input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens")
        assignments = ", ".join(f"{prefix}{c} = {prefix}{c} + ?" for c in columns)
        with self._transaction() as db:
            db.execute(
                f"UPDATE sessions SET {assignments}, updated_at = ? WHERE id = ?",
                (
                    input_tokens,
                    output_tokens,
                    cached_tokens,
                    cache_write_tokens,
                    time.time(),
                    session_id,
                ),
            )

    def usage_totals(self, session_id: str, *, review: bool = False) -> UsageTotals:
        """Tokens the conversation has used so far: this session and the sessions it was
        compressed from (a compression continues the conversation in a child session).
        `review`: the background reviews' tokens instead of the turns'."""
        prefix = "review_" if review else ""
        totals = UsageTotals()
        seen: set[str] = set()
        current: str | None = session_id
        with self._using() as db:
            while current and current not in seen:
                seen.add(current)
                row = db.execute(
                    f"SELECT parent_id, {prefix}input_tokens, {prefix}output_tokens, "
                    f"{prefix}cached_tokens, {prefix}cache_write_tokens FROM sessions WHERE id = ?",
                    (current,),
                ).fetchone()
                if row is None:
                    break
                totals += UsageTotals(row[1], row[2], row[3], row[4])
                current = row["parent_id"]
        return totals

    # ---- messages ------------------------------------------------------------------------

    def append(self, session_id: str, message: Message) -> int:
        calls = (
            json.dumps(
                [
                    {"id": c.id, "name": self.redact(c.name), "arguments": self.redact(c.arguments)}
                    for c in message.tool_calls
                ]
            )
            if message.tool_calls
            else ""
        )
        reasoning, content = self.redact_pair(message.reasoning, message.content)
        now = time.time()
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO messages(session_id, role, content, tool_calls, tool_call_id, tool_name,"
                " created_at, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    message.role,
                    content,
                    calls,
                    message.tool_call_id,
                    self.redact(message.tool_name or ""),
                    now,
                    reasoning_column(message, self.redact, reasoning),
                ),
            )
            db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            if message.role == "user":
                db.execute(
                    "UPDATE sessions SET title = ? WHERE id = ? AND title = ''",
                    (" ".join(content.split())[:80], session_id),
                )
            return int(cursor.lastrowid or 0)

    def messages(
        self, session_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        query = "SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id"
        params: tuple[Any, ...] = (session_id, after_id)
        if limit is not None:
            query += " LIMIT ?"
            params += (limit,)
        with self._using() as db:
            rows = db.execute(query, params).fetchall()
        return [stored_from_row(row) for row in rows]

    def around(self, message_id: int, radius: int = 5) -> list[StoredMessage]:
        with self._using() as db:
            row = db.execute(
                "SELECT session_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                raise SessionError(f"no message {message_id}")
            rows = db.execute(
                "SELECT * FROM (SELECT * FROM messages WHERE session_id = ? AND id <= ? ORDER BY id DESC LIMIT ?) "
                "UNION SELECT * FROM (SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?) "
                "ORDER BY id",
                (row["session_id"], message_id, radius + 1, row["session_id"], message_id, radius),
            ).fetchall()
        return [stored_from_row(r) for r in rows]

    def search(
        self, query: str, *, limit: int = 20, session_id: str | None = None
    ) -> list[SearchHit]:
        match = fts_query(query)
        if not match:
            return []
        where = " AND m.session_id = ?" if session_id else ""
        params: tuple[Any, ...] = (session_id,) if session_id else ()
        with self._using() as db:
            if self.has_fts:
                rows = db.execute(
                    "SELECT m.id, m.session_id, m.role, m.created_at, s.title, "
                    "snippet(messages_fts, 0, char(2), char(3), '…', 12) AS in_content, "
                    "snippet(messages_fts, 1, char(2), char(3), '…', 12) AS in_calls, "
                    "snippet(messages_fts, 2, char(2), char(3), '…', 12) AS in_tool, "
                    "bm25(messages_fts) AS score "
                    "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                    "JOIN sessions s ON s.id = m.session_id "
                    f"WHERE messages_fts MATCH ?{where} ORDER BY score LIMIT ?",
                    (match, *params, limit),
                ).fetchall()
            else:
                words = re.findall(r"\w+", query)
                like = " AND ".join("(m.content LIKE ? OR m.tool_calls LIKE ?)" for _ in words)
                like_params = [p for w in words for p in (f"%{w}%", f"%{w}%")]
                rows = db.execute(
                    "SELECT m.id, m.session_id, m.role, m.created_at, s.title, substr(m.content, 1, 120) AS in_content, "
                    f"0.0 AS score FROM messages m JOIN sessions s ON s.id = m.session_id WHERE {like}{where} "
                    "ORDER BY m.id DESC LIMIT ?",
                    (*like_params, *params, limit),
                ).fetchall()
        return [
            SearchHit(
                r["id"],
                r["session_id"],
                r["title"],
                r["role"],
                readable_snippet(r),
                r["created_at"],
                r["score"],
            )
            for r in rows
        ]

    def search_sessions(self, query: str, *, limit: int = 50) -> list[SessionMatch]:
        """One result per session (its best hit and how many messages matched), best first."""
        found: dict[str, SessionMatch] = {}
        for hit in self.search(query, limit=limit * 10):
            if hit.session_id in found:
                best = found[hit.session_id]
                found[hit.session_id] = replace(best, hits=best.hits + 1)
            elif len(found) < limit:
                found[hit.session_id] = SessionMatch(hit.session_id, hit.session_title, hit, 1)
        return list(found.values())

    def truncate(self, session_id: str, from_id: int) -> int:
        """Remove the session's messages from `from_id` on (/undo, /retry); how many went."""
        with self._transaction() as db:
            cursor = db.execute(
                "DELETE FROM messages WHERE session_id = ? AND id >= ?", (session_id, from_id)
            )
            db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id))
        return cursor.rowcount

    def rename(self, session_id: str, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            raise SessionError("a session title cannot be empty")
        self.get(session_id)
        self.update(session_id, title=title)

    def delete(self, session_id: str) -> None:
        """Remove a session and its messages for good (the user asked, in so many words)."""
        info = self.get(session_id)
        with self._transaction() as db:
            db.execute("DELETE FROM messages WHERE session_id = ?", (info.id,))
            db.execute("DELETE FROM session_taint WHERE session_id = ?", (info.id,))
            db.execute("UPDATE sessions SET parent_id = NULL WHERE parent_id = ?", (info.id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (info.id,))


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item, redact) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item, redact) for item in value]
    return value


def _create_private(path: Path) -> None:
    """sessions.db holds whole conversations: create it 0600 (SQLite gives its -wal and -shm
    the database's mode) and tighten an older, world-readable one."""
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
    except FileExistsError:
        for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            make_private(name, 0o600)
        return
    except OSError as exc:
        raise SessionStoreError(f"cannot create {path}: {plain_os_error(exc)}") from exc
    os.close(fd)
