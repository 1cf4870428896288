"""Scan verdicts remembered on disk, so a cold start rescans only the texts that changed.

Every session start scans what enters the system prompt (SOUL.md, memory entries, the skills
index); the verdicts rarely change, and reaching them the first time costs the xaidr import.
`VerdictCache` keeps them in `<home>/cache/scan_verdicts.json`, keyed by the sha256 of the
scanned text, under an identity of the scanner that judged them: the source of this package, the
xaidr version and files (read without importing it), Python and its Unicode tables. Another
identity discards the whole file. Hashing the package's bytes at every start cost 8-25 ms, so
the identity is remembered beside the verdicts (`scanner_identity.json`) under the path, size
and mtime of each source: while none of them moved it is read back, otherwise the bytes are
hashed again (a touched but unchanged file gives the same identity). An unreadable or
malformed file, or entry, is a miss, so the text is scanned again. Refusals and holds are
remembered too; a verdict the scanner could not reach (xaidr failed) is not. Writes are atomic
under the file's lock, at most MAX_ENTRIES entries, the least recently used dropped first. Terminal commands see `cache/` read-only and
the files tool never writes it (core/tools/sandbox.py, path_policy.py): a cached "allow" is
the scanner's word, and nothing the agent runs may forge it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_tui.core.storage import (
    atomic_write_bytes,
    ensure_private_dir,
    file_lock,
    write_merged_cache,
)
from hermes_tui.core.threats.verdicts import SEVERITY_RANK, Finding, Verdict, excerpt, tier_over

log = logging.getLogger(__name__)

FORMAT = 1
MAX_ENTRIES = 4096
CACHE_DIR = "cache"  # under the hermes home; protected like memories/ and skills/
FILENAME = "scan_verdicts.json"
IDENTITY_FILENAME = "scanner_identity.json"  # the identity under its sources' stat, beside it
# Verdicts not worth remembering: a failed library is a transient state, not a judgement, and
# a text too large to scan is refused without scanning anything.
_NOT_REMEMBERED = frozenset({"scanner_error", "too_large"})
_TIERS = frozenset({"allow", "hold", "refuse"})


def cache_path(home: Path) -> Path:
    return home / CACHE_DIR / FILENAME


def text_key(text: str) -> str:
    # surrogatepass: a text read with surrogateescape still gets a key of its own.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _xaidr_fingerprint() -> str:
    """xaidr's version and the size and mtime of each of its files, without importing it.

    The version names a release; the files catch an edited or editable install and its rule
    data (xaidr/rules/*.json), which a version number would not.
    """
    import importlib.util

    spec = importlib.util.find_spec("xaidr")
    if spec is None or not spec.submodule_search_locations:
        return "xaidr absent"
    package = Path(next(iter(spec.submodule_search_locations)))
    digest = hashlib.sha256()
    version = None
    for info in sorted(package.parent.glob("xaidr-*.dist-info")):
        try:
            metadata = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        version = next(
            (line[9:].strip() for line in metadata.splitlines() if line.startswith("Version: ")),
            None,
        )
        break
    if version is None:  # not installed beside its package (an editable install)
        from importlib import metadata

        try:
            version = metadata.version("xaidr")
        except metadata.PackageNotFoundError:
            version = "unknown"
    digest.update(f"version {version}\n".encode())
    for root, folders, files in os.walk(package):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            relative = os.path.relpath(path, package)
            digest.update(f"{relative} {info.st_size} {info.st_mtime_ns}\n".encode())
    return f"xaidr {version} {digest.hexdigest()}"


def _sources() -> list[Path]:
    """This package holds the whole of our half: patterns, decoded views, tiers, the library's
    noise filter and sensor settings; the learned scorer's weights (scorer.bin) are part of it
    as much as the code. Any edit to one of them is a new scanner."""
    here = Path(__file__).parent
    return sorted([*here.glob("*.py"), *here.glob("*.bin")])


def _stat_key(sources: list[Path]) -> str:
    """What changes when a source may have: each one's path, size and mtime, with the rest of
    the identity (Python, its Unicode tables, xaidr's own stat-based fingerprint)."""
    lines = [f"format {FORMAT}", f"python {sys.version}", f"unicode {unicodedata.unidata_version}"]
    for source in sources:
        info = source.stat()
        lines.append(f"{source} {info.st_size} {info.st_mtime_ns}")
    lines.append(_xaidr_fingerprint())
    return "\n".join(lines)


def _hashed_identity(sources: list[Path]) -> str:
    digest = hashlib.sha256()
    digest.update(f"format {FORMAT}\npython {sys.version}\n".encode())
    digest.update(f"unicode {unicodedata.unidata_version}\n".encode())
    for source in sources:
        digest.update(f"{source.name}\n".encode())
        digest.update(source.read_bytes())
    digest.update(_xaidr_fingerprint().encode())
    return digest.hexdigest()


def _remembered_identity(memo: Path, key: str) -> str | None:
    try:
        document = json.loads(memo.read_bytes())
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # none yet, unreadable or damaged: hashed again and rewritten
    if not isinstance(document, dict) or document.get("sources") != key:
        return None
    identity = document.get("identity")
    return identity if isinstance(identity, str) and len(identity) == 64 else None


def scanner_identity(memo: Path | None = None) -> str | None:
    """Who judged a verdict: a change to any part means every text is scanned again.

    With `memo` (a file), the identity hashed from the package's bytes is remembered there
    under the sources' stat, and read back while that stat holds. None when it cannot be told
    (our source is not readable as a file): nothing is remembered.
    """
    try:
        sources = _sources()
        key = _stat_key(sources)
        if memo is not None:
            remembered = _remembered_identity(memo, key)
            if remembered is not None:
                return remembered
        identity = _hashed_identity(sources)
    except (OSError, ImportError, ValueError) as exc:
        log.info("scan verdicts are not remembered: cannot identify the scanner (%s)", exc)
        return None
    if memo is not None:
        data = json.dumps({"sources": key, "identity": identity}, ensure_ascii=False)
        try:
            ensure_private_dir(memo.parent)
            with file_lock(memo):
                atomic_write_bytes(memo, data.encode("utf-8"), mode=0o600)
        except OSError as exc:  # a read-only home: hashed again at the next start
            log.info("cannot remember the scanner's identity in %s: %s", memo, exc)
    return identity


WITHHELD = "(quote left out: the text holds a secret)"


def _quote(found: str, text: str, redact: Callable[[str], str]) -> str:
    """A finding's excerpt as stored: redacted like any other road out (a refused write may
    well quote the secret it carried). The excerpt was cut before it was redacted, so a secret
    at its edge would show its first half: when the text holds a secret, the excerpt is cut
    again from the redacted text, or left out when it quotes no part of the text as written
    (a decoded view)."""
    redacted = redact(text)
    if redacted == text:
        return redact(found)
    flat = text.replace("\n", " ")
    snippet = found.removeprefix("…").removesuffix("…")
    at = flat.find(snippet) if snippet else -1
    if at < 0:
        return WITHHELD
    start = len(redact(flat[:at])) + (10 if at else 0)  # excerpt() begins 10 before its match
    return excerpt(redact(flat), start, start)


def _encode(verdict: Verdict, text: str = "", redact: Callable[[str], str] = str) -> list[Any]:
    return [
        verdict.tier,
        [
            [f.id, f.category, f.severity, redact(f.description), _quote(f.excerpt, text, redact)]
            + [f.view, f.source]
            for f in verdict.findings
        ],
    ]


def _decode(value: Any) -> Verdict | None:
    """The verdict in a cache entry, or None when the entry is not one we wrote."""
    if not (isinstance(value, list) and len(value) == 2):
        return None
    tier, raw = value
    if tier not in _TIERS or not isinstance(raw, list):
        return None
    findings = []
    for item in raw:
        if not (
            isinstance(item, list) and len(item) == 7 and all(isinstance(v, str) for v in item)
        ):
            return None
        if item[2] not in SEVERITY_RANK:
            return None
        findings.append(Finding(*item))
    # An entry must say what the scanner would say of its findings: an "allow" carrying a
    # refusal, or a refusal with nothing to refuse, was not written by us.
    if tier != tier_over(findings):
        return None
    return Verdict(tier, tuple(findings))


class VerdictCache:
    """The scanner's verdicts on disk. Thread-safe; reads lazily, writes on `flush()`."""

    def __init__(
        self,
        path: Path,
        identity: Callable[[], str | None] | None = None,
        max_entries: int = MAX_ENTRIES,
        redact: Callable[[str], str] = str,
    ) -> None:
        self.path = path
        self.redact = redact  # the runtime's Redactor.text, over the findings' quotes
        # By default the identity is remembered beside the verdicts (see scanner_identity).
        self._identity_source = identity or (
            lambda: scanner_identity(path.parent / IDENTITY_FILENAME)
        )
        self._identity: str | None = None
        self._identified = False
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._entries: dict[str, Any] | None = None  # key -> encoded verdict, as on disk
        self._new: dict[str, list[Any]] = {}
        self._used: set[str] = set()

    @property
    def identity(self) -> str | None:
        if not self._identified:
            self._identity = self._identity_source()
            self._identified = True
        return self._identity

    def get(self, text: str) -> Verdict | None:
        key = text_key(text)
        with self._lock:
            if self._entries is None:
                self._entries = self._read()
            value = self._new.get(key) or self._entries.get(key)
            if value is None:
                return None
            verdict = _decode(value)
            if verdict is not None:
                self._used.add(key)
            return verdict

    def put(self, text: str, verdict: Verdict) -> None:
        if any(f.id in _NOT_REMEMBERED for f in verdict.findings):
            return
        key = text_key(text)
        with self._lock:
            if self.identity is None:
                return
            self._new[key] = _encode(verdict, text, self.redact)
            self._used.add(key)

    def flush(self) -> None:
        """Write the verdicts reached since the last flush, merged with what other processes
        wrote meanwhile; the ones read back since move to the young end. Nothing new, nothing
        written. A failure (a read-only home, a full disk) costs the next start a rescan,
        never this one its turn."""
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
                    lambda entries: {
                        "format": FORMAT,
                        "scanner": self.identity,
                        "verdicts": entries,
                    },
                )
            except OSError as exc:
                # Not a warning: it would print across the TUI at every start of a read-only
                # home, where sessions.db already says what is wrong.
                log.info("cannot remember scan verdicts in %s: %s", self.path, exc)

    def _read(self) -> dict[str, Any]:
        """The file's verdicts when it is ours and for this scanner; otherwise none."""
        if self.identity is None:
            return {}
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.info("cannot read scan verdicts in %s: %s", self.path, exc)
            return {}
        try:
            document = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            log.info("%s is not valid JSON; every text is scanned again", self.path)
            return {}
        if (
            not isinstance(document, dict)
            or document.get("format") != FORMAT
            or document.get("scanner") != self.identity
            or not isinstance(document.get("verdicts"), dict)
        ):
            return {}
        return document["verdicts"]
