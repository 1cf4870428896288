"""Hermes Agent's own session history (`<home>/state.db`), read and never written.

A Hermes user switching over keeps their conversations: `sessions list`, `sessions search`,
`session_search`, `insights` and resume see them beside ours, marked as Hermes'. The file is
opened read-only (SQLite `mode=ro`), so nothing here can change it, and a Hermes process may
keep using it at the same time. Its schema is Hermes' (`hermes_state.py`, `schema_version`
table): versions up to `KNOWN_VERSION` with the columns read below are read; a newer one is
refused with a message that says so, rather than guessed at. Messages Hermes retired
(`active = 0`: compressed or rewound) are left out, as Hermes leaves them out of a resume.
Ids are shown as `hermes:<id>` so a face can tell them from ours.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.core.sessions import SearchHit, SessionInfo, StoredMessage, fts_query

PREFIX = "hermes:"
KNOWN_VERSION = 22  # Hermes Agent 0.19.0
SESSION_COLUMNS = ("id", "source", "model", "title", "started_at", "message_count")
MESSAGE_COLUMNS = ("id", "session_id", "role", "content", "tool_calls", "timestamp")


class HermesStateError(Exception):
    """state.db cannot be read; the message says why and what to do."""


def is_hermes_id(session_id: str) -> bool:
    return session_id.startswith(PREFIX)


@dataclass(frozen=True)
class HermesSessionInfo:
    """Hermes' own fields beside the common ones."""

    info: SessionInfo
    source: str  # cli, telegram, discord, …
    tool_calls: int
    cwd: str | None


class HermesSessions:
    """A read-only view of one Hermes `state.db`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self.version: int | None = None

    @property
    def present(self) -> bool:
        return self.path.is_file()

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        if not self.present:
            raise HermesStateError(f"{self.path} does not exist")
        try:
            db = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA busy_timeout = 2000")
            row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = int(row[0]) if row and row[0] is not None else None
            columns = {
                table: {r["name"] for r in db.execute(f"PRAGMA table_info({table})")}
                for table in ("sessions", "messages")
            }
        except sqlite3.Error as exc:
            raise HermesStateError(
                f"{self.path} (Hermes' session history) cannot be read: {exc}"
            ) from exc
        if version is None:
            db.close()
            raise HermesStateError(f"{self.path} has no schema version; it is not Hermes' state.db")
        if version > KNOWN_VERSION:
            db.close()
            raise HermesStateError(
                f"{self.path} is Hermes' session history at schema version {version}, newer than "
                f"the {KNOWN_VERSION} (Hermes 0.19.0) hermes-tui knows; its sessions are not "
                "shown. Update hermes-tui to read them."
            )
        missing = [c for c in SESSION_COLUMNS if c not in columns["sessions"]] + [
            c for c in MESSAGE_COLUMNS if c not in columns["messages"]
        ]
        if missing:
            db.close()
            raise HermesStateError(
                f"{self.path} (schema version {version}) lacks column(s) {', '.join(missing)}; "
                "its sessions are not shown"
            )
        self._columns = columns
        self.version = version
        self._db = db
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _active(self) -> str:
        return " AND m.active = 1" if "active" in self._columns["messages"] else ""

    def list(self, limit: int = 50) -> list[HermesSessionInfo]:
        db = self._connect()
        rows = db.execute(
            "SELECT s.*, COALESCE((SELECT MAX(m.timestamp) FROM messages m "
            "WHERE m.session_id = s.id), s.started_at) AS updated "
            "FROM sessions s ORDER BY updated DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [self._info(row) for row in rows]

    def get(self, session_id: str) -> HermesSessionInfo:
        """By `hermes:<id>`, the bare id, or a unique prefix of it."""
        db = self._connect()
        bare = session_id.removeprefix(PREFIX)
        rows = db.execute(
            "SELECT s.*, COALESCE((SELECT MAX(m.timestamp) FROM messages m "
            "WHERE m.session_id = s.id), s.started_at) AS updated "
            "FROM sessions s WHERE s.id = ? OR s.id LIKE ? ESCAPE '\\' LIMIT 2",
            (bare, bare.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"),
        ).fetchall()
        exact = [row for row in rows if row["id"] == bare]
        if exact:
            return self._info(exact[0])
        if not rows:
            raise LookupError(f"no Hermes session {session_id!r} in {self.path}")
        if len(rows) > 1:
            raise LookupError(
                f"{session_id!r} matches several Hermes sessions; give more of the id"
            )
        return self._info(rows[0])

    def messages(self, session_id: str) -> list[StoredMessage]:
        db = self._connect()
        bare = session_id.removeprefix(PREFIX)
        rows = db.execute(
            "SELECT m.* FROM messages m WHERE m.session_id = ? AND m.role IN ('user', 'assistant', 'tool')"
            f"{self._active()} ORDER BY m.id",
            (bare,),
        ).fetchall()
        return [_stored(row) for row in rows]

    def search(self, query: str, *, limit: int = 20) -> list[SearchHit]:
        match = fts_query(query)
        if not match:
            return []
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT m.id, m.session_id, m.role, m.timestamp, s.title, "
                "snippet(messages_fts, 0, char(2), char(3), '…', 12) AS snippet, "
                "bm25(messages_fts) AS score FROM messages_fts "
                "JOIN messages m ON m.id = messages_fts.rowid JOIN sessions s ON s.id = m.session_id "
                f"WHERE messages_fts MATCH ?{self._active()} ORDER BY score LIMIT ?",
                (match, limit),
            ).fetchall()
        except sqlite3.OperationalError:  # no FTS5 table (or no FTS5 here): plain matching
            words = [w for w in query.split() if w]
            if not words:
                return []
            like = " AND ".join("m.content LIKE ?" for _ in words)
            rows = db.execute(
                "SELECT m.id, m.session_id, m.role, m.timestamp, s.title, "
                "substr(m.content, 1, 120) AS snippet, 0.0 AS score FROM messages m "
                f"JOIN sessions s ON s.id = m.session_id WHERE {like}{self._active()} "
                "ORDER BY m.id DESC LIMIT ?",
                (*[f"%{w}%" for w in words], limit),
            ).fetchall()
        return [
            SearchHit(
                row["id"],
                PREFIX + row["session_id"],
                row["title"] or "",
                row["role"],
                " ".join(str(row["snippet"] or "").replace("\x02", "").replace("\x03", "").split()),
                row["timestamp"],
                row["score"],
            )
            for row in rows
        ]

    def _info(self, row: sqlite3.Row) -> HermesSessionInfo:
        keys = row.keys()

        def value(name: str, default: Any = 0) -> Any:
            return row[name] if name in keys and row[name] is not None else default

        model = str(value("model", ""))
        provider = model.split("/", 1)[0] if "/" in model else ""
        info = SessionInfo(
            id=PREFIX + row["id"],
            title=str(value("title", "")) or f"(Hermes {value('source', 'session')})",
            created_at=float(row["started_at"]),
            updated_at=float(value("updated", row["started_at"])),
            provider=provider,
            model=model,
            system_prompt=str(value("system_prompt", "")),
            parent_id=PREFIX + row["parent_session_id"] if value("parent_session_id", "") else None,
            input_tokens=int(value("input_tokens")),
            output_tokens=int(value("output_tokens")),
            cached_tokens=int(value("cache_read_tokens")),
            nudge_memory=0,
            nudge_skills=0,
            message_count=int(value("message_count")),
            cache_write_tokens=int(value("cache_write_tokens")),
        )
        return HermesSessionInfo(
            info, str(value("source", "")), int(value("tool_call_count")), value("cwd", None)
        )


def _stored(row: sqlite3.Row) -> StoredMessage:
    keys = row.keys()
    calls: tuple[ToolCall, ...] = ()
    if row["tool_calls"]:
        try:
            raw = json.loads(row["tool_calls"])
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python reads
            raw = []
        calls = tuple(
            ToolCall(
                str(c.get("id", "")),
                str((c.get("function") or {}).get("name", "")),
                str((c.get("function") or {}).get("arguments", "")),
            )
            for c in raw
            if isinstance(c, dict)
        )
    role = row["role"] if row["role"] in ("user", "assistant", "tool") else "user"
    reasoning = row["reasoning"] if "reasoning" in keys and row["reasoning"] else ""
    message = Message(
        role,
        row["content"] or "",
        calls,
        row["tool_call_id"] if "tool_call_id" in keys else None,
        (row["tool_name"] if "tool_name" in keys else None) or None,
        reasoning=reasoning,
    )
    return StoredMessage(row["id"], PREFIX + row["session_id"], float(row["timestamp"]), message)
