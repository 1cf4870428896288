"""Bounded memory: MEMORY.md (the agent's notes) and USER.md (who the user is).

Hermes semantics (DESIGN.md section 6): entries joined by "\\n§\\n", limits counted in characters
of the joined text, substring matching for replace/remove, error payloads that carry
`current_entries` and `usage` so the model can consolidate, and a frozen snapshot for the system
prompt. Ours beyond Hermes: every replaced or removed entry is archived and restorable, every
write is audited and announced as a `MemoryChanged` event, and a file edited by hand into a shape
the store cannot round-trip is backed up and never overwritten.

Nothing is lost to a writer that does not take our lock (an editor saving in place, `echo >>`):
each write compares the file with what its operation was planned on just before replacing it,
and checks afterwards that nobody wrote into the replaced file meanwhile; either way it re-reads
and re-applies the operation to what is there now. A CRLF file stays CRLF.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from hermes_tui.core import threats
from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import MemoryChanged, Notice, Origin, Sink, discard
from hermes_tui.core.storage import append_line, atomic_write_bytes, file_lock

Target = Literal["memory", "user"]
TARGETS: tuple[Target, ...] = ("memory", "user")
ENTRY_DELIMITER = "\n§\n"
FILENAMES: dict[str, str] = {"memory": "MEMORY.md", "user": "USER.md"}
BLOCK_TITLES: dict[str, str] = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}
RULE = "═" * 46
WARN_PERCENT = 90
MAX_FAILURES_PER_TURN = 3
PREVIEW_WIDTH = 80
# How often one write re-plans on a file that other programs keep changing before giving up.
MAX_WRITE_ATTEMPTS = 20
# How many files replaced by our recent writes are watched for saves that land in them late.
WATCHED_REPLACED_FILES = 8


class MemoryStoreError(Exception):
    """Raised for a caller mistake (unknown target, unknown archive id)."""


@dataclass(frozen=True)
class Usage:
    chars: int
    limit: int

    @property
    def percent(self) -> int:
        return min(100, self.chars * 100 // self.limit) if self.limit > 0 else 0

    def __str__(self) -> str:
        return f"{self.percent}% — {self.chars:,}/{self.limit:,} chars"


@dataclass(frozen=True)
class FileState:
    """What one memory file holds right now, and whether the store may rewrite it."""

    entries: tuple[str, ...]
    raw: str
    drift: str | None  # why the file cannot be rewritten safely, or None
    exists: bool
    decodable: bool = True
    crlf: bool = False  # lines end in CRLF on disk; `raw` holds them as "\n"
    # (inode, mtime_ns, size, sha256) of the bytes read: what a write checks it is replacing.
    fingerprint: tuple[int, int, int, str] | None = None


@dataclass
class _Replaced:
    """A memory file our write replaced, kept open to catch saves that land in it late."""

    handle: Any
    entries: tuple[str, ...]
    fingerprint: tuple[int, int, int, str] | None

    def late_edit(self) -> tuple[list[str], list[str]] | None:
        """What another writer put in since we last looked: (entries removed, entries added)."""
        data, fingerprint = _read_handle(self.handle)
        if self.fingerprint is not None and fingerprint[3] == self.fingerprint[3]:
            return None
        after = parse_entries(data.decode("utf-8", "replace").replace("\r\n", "\n"))
        edit = (
            [e for e in self.entries if e not in after],
            [e for e in after if e not in self.entries],
        )
        self.entries, self.fingerprint = tuple(after), fingerprint
        return edit


@dataclass(frozen=True)
class _Planned:
    """What one write will put in the file (LF line ends) and the entries it archives."""

    after: str
    action: str
    archived: tuple[tuple[str, str, str | None], ...] = ()


@dataclass(frozen=True)
class ArchivedEntry:
    id: str
    time: float
    origin: str
    target: str
    action: str
    entry: str
    replaced_by: str | None = None


@dataclass(frozen=True)
class MemorySnapshot:
    """The memory blocks of one session's system prompt, frozen when the session starts."""

    memory: str
    user: str


def _preview(entry: str) -> str:
    flat = entry.replace("\n", " ")
    return flat[:PREVIEW_WIDTH] + ("..." if len(flat) > PREVIEW_WIDTH else "")


def parse_entries(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(ENTRY_DELIMITER) if part.strip()]


def join_entries(entries: list[str] | tuple[str, ...]) -> str:
    return ENTRY_DELIMITER.join(entries)


class FailureBudget:
    """Stops a model that keeps failing memory calls in one turn: as Hermes, three failures are
    answered as usual and the fourth is terminal (`done`).

    The agent owns one per conversation, calls `reset()` when a turn starts and passes every
    tool result through `apply()`. A success clears the count: it counts a losing streak.
    """

    def __init__(self, limit: int = MAX_FAILURES_PER_TURN) -> None:
        self.limit = limit
        self.failures = 0

    def reset(self) -> None:
        self.failures = 0

    def apply(self, result: dict[str, Any]) -> dict[str, Any]:
        if result.get("success"):
            self.failures = 0
            return result
        self.failures += 1
        if self.failures <= self.limit:
            return result
        # Terminal: no entries to work with, so the model stops instead of trying again.
        kept = {k: v for k, v in result.items() if k not in ("current_entries", "matches")}
        return {
            **kept,
            "done": True,
            "error": (
                f"{result.get('error', 'Memory write failed.')} This is failed memory call "
                f"{self.failures} in this turn: stop calling the memory tool now, leave memory "
                "as it is and answer the user. The fact can be saved in a later turn."
            ),
        }


class MemoryStore:
    """Thread- and process-safe store for the two memory files of one home."""

    def __init__(
        self,
        directory: Path,
        *,
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
        audit: AuditLog | None = None,
        sink: Sink = discard,
        scanner: threats.Scanner | None = None,
    ) -> None:
        self.directory = directory
        self.scanner = scanner or threats.Scanner()
        self.limits: dict[str, int] = {"memory": memory_char_limit, "user": user_char_limit}
        self.audit = audit
        self.sink = sink
        self.archive_path = directory / ".archive.jsonl"
        self._lock = threading.Lock()
        # Per target: the files our last writes replaced, still open (see _write).
        self._replaced: dict[str, list[_Replaced]] = {}

    # ---- reading -------------------------------------------------------------------------

    def path(self, target: Target) -> Path:
        self._check_target(target)
        return self.directory / FILENAMES[target]

    def limit(self, target: Target) -> int:
        self._check_target(target)
        return self.limits[target]

    def read(self, target: Target) -> FileState:
        handle = _open(self.path(target))
        if handle is None:
            return FileState((), "", None, False)
        with handle:
            return self._state(target, handle)

    def _state(self, target: Target, handle: Any) -> FileState:
        data, fingerprint = _read_handle(handle)
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"{FILENAMES[target]} is not valid UTF-8 (bad byte at offset {exc.start})"
            return FileState((), "", reason, True, decodable=False, fingerprint=fingerprint)
        crlf = "\r\n" in raw
        if crlf:
            raw = raw.replace("\r\n", "\n")
        entries = parse_entries(raw)
        drift = self._drift_reason(target, raw, entries)
        # The same entry twice (a hand edit, a merge) reads as one, as in Hermes; the next
        # write stores it once. Identical text, so nothing is lost.
        unique = tuple(dict.fromkeys(entries))
        return FileState(unique, raw, drift, True, True, crlf, fingerprint)

    def entries(self, target: Target) -> list[str]:
        return list(self.read(target).entries)

    def usage(self, target: Target) -> Usage:
        return Usage(len(join_entries(self.read(target).entries)), self.limit(target))

    def freeze(self) -> MemorySnapshot:
        """Render both blocks for a new session's system prompt; later writes do not change it."""
        blocks = {}
        for target in TARGETS:
            entries = self.entries(target)
            blocks[target] = self._render_block(target, self._sanitised(target, entries))
        return MemorySnapshot(memory=blocks["memory"], user=blocks["user"])

    def health(self) -> dict[str, str | None]:
        """Per target: None when healthy, otherwise what is wrong (for `doctor`)."""
        return {target: self.read(target).drift for target in TARGETS}

    def archived(self, target: Target | None = None) -> list[ArchivedEntry]:
        """Entries removed or replaced so far and not restored since, newest first.

        The archive is append-only: a restore appends `{"restored": id, ...}`, which hides the
        record it names (older readers skip that line as an unknown shape).
        """
        if not self.archive_path.exists():
            return []
        found: list[ArchivedEntry] = []
        restored: set[str] = set()
        with self.archive_path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    data = json.loads(line)
                    if isinstance(data, dict) and "restored" in data:
                        restored.add(str(data["restored"]))
                        continue
                    record = ArchivedEntry(**data)
                except (json.JSONDecodeError, TypeError):
                    continue
                if target is None or record.target == target:
                    found.append(record)
        found.reverse()
        return [record for record in found if record.id not in restored]

    # ---- writing -------------------------------------------------------------------------

    def add(self, target: Target, content: str, *, origin: Origin = "agent") -> dict[str, Any]:
        self._check_target(target)
        content = (content or "").strip()
        if not content:
            return _fail("content is empty: give the fact to remember in 'content'.")
        if refusal := self._separator_refusal(content) or self._scan(content):
            return refusal

        def plan(state: FileState) -> _Planned | dict[str, Any]:
            if not state.decodable:
                return self._drift_error(target, state)
            if content in state.entries:
                return self._success(target, "Entry already exists; nothing added.")
            new_total = len(join_entries([*state.entries, content]))
            limit = self.limits[target]
            if new_total > limit:
                current = len(join_entries(state.entries))
                return self._overflow(
                    target,
                    state,
                    f"{FILENAMES[target]} is at {current:,}/{limit:,} chars; adding "
                    f"{len(content):,} more would pass the limit. Consolidate first: 'replace' "
                    "overlapping entries with a shorter one or 'remove' stale ones (see "
                    "current_entries), then retry the add in this turn.",
                )
            # Appending to the raw text keeps every byte already on disk, even in a file
            # that was hand-edited into a shape a rewrite would normalise.
            base = state.raw.rstrip()
            return _Planned(f"{base}{ENTRY_DELIMITER}{content}" if base else content, "add")

        if refusal := self._write(target, plan, origin):
            return refusal
        return self._success(target, "Entry added.")

    def replace(
        self, target: Target, old_text: str, content: str, *, origin: Origin = "agent"
    ) -> dict[str, Any]:
        return self.apply_batch(
            target,
            [{"action": "replace", "old_text": old_text, "content": content}],
            origin=origin,
            single=True,
        )

    def remove(self, target: Target, old_text: str, *, origin: Origin = "agent") -> dict[str, Any]:
        return self.apply_batch(
            target, [{"action": "remove", "old_text": old_text}], origin=origin, single=True
        )

    def apply_batch(
        self,
        target: Target,
        operations: list[dict[str, Any]],
        *,
        origin: Origin = "agent",
        single: bool = False,
    ) -> dict[str, Any]:
        """Apply add/replace/remove operations all-or-nothing against the final budget."""
        self._check_target(target)
        if refusal := self._check_operations(operations, single):
            return refusal
        action_name = operations[0]["action"] if single else "batch"

        def plan(state: FileState) -> _Planned | dict[str, Any]:
            planned = self._plan(target, state, operations, single)
            if isinstance(planned, dict):
                return planned
            working, archived = planned
            return _Planned(join_entries(working), action_name, tuple(archived))

        if refusal := self._write(target, plan, origin):
            return refusal
        messages = {"replace": "Entry replaced.", "remove": "Entry removed."}
        message = messages[action_name] if single else f"Applied {len(operations)} operation(s)."
        return self._success(target, message)

    def preview(self, target: Target, operations: list[dict[str, Any]]) -> dict[str, Any]:
        """What apply_batch would do, without writing: {success, before, after} or the error."""
        self._check_target(target)
        if refusal := self._check_operations(operations, False):
            return refusal
        state = self.read(target)
        if len(operations) == 1 and operations[0].get("action") == "add":
            content = str(operations[0].get("content") or "").strip()
            if content and content not in state.entries:
                after = [*state.entries, content]
                if len(join_entries(after)) > self.limits[target]:
                    return self._overflow(
                        target, state, f"{FILENAMES[target]} has no room for this entry."
                    )
                return {
                    "success": True,
                    "before": join_entries(state.entries),
                    "after": join_entries(after),
                }
        planned = self._plan(target, state, operations, False)
        if isinstance(planned, dict):
            return planned
        return {
            "success": True,
            "before": join_entries(state.entries),
            "after": join_entries(planned[0]),
        }

    def _check_operations(
        self, operations: list[dict[str, Any]], single: bool
    ) -> dict[str, Any] | None:
        if not operations:
            return _fail("operations is empty: give at least one {action, content, old_text}.")
        for index, op in enumerate(operations, 1):
            if not isinstance(op, dict):
                return _fail(f"operation {index} is not an object with action/content/old_text.")
            if op.get("action") not in ("add", "replace") or not op.get("content"):
                continue
            prefix = self._op_label(index, op, single)
            content = str(op["content"])
            if refusal := self._separator_refusal(content, prefix) or self._scan(content, prefix):
                return refusal
        return None

    def _plan(
        self, target: Target, state: FileState, operations: list[dict[str, Any]], single: bool
    ) -> tuple[list[str], list[tuple[str, str, str | None]]] | dict[str, Any]:
        """The entries after `operations` and what they archive, or the error payload."""
        if state.drift:
            return self._drift_error(target, state)
        working = list(state.entries)
        archived: list[tuple[str, str, str | None]] = []
        for index, op in enumerate(operations, 1):
            label = self._op_label(index, op, single)
            action = op.get("action")
            content = str(op.get("content") or "").strip()
            old_text = str(op.get("old_text") or "").strip()
            problem = None
            if action == "add":
                if not content:
                    problem = f"{label}: content is empty."
                elif content not in working:
                    working.append(content)
            elif action not in ("replace", "remove"):
                problem = f"{label}: unknown action; use add, replace or remove."
            elif not old_text:
                problem = (
                    f"{label}: old_text is empty; set it to a short unique part of the entry to "
                    f"{action} (see current_entries)."
                )
            elif action == "replace" and not content:
                problem = f"{label}: content is empty; use action 'remove' to delete an entry."
            else:
                found = self._match(working, old_text)
                if isinstance(found, str):
                    return self._batch_error(target, working, f"{label}: {found}", single, old_text)
                old_entry = working[found]
                if action == "replace":
                    working[found] = content
                    archived.append(("replace", old_entry, content))
                else:
                    working.pop(found)
                    archived.append(("remove", old_entry, None))
            if problem:
                return self._batch_error(target, working, problem, single)
        new_total = len(join_entries(working))
        limit = self.limits[target]
        if new_total > limit:
            return self._overflow(
                target,
                state,
                f"After these changes {FILENAMES[target]} would hold {new_total:,}/{limit:,} "
                "chars, over the limit. Shorten the new content or remove other stale "
                "entries in the same call (see current_entries), then retry."
                + ("" if single else " No operation was applied."),
            )
        return working, archived

    def restore(self, archive_id: str, *, origin: Origin = "user") -> dict[str, Any]:
        """Put an archived entry back (as an add, so limits and the scan still apply).

        A restored record leaves the archive list; a second restore of it is an error. Restoring
        an entry that was replaced puts it beside its replacement, and the result says so.
        """
        record = next((r for r in self.archived() if r.id == archive_id), None)
        if record is None:
            raise MemoryStoreError(
                f"no archived memory entry with id {archive_id!r} (already restored?)"
            )
        target: Target = record.target  # type: ignore[assignment]
        present = record.entry in self.read(target).entries
        result = self.add(target, record.entry, origin=origin)
        if not result.get("success"):
            return result
        append_line(
            self.archive_path,
            json.dumps({"restored": record.id, "time": time.time(), "origin": origin}),
        )
        name = FILENAMES[target]
        result["message"] = (
            f"The entry was already in {name}; it left the archive."
            if present
            else f"Restored to {name}."
        )
        if record.replaced_by and record.replaced_by in self.read(target).entries:
            beside = (
                f"Restored beside its replacement ({_preview(record.replaced_by)}); "
                "edit or delete one of them."
            )
            result["warning"] = " ".join(filter(None, (beside, result.get("warning"))))
        return result

    # ---- internals -----------------------------------------------------------------------

    def _check_target(self, target: str) -> None:
        if target not in TARGETS:
            raise MemoryStoreError(f"unknown memory target {target!r}: use 'memory' or 'user'")

    @contextmanager
    def _locked(self, target: Target) -> Iterator[None]:
        # The store's own lock orders our threads; the file lock keeps other processes out.
        with self._lock, file_lock(self.path(target)):
            yield

    def _drift_reason(self, target: Target, raw: str, entries: list[str]) -> str | None:
        name = FILENAMES[target]
        if raw.strip() != join_entries(entries):
            return (
                f"{name} has blank entries, stray separators or whitespace around '§' that a "
                "rewrite would change"
            )
        for entry in entries:
            if any(line.strip() == "§" for line in entry.splitlines()):
                return f"{name} has a '§' separator that is not on its own line between entries"
            if len(entry) > self.limits[target]:
                return (
                    f"{name} has an entry of {len(entry):,} chars, more than the whole file's "
                    f"limit of {self.limits[target]:,} (text appended outside the memory tool?)"
                )
        return None

    def _drift_error(self, target: Target, state: FileState) -> dict[str, Any]:
        backup = self._backup(target)
        return {
            "success": False,
            "error": (
                f"Refusing to rewrite {FILENAMES[target]}: {state.drift}. Nothing was changed; "
                f"a copy of the file is at {backup}. Fix the file by hand so it is a list of "
                "entries separated by a line holding only '§' (or move the extra text out), "
                "then retry."
            ),
            "drift_backup": str(backup),
        }

    def _backup(self, target: Target) -> Path:
        path = self.path(target)
        data = path.read_bytes()
        for existing in sorted(path.parent.glob(f"{path.name}.bak.*")):
            if existing.read_bytes() == data:
                return existing
        backup = path.with_name(f"{path.name}.bak.{time.strftime('%Y%m%dT%H%M%S')}")
        counter = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.bak.{time.strftime('%Y%m%dT%H%M%S')}.{counter}")
            counter += 1
        backup.write_bytes(data)
        return backup

    @staticmethod
    def _match(entries: list[str], old_text: str) -> int | str:
        """Index of the one entry `old_text` names, or an error message."""
        for index, entry in enumerate(entries):
            if entry == old_text:
                return index
        hits = [index for index, entry in enumerate(entries) if old_text in entry]
        if not hits:
            return f"no entry contains {old_text!r}; use the exact text of one of current_entries."
        if len({entries[i] for i in hits}) > 1:
            listed = "; ".join(repr(_preview(entries[i])) for i in hits)
            return f"{old_text!r} matches {len(hits)} entries ({listed}); quote more of the one you mean."
        return hits[0]

    @staticmethod
    def _op_label(index: int, op: dict[str, Any], single: bool) -> str:
        return "" if single else f"operation {index} ({op.get('action') or 'no action'})"

    def _scan(self, content: str, prefix: str = "") -> dict[str, Any] | None:
        """The refusal for injection-shaped content, or None (held findings are the agent's
        gate's business: core/agent/taint.py stages those writes for the user)."""
        if len(content) > threats.MAX_SCAN_CHARS:
            return _fail(
                f"{prefix + ': ' if prefix else ''}content is too large to be a memory entry."
            )
        verdict = self.scanner.assess(content)
        if verdict.tier != "refuse":
            return None
        refused = [f for f in verdict.findings if threats.tier_of(f) == "refuse"]
        return {
            "success": False,
            "error": (
                f"{prefix + ': ' if prefix else ''}refused ({verdict.id}): the text matches "
                f"{threats.describe(refused)}. Memory is injected into every future system "
                "prompt, so it may not hold instructions, secrets or hidden text. Save the fact "
                "in plain declarative words instead."
            ),
            "pattern_ids": [finding.id for finding in refused],
        }

    def _sanitised(self, target: Target, entries: list[str] | tuple[str, ...]) -> list[str]:
        """Entries as the model may see them: ones that fail the scan are replaced by a marker."""
        shown = []
        for entry in entries:
            # Held findings stay: an entry on disk was written by the user or approved by them.
            verdict = self.scanner.assess(entry)
            if verdict.tier == "refuse":
                reason = "matched threat pattern(s) " + ", ".join(
                    f.id for f in verdict.findings if threats.tier_of(f) == "refuse"
                )
                shown.append(
                    f"[BLOCKED: a {FILENAMES[target]} entry {reason}; it is left out of the "
                    "prompt. The user can review and remove it.]"
                )
            else:
                shown.append(entry)
        return shown

    def _render_block(self, target: Target, entries: list[str]) -> str:
        if not entries:
            return ""
        limit = self.limits[target]
        content = join_entries(entries)
        usage = Usage(len(content), limit)
        # A file grown past its budget by hand must not flood the prompt: keep head and tail.
        cap = max(limit * 2, 4000)
        if len(content) > cap:
            head, tail = int(cap * 0.7), int(cap * 0.2)
            omitted = len(content) - head - tail
            content = (
                f"{content[:head]}\n\n[... {omitted:,} chars left out: memory is over its "
                f"budget ({usage.chars:,}/{limit:,}); consolidate with memory remove/replace ...]"
                f"\n\n{content[-tail:]}"
            )
        over = " ⚠ OVER BUDGET" if usage.chars > limit else ""
        header = f"{BLOCK_TITLES[target]} [{usage}{over}]"
        return f"{RULE}\n{header}\n{RULE}\n{content}"

    def _write(
        self,
        target: Target,
        plan: Callable[[FileState], _Planned | dict[str, Any]],
        origin: Origin,
    ) -> dict[str, Any] | None:
        """Plan on the file as it is, write the result; the refusal payload, or None when written.

        Never overwrites bytes the plan has not seen, even from programs that take no lock.
        Just before the replace it checks the file is still the one it read (else it re-reads
        and re-plans); just after, it checks nobody wrote into the file it read (an in-place
        save racing the replace). Such an edit is read back, kept as entries removed and added,
        and applied again on top of whatever is on disk until a write lands without one.
        """
        path = self.path(target)
        if origin != "user" and (refusal := self._link_refusal(path)):
            return refusal
        edits: list[tuple[list[str], list[str]]] = []  # read back from replaced files
        archived: set[tuple[str, str, str | None]] = set()
        with self._locked(target):
            # A save that opened the file before one of our recent replaces may land in the
            # replaced file after that write's own check: it is still ours to keep.
            replaced = self._replaced.setdefault(target, [])
            for watched in replaced:
                if edit := watched.late_edit():
                    edits.append(edit)
            for _attempt in range(MAX_WRITE_ATTEMPTS):
                handle = _open(path)
                try:
                    state = (
                        self._state(target, handle) if handle else FileState((), "", None, False)
                    )
                    merged = self._with_edits(target, state, edits)
                    outcome = plan(merged)
                    if isinstance(outcome, dict) and not edits:
                        return outcome  # a refusal (or nothing to do) as of this read
                    if isinstance(outcome, dict):
                        data = _encode(merged.raw, state.crlf)  # keep the others' edits anyway
                    else:
                        for record in set(outcome.archived) - archived:
                            archived.add(record)
                            self._archive(target, origin, *record)
                        data = _encode(outcome.after, state.crlf)
                    unchanged = functools.partial(_holds, path, state.fingerprint)
                    if not atomic_write_bytes(path, data, only_if=unchanged):
                        continue  # changed by name since we read it: read again, plan again
                    if handle is not None:
                        watched = _Replaced(handle, state.entries, state.fingerprint)
                        replaced.append(watched)
                        handle = None
                        while len(replaced) > WATCHED_REPLACED_FILES:
                            replaced.pop(0).handle.close()
                        if edit := watched.late_edit():
                            edits.append(edit)
                            continue
                finally:
                    if handle:
                        handle.close()
                if isinstance(outcome, dict):
                    return self._changed_meanwhile(target, outcome)
                self._announce(target, merged, outcome, origin)
                return None
        return _fail(
            f"{FILENAMES[target]} kept changing while this write was being made (another "
            "program is writing it); nothing more was changed. Retry in a moment."
        )

    def _link_refusal(self, path: Path) -> dict[str, Any] | None:
        """A model's write never goes through a symbolic link out of the home."""
        home = self.directory.parent.resolve()
        for candidate in (self.directory, path):
            resolved = candidate.resolve()
            if candidate.is_symlink() and home not in resolved.parents:
                return _fail(
                    f"{candidate} is a symbolic link to {resolved}, outside the home; the agent "
                    "does not write through it, so nothing was saved. Tell the user: they can "
                    "make it a real file or save this entry themselves."
                )
        return None

    def _with_edits(
        self, target: Target, state: FileState, edits: list[tuple[list[str], list[str]]]
    ) -> FileState:
        """`state` with other writers' edits (read back from replaced files) applied again."""
        if not edits or not state.decodable:
            return state
        entries = list(state.entries)
        for removed, added in edits:
            entries = [e for e in entries if e not in removed]
            entries += [e for e in added if e not in entries]
        raw = join_entries(entries)
        drift = self._drift_reason(target, raw, entries)
        return dataclasses.replace(state, entries=tuple(entries), raw=raw, drift=drift)

    def _changed_meanwhile(self, target: Target, outcome: dict[str, Any]) -> dict[str, Any]:
        if not outcome.get("success") and outcome.get("error"):
            outcome = {
                **outcome,
                "error": f"{FILENAMES[target]} was edited by someone else during this write, "
                f"and the operation no longer applies: {outcome['error']}",
            }
        return outcome

    def _archive(
        self, target: Target, origin: Origin, kind: str, entry: str, replaced_by: str | None
    ) -> None:
        # Archived before the file is replaced: if we die between the two writes, the old entry
        # is kept twice, not lost.
        record = ArchivedEntry(
            uuid.uuid4().hex[:12], time.time(), origin, target, kind, entry, replaced_by
        )
        append_line(self.archive_path, json.dumps(asdict(record), ensure_ascii=False))

    def _announce(
        self, target: Target, state: FileState, outcome: _Planned, origin: Origin
    ) -> None:
        before = join_entries(state.entries)
        after_text = join_entries(parse_entries(outcome.after))
        if self.audit is not None:
            self.audit.record(
                origin=origin,
                kind="memory",
                action=outcome.action,
                target=target,
                before=before,
                after=after_text,
            )
        self.sink(MemoryChanged(target, origin, outcome.action, before, after_text))

    @staticmethod
    def _separator_refusal(content: str, prefix: str = "") -> dict[str, Any] | None:
        if not any(line.strip() == "§" for line in content.splitlines()):
            return None
        return _fail(
            f"{prefix + ': ' if prefix else ''}content has a line holding only '§', which "
            "separates entries in the file; one call saves one entry. Remove that line, or "
            "save each part with its own call (or its own operation)."
        )

    def _success(self, target: Target, message: str) -> dict[str, Any]:
        state = self.read(target)
        usage = Usage(len(join_entries(state.entries)), self.limits[target])
        result: dict[str, Any] = {
            "success": True,
            "done": True,
            "target": target,
            "message": message,
            "usage": str(usage),
            "entry_count": len(state.entries),
            "note": "Saved. This update is complete; do not repeat it.",
        }
        if usage.percent >= WARN_PERCENT:
            result["warning"] = (
                f"{FILENAMES[target]} is {usage.percent}% full: merge or remove entries soon."
            )
            self.sink(Notice("warning", f"{FILENAMES[target]} is {usage.percent}% full ({usage})."))
        return result

    def _overflow(self, target: Target, state: FileState, message: str) -> dict[str, Any]:
        current = len(join_entries(state.entries))
        return {
            "success": False,
            "error": message,
            "current_entries": self._sanitised(target, state.entries),
            "usage": f"{current:,}/{self.limits[target]:,}",
        }

    def _batch_error(
        self,
        target: Target,
        working: list[str],
        message: str,
        single: bool,
        old_text: str | None = None,
    ) -> dict[str, Any]:
        state = self.read(target)
        result = self._overflow(
            target, state, message.lstrip(": ") + ("" if single else " No operation was applied.")
        )
        if old_text:
            hits = [entry for entry in working if old_text in entry]
            if len(hits) > 1:
                result["matches"] = [_preview(entry) for entry in self._sanitised(target, hits)]
        return result


def _fail(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


def _open(path: Path) -> Any:
    """The file opened for reading (kept open: a write checks it after replacing), or None."""
    try:
        return path.open("rb", buffering=0)
    except FileNotFoundError:
        return None


def _read_handle(handle: Any) -> tuple[bytes, tuple[int, int, int, str]]:
    """The bytes an open file holds now and their fingerprint; works on a replaced file too."""
    handle.seek(0)
    data = handle.read()
    stat = os.fstat(handle.fileno())
    return data, (stat.st_ino, stat.st_mtime_ns, stat.st_size, hashlib.sha256(data).hexdigest())


def _holds(path: Path, fingerprint: tuple[int, int, int, str] | None) -> bool:
    """Whether the file at `path` is still the one with `fingerprint` (None: still absent)."""
    handle = _open(path)
    if handle is None:
        return fingerprint is None
    with handle:
        return _read_handle(handle)[1] == fingerprint


def _encode(text: str, crlf: bool) -> bytes:
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
