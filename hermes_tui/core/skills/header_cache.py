"""Parsed SKILL.md frontmatter remembered on disk, so a cold start parses only what changed.

Listing the library parses every SKILL.md's YAML frontmatter at each start: for 210 skills the
YAML import and its parses were most of the skills index's cost in a cold `chat -q`.
`HeaderCache` keeps the mapping each frontmatter text parsed to in
`<home>/cache/skill_headers.json`, keyed by the sha256 of the text, so an entry is never stale,
only unused. Only a mapping JSON gives back exactly is kept (strings, numbers, booleans, null,
lists, mappings with string keys; a date, a non-string key or a NaN is parsed every time); each
hit is a fresh copy, so no two skills share one. An unreadable or malformed file or entry is a
miss. `flush()` writes atomically under the file's lock when something new was parsed, merged
with what other processes wrote, at most MAX_ENTRIES, the least recently used dropped first.
Like the scanner's verdicts beside it, `cache/` is out of reach of terminal commands and the
files tool (core/tools/sandbox.py, path_policy.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

from hermes_tui.core.storage import write_merged_cache

log = logging.getLogger(__name__)

# Bump when what a frontmatter text parses to changes (another loader, other YAML rules).
FORMAT = 1
MAX_ENTRIES = 8192
FILENAME = "skill_headers.json"


def cache_path(home: Path) -> Path:
    return home / "cache" / FILENAME


def _key(header: str) -> str:
    return hashlib.sha256(header.encode("utf-8", "surrogatepass")).hexdigest()


def _encoded(data: dict[str, Any]) -> str | None:
    """`data` as JSON when JSON reads it back the same, else None (not remembered)."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None  # a date, a set, a NaN
    return text if json.loads(text) == data else None  # a non-string key became a string


class HeaderCache:
    """Frontmatter text -> the mapping it parsed to. Thread-safe; reads lazily, writes on flush."""

    def __init__(self, path: Path, max_entries: int = MAX_ENTRIES) -> None:
        self.path = path
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._entries: dict[str, str] | None = None  # key -> the mapping as JSON, as on disk
        self._new: dict[str, str] = {}
        self._used: set[str] = set()

    def get(self, header: str) -> dict[str, Any] | None:
        key = _key(header)
        with self._lock:
            if self._entries is None:
                self._entries = self._read()
            text = self._new.get(key) or self._entries.get(key)
            if not isinstance(text, str):
                return None
            try:
                data = json.loads(text)
            except ValueError:
                return None
            if not isinstance(data, dict):
                return None
            self._used.add(key)
            return data

    def put(self, header: str, data: dict[str, Any]) -> None:
        text = _encoded(data)
        if text is None:
            return
        key = _key(header)
        with self._lock:
            self._new[key] = text
            self._used.add(key)

    def flush(self) -> None:
        """Write what was parsed since the last flush. Nothing new, nothing written; a failure
        (a read-only home, a full disk) costs the next start its parses, never this one."""
        with self._lock:
            if not self._new:
                return
            new, used = self._new, self._used
            self._new, self._used = {}, set()
            try:
                self._entries = write_merged_cache(
                    self.path,
                    self._read,
                    new,
                    used,
                    self.max_entries,
                    lambda entries: {"format": FORMAT, "headers": entries},
                )
            except OSError as exc:
                log.info("cannot remember parsed skill headers in %s: %s", self.path, exc)

    def _read(self) -> dict[str, str]:
        try:
            document = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.info("cannot read parsed skill headers in %s: %s", self.path, exc)
            return {}
        if (
            not isinstance(document, dict)
            or document.get("format") != FORMAT
            or not isinstance(document.get("headers"), dict)
        ):
            return {}
        return document["headers"]
