"""Every session the user has: ours (sessions.db) and Hermes Agent's (state.db), as one list.

Faces list, search and open sessions through this instead of choosing a store: an id that
starts with `hermes:` is Hermes', anything else ours. Hermes' history is read-only; when it
cannot be read (a newer schema, a damaged file), ours still work and the reason is said once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hermes_tui.core.events import Notice, Sink, discard
from hermes_tui.core.hermes_state import HermesSessions, HermesStateError, is_hermes_id
from hermes_tui.core.sessions import (
    SearchHit,
    SessionError,
    SessionInfo,
    SessionMatch,
    SessionStore,
    StoredMessage,
)


@dataclass(frozen=True)
class CatalogEntry:
    """A session as the sessions list shows it, ours or Hermes'."""

    info: SessionInfo
    origin: str  # "hermes-tui" or "hermes"
    source: str = ""  # Hermes' platform (cli, telegram, …)


class SessionCatalog:
    def __init__(self, store: SessionStore, hermes: HermesSessions | None, sink: Sink = discard):
        self.store = store
        self.hermes = hermes
        self.sink = sink
        self._told = False

    def _hermes(self) -> HermesSessions | None:
        """Hermes' history when it is there and readable; the reason it is not, said once."""
        if self.hermes is None or not self.hermes.present:
            return None
        try:
            self.hermes._connect()
        except HermesStateError as exc:
            if not self._told:
                self._told = True
                self.sink(Notice("warning", str(exc)))
            return None
        return self.hermes

    def list(self, limit: int = 50) -> list[CatalogEntry]:
        entries = [CatalogEntry(info, "hermes-tui") for info in self.store.list(limit)]
        hermes = self._hermes()
        if hermes is not None:
            entries += [CatalogEntry(h.info, "hermes", h.source) for h in hermes.list(limit)]
        entries.sort(key=lambda e: e.info.updated_at, reverse=True)
        return entries[:limit]

    def search(self, query: str, *, limit: int = 20) -> list[SearchHit]:
        hits = self.store.search(query, limit=limit)
        hermes = self._hermes()
        if hermes is not None:
            hits += hermes.search(query, limit=limit)
            # bm25 scores from two databases are not comparable: interleave, ours first.
            ours = [h for h in hits if not is_hermes_id(h.session_id)]
            theirs = [h for h in hits if is_hermes_id(h.session_id)]
            hits = [h for pair in zip(ours, theirs, strict=False) for h in pair]
            hits += ours[len(theirs) :] + theirs[len(ours) :]
        return hits[:limit]

    def search_sessions(self, query: str, *, limit: int = 50) -> list[SessionMatch]:
        """One result per session, ours and Hermes', best hit first."""
        found: dict[str, SessionMatch] = {}
        for hit in self.search(query, limit=limit * 10):
            if hit.session_id in found:
                best = found[hit.session_id]
                found[hit.session_id] = replace(best, hits=best.hits + 1)
            elif len(found) < limit:
                found[hit.session_id] = SessionMatch(hit.session_id, hit.session_title, hit, 1)
        return list(found.values())

    def get(self, session_id: str) -> CatalogEntry:
        if is_hermes_id(session_id):
            hermes = self._hermes()
            if hermes is None:
                raise SessionError(
                    f"{session_id!r} is a Hermes session, but Hermes' state.db is not readable here"
                )
            try:
                found = hermes.get(session_id)
            except LookupError as exc:
                raise SessionError(str(exc)) from exc
            return CatalogEntry(found.info, "hermes", found.source)
        return CatalogEntry(self.store.get(session_id), "hermes-tui")

    def messages(self, session_id: str) -> list[StoredMessage]:
        if is_hermes_id(session_id):
            hermes = self._hermes()
            if hermes is None:
                raise SessionError(f"Hermes' state.db is not readable here for {session_id!r}")
            return hermes.messages(session_id)
        return self.store.messages(session_id)

    def as_source(self) -> CatalogSource:
        """This catalog where a plain session source is wanted (insights): `list()` gives
        SessionInfo, `messages()` the stored messages, of both kinds."""
        return CatalogSource(self)


class CatalogSource:
    def __init__(self, catalog: SessionCatalog) -> None:
        self.catalog = catalog

    def list(self, limit: int = 50) -> list[SessionInfo]:
        return [entry.info for entry in self.catalog.list(limit)]

    def messages(self, session_id: str) -> list[StoredMessage]:
        return self.catalog.messages(session_id)
