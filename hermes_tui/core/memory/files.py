"""The two memory files on disk: reading them with their fingerprint, noticing a hand edit the
store cannot round-trip, and writing them so that nothing is lost to a writer that takes no lock
(core/storage.py: still_holds). MemoryStore (store.py) adds the operations."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hermes_tui.core import threats
from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import MemoryChanged, Origin, Sink, discard
from hermes_tui.core.memory.format import (
    BLOCK_TITLES,
    FILENAMES,
    RULE,
    TARGETS,
    ArchivedEntry,
    MemorySnapshot,
    Target,
    Usage,
    encode,
    join_entries,
    parse_entries,
)
from hermes_tui.core.memory.outcome import (
    MemoryRefusal,
    MemoryRefused,
    MemoryStoreError,
    RefusalReason,
)
from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import (
    append_line,
    atomic_write_bytes,
    file_lock,
    open_for_reading,
    read_with_fingerprint,
    still_holds,
)

# How often one write re-plans on a file that other programs keep changing before giving up.
MAX_WRITE_ATTEMPTS = 20
# How many files replaced by our recent writes are watched for saves that land in them late.
WATCHED_REPLACED_FILES = 8


@datarecord
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


@datarecord(frozen=False)
class _Replaced:
    """A memory file our write replaced, kept open to catch saves that land in it late."""

    handle: Any
    entries: tuple[str, ...]
    fingerprint: tuple[int, int, int, str] | None

    def late_edit(self) -> tuple[list[str], list[str]] | None:
        """What another writer put in since we last looked: (entries removed, entries added)."""
        data, fingerprint = read_with_fingerprint(self.handle)
        if self.fingerprint is not None and fingerprint[3] == self.fingerprint[3]:
            return None
        after = parse_entries(data.decode("utf-8", "replace").replace("\r\n", "\n"))
        edit = (
            [e for e in self.entries if e not in after],
            [e for e in after if e not in self.entries],
        )
        self.entries, self.fingerprint = tuple(after), fingerprint
        return edit


@datarecord
class Planned:
    """What one write will put in the file (LF line ends) and the entries it archives."""

    after: str
    action: str
    archived: tuple[tuple[str, str, str | None], ...] = ()


class MemoryFiles:
    """The files, their locks and the archive; the operations are MemoryStore's."""

    def __init__(
        self,
        directory: Path,
        *,
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
        audit: AuditLog | None = None,
        sink: Sink = discard,
        scanner: threats.Scanner | None = None,
        redact: Callable[[str], str] = str,
    ) -> None:
        self.directory = directory
        self.scanner = scanner or threats.Scanner()
        # The runtime's Redactor.text: content it would change holds a secret and is refused.
        self.redact = redact
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
        handle = open_for_reading(self.path(target))
        if handle is None:
            return FileState((), "", None, False)
        with handle:
            return self._state(target, handle)

    def _state(self, target: Target, handle: Any) -> FileState:
        data, fingerprint = read_with_fingerprint(handle)
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

    def shown(self, entry: str) -> str:
        """An entry (or archived one) as a face shows it: a secret in it redacted, as the model
        sees it. The file keeps the entry as written."""
        return self.redact(entry)

    def secrets_notice(self, target: Target) -> str | None:
        """Which entries on disk hold a secret the redaction knows (a hand edit, an older
        version's write), in one line; None when none does. The file is the user's: it is not
        rewritten, the prompt shows those entries redacted."""
        found: dict[int, set[str]] = {}
        for index, entry in enumerate(self.entries(target), 1):
            if (redacted := self.redact(entry)) != entry:
                found[index] = set(re.findall(r"\[REDACTED ([^\]]+)\]", redacted))
        if not found:
            return None
        names = ", ".join(sorted(set().union(*found.values())))
        which = ", ".join(map(str, found))
        holds = f"entries {which} hold" if len(found) > 1 else f"entry {which} holds"
        return (
            f"{holds} a secret ({names}): the model sees {'them' if len(found) > 1 else 'it'} "
            f"redacted; take the secret out of {FILENAMES[target]}"
        )

    def health(self) -> dict[str, str | None]:
        """Per target: None when healthy, otherwise what is wrong (for `doctor`)."""
        return {target: self.read(target).drift for target in TARGETS}

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

    def _drift_refusal(self, target: Target, state: FileState) -> MemoryRefusal:
        backup = self._backup(target)
        return MemoryRefusal(
            RefusalReason.DRIFT,
            f"Refusing to rewrite {FILENAMES[target]}: {state.drift}. Nothing was changed; "
            f"a copy of the file is at {backup}. Fix the file by hand so it is a list of "
            "entries separated by a line holding only '§' (or move the extra text out), "
            "then retry.",
            drift_backup=str(backup),
        )

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
                # A secret in an entry on disk (secrets_notice tells the user) is not sent.
                shown.append(self.redact(entry))
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
        plan: Callable[[FileState], Planned | MemoryRefusal | None],
        origin: Origin,
    ) -> bool:
        """Plan on the file as it is and write the result: True when written, False when the
        plan found nothing to do; raises MemoryRefused when the plan (or the file) refuses.

        Never overwrites bytes the plan has not seen, even from programs that take no lock.
        Just before the replace it checks the file is still the one it read (else it re-reads
        and re-plans); just after, it checks nobody wrote into the file it read (an in-place
        save racing the replace). Such an edit is read back, kept as entries removed and added,
        and applied again on top of whatever is on disk until a write lands without one.
        """
        path = self.path(target)
        if origin != "user" and (refusal := self._link_refusal(path)):
            raise MemoryRefused(refusal)
        edits: list[tuple[list[str], list[str]]] = []  # read back from replaced files
        archived: set[tuple[str, str, str | None]] = set()
        landed = False  # this operation's write reached the file (re-planned after an edit)
        with self._locked(target):
            # A save that opened the file before one of our recent replaces may land in the
            # replaced file after that write's own check: it is still ours to keep.
            replaced = self._replaced.setdefault(target, [])
            for watched in replaced:
                if edit := watched.late_edit():
                    edits.append(edit)
            for _attempt in range(MAX_WRITE_ATTEMPTS):
                handle = open_for_reading(path)
                try:
                    state = (
                        self._state(target, handle) if handle else FileState((), "", None, False)
                    )
                    merged = self._with_edits(target, state, edits)
                    outcome = plan(merged)
                    if not isinstance(outcome, Planned) and not edits:
                        # A refusal (or nothing to do) as of this read.
                        return self._unwritten(target, outcome, meanwhile=False)
                    if not isinstance(outcome, Planned):
                        data = encode(merged.raw, state.crlf)  # keep the others' edits anyway
                    else:
                        for record in set(outcome.archived) - archived:
                            archived.add(record)
                            self._archive(target, origin, *record)
                        data = encode(outcome.after, state.crlf)
                    unchanged = functools.partial(still_holds, path, state.fingerprint)
                    if not atomic_write_bytes(path, data, only_if=unchanged):
                        continue  # changed by name since we read it: read again, plan again
                    landed = landed or isinstance(outcome, Planned)
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
                if not isinstance(outcome, Planned):
                    # Nothing left to do because our own write landed before the edit: made.
                    return (outcome is None and landed) or self._unwritten(
                        target, outcome, meanwhile=True
                    )
                self._announce(target, merged, outcome, origin)
                return True
        raise MemoryRefused(
            MemoryRefusal(
                RefusalReason.CONTENDED,
                f"{FILENAMES[target]} kept changing while this write was being made (another "
                "program is writing it); nothing more was changed. Retry in a moment.",
            )
        )

    def _link_refusal(self, path: Path) -> MemoryRefusal | None:
        """A model's write never goes through a symbolic link out of the home."""
        home = self.directory.parent.resolve()
        for candidate in (self.directory, path):
            resolved = candidate.resolve()
            if candidate.is_symlink() and home not in resolved.parents:
                return MemoryRefusal(
                    RefusalReason.LINK,
                    f"{candidate} is a symbolic link to {resolved}, outside the home; the agent "
                    "does not write through it, so nothing was saved. Tell the user: they can "
                    "make it a real file or save this entry themselves.",
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

    @staticmethod
    def _unwritten(target: Target, refusal: MemoryRefusal | None, *, meanwhile: bool) -> bool:
        """False for a plan with nothing to do; raises its refusal, saying so when another
        writer's edit (read back and kept) is why the operation no longer applies."""
        if refusal is None:
            return False
        if meanwhile:
            refusal = dataclasses.replace(
                refusal,
                message=f"{FILENAMES[target]} was edited by someone else during this write, "
                f"and the operation no longer applies: {refusal.message}",
            )
        raise MemoryRefused(refusal)

    def _archive(
        self, target: Target, origin: Origin, kind: str, entry: str, replaced_by: str | None
    ) -> None:
        # Archived before the file is replaced: if we die between the two writes, the old entry
        # is kept twice, not lost.
        record = ArchivedEntry(
            uuid.uuid4().hex[:12], time.time(), origin, target, kind, entry, replaced_by
        )
        append_line(self.archive_path, json.dumps(asdict(record), ensure_ascii=False))

    def _announce(self, target: Target, state: FileState, outcome: Planned, origin: Origin) -> None:
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
