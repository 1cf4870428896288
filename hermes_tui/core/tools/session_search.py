"""The session_search tool: find what was said in earlier sessions before asking the user again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_tui.core.sessions import SessionError, SessionStore, StoredMessage
from hermes_tui.core.tools.registry import Tool, ToolContext

if TYPE_CHECKING:
    from hermes_tui.core.session_catalog import SessionCatalog


def _brief(stored: StoredMessage) -> dict[str, Any]:
    message = stored.message
    text = message.content
    if message.tool_calls:
        text = (text + " " if text else "") + "; ".join(
            f"{c.name}({c.arguments[:200]})" for c in message.tool_calls
        )
    return {"message_id": stored.id, "role": message.role, "text": text[:1500]}


def make_session_search_tools(
    sessions: SessionStore, catalog_of: Callable[[], SessionCatalog] | None = None
) -> list[Tool]:
    """`catalog_of` gives the catalog that adds Hermes Agent's sessions (ids `hermes:…`) to
    searches and listings; it is asked on the first search, so a conversation that never
    searches never opens it."""

    def session_search(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        catalog = catalog_of() if catalog_of is not None else None
        limit = max(1, min(int(args.get("limit") or 10), 50))
        wanted = str(args.get("session_id") or "")
        try:
            if catalog is not None and wanted.startswith("hermes:"):
                if args.get("query"):
                    return {
                        "success": False,
                        "error": "search a Hermes session by reading it: give session_id alone",
                    }
                entry = catalog.get(wanted)
                return {
                    "success": True,
                    "title": entry.info.title,
                    "messages": [_brief(m) for m in catalog.messages(entry.info.id)[:limit]],
                }
            if args.get("around_message_id"):
                around = sessions.around(int(args["around_message_id"]), radius=limit // 2 or 1)
                return {"success": True, "messages": [_brief(m) for m in around]}
            if args.get("query"):
                if catalog is not None and not wanted:
                    hits = catalog.search(str(args["query"]), limit=limit)
                else:
                    hits = sessions.search(
                        str(args["query"]), limit=limit, session_id=wanted or None
                    )
                return {
                    "success": True,
                    "results": [
                        {
                            "session_id": h.session_id,
                            "session_title": h.session_title,
                            "message_id": h.message_id,
                            "role": h.role,
                            "snippet": h.snippet,
                            "current_session": h.session_id == context.session_id,
                        }
                        for h in hits
                    ],
                    "hint": "Use around_message_id to read the conversation around a hit "
                    "(for a hermes: session, session_id to read it).",
                }
            if args.get("session_id"):
                session = sessions.get(str(args["session_id"]))
                return {
                    "success": True,
                    "title": session.title,
                    "messages": [_brief(m) for m in sessions.messages(session.id, limit=limit)],
                }
        except SessionError as exc:
            return {"success": False, "error": str(exc)}
        recent = [e.info for e in catalog.list(limit)] if catalog else sessions.list(limit)
        return {
            "success": True,
            "sessions": [
                {"session_id": s.id, "title": s.title, "messages": s.message_count} for s in recent
            ],
        }

    schema = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words to search for in past conversations.",
            },
            "session_id": {"type": "string", "description": "Limit to, or list, one session."},
            "around_message_id": {
                "type": "integer",
                "description": "Show the conversation around this message.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "How many results (default 10, at most 50).",
            },
        },
        "required": [],
        "additionalProperties": False,
    }
    return [
        Tool(
            "session_search",
            "session_search",
            "Search earlier conversations (all sessions). Use it before asking the user to repeat "
            "something they may have told you before. With no arguments, lists recent sessions.",
            schema,
            session_search,
            read_only=True,
            preview=lambda r: (
                f"{len(r.get('results', r.get('messages', r.get('sessions', []))))} results"
            ),
        )
    ]
