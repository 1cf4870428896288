"""Bounded memory: MEMORY.md (the agent's notes) and USER.md (who the user is).

Hermes semantics (DESIGN.md section 6): entries joined by "\\n§\\n", limits counted in characters
of the joined text, substring matching for replace/remove, refusals that carry `current_entries`
and `usage` so the model can consolidate, and a frozen snapshot for the system prompt. A write
returns a MemoryChange or raises MemoryRefused (outcome.py); the memory tool makes the payloads.
Ours beyond Hermes: every replaced or removed entry is archived and restorable, every write is
audited and announced as a `MemoryChanged` event, and a file edited by hand into a shape the
store cannot round-trip is backed up and never overwritten.

Nothing is lost to a writer that does not take our lock (an editor saving in place, `echo >>`):
each write compares the file with what its operation was planned on just before replacing it,
and checks afterwards that nobody wrote into the replaced file meanwhile; either way it re-reads
and re-applies the operation to what is there now. A CRLF file stays CRLF.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from typing import Any

from hermes_tui.core import threats
from hermes_tui.core.events import Notice, Origin
from hermes_tui.core.memory.files import FileState, MemoryFiles, Planned
from hermes_tui.core.memory.format import (
    ENTRY_DELIMITER,
    FILENAMES,
    WARN_PERCENT,
    ArchivedEntry,
    Target,
    Usage,
    join_entries,
    preview,
)
from hermes_tui.core.memory.outcome import (
    MemoryChange,
    MemoryPreview,
    MemoryRefusal,
    MemoryRefused,
    MemoryStoreError,
    RefusalReason,
)
from hermes_tui.core.storage import append_line


class MemoryStore(MemoryFiles):
    """Thread- and process-safe store for the two memory files of one home."""

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
    # Each write returns the MemoryChange it made, or raises MemoryRefused (nothing changed).

    def add(self, target: Target, content: str, *, origin: Origin = "agent") -> MemoryChange:
        self._check_target(target)
        content = (content or "").strip()
        if not content:
            raise _refused(
                RefusalReason.EMPTY, "content is empty: give the fact to remember in 'content'."
            )
        if refusal := self._separator_refusal(content) or self._scan(content):
            raise MemoryRefused(refusal)

        def plan(state: FileState) -> Planned | MemoryRefusal | None:
            if not state.decodable:
                return self._drift_refusal(target, state)
            if content in state.entries:
                return None
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
            return Planned(f"{base}{ENTRY_DELIMITER}{content}" if base else content, "add")

        if self._write(target, plan, origin):
            return self._change(target, "add", "Entry added.")
        return self._change(target, "add", "Entry already exists; nothing added.", changed=False)

    def replace(
        self, target: Target, old_text: str, content: str, *, origin: Origin = "agent"
    ) -> MemoryChange:
        return self.apply_batch(
            target,
            [{"action": "replace", "old_text": old_text, "content": content}],
            origin=origin,
            single=True,
        )

    def replace_shown(
        self, target: Target, entry: str, text: str, *, origin: Origin = "user"
    ) -> MemoryChange:
        """Replace `entry` with `text`, written over its shown form (`shown`: its secrets as
        redaction labels). A label of the entry's own still in `text` would put the label in
        the file where the secret was: refused, the file unchanged. Without the labels the
        secret leaves the entry (the old one goes to the archive, as every replaced entry)."""
        shown = self.shown(entry)
        labels = set(re.findall(r"\[REDACTED [^\]]+\]", shown))
        # A label the entry holds as text is the user's; one more than that stands for a secret.
        kept = sorted(
            label
            for label in labels
            if shown.count(label) > entry.count(label) and text.count(label) > entry.count(label)
        )
        if kept:
            names = ", ".join(label[len("[REDACTED ") : -1] for label in kept)
            raise MemoryRefused(
                MemoryRefusal(
                    RefusalReason.SECRET,
                    f"not saved: this entry holds a secret ({names}), shown as "
                    f"{' '.join(kept)}; saving would write that label over the secret in "
                    f"{FILENAMES[target]}. Take the label out to drop the secret from the "
                    f"entry, or edit {FILENAMES[target]} outside the app to keep it.",
                )
            )
        return self.replace(target, entry, text, origin=origin)

    def remove(self, target: Target, old_text: str, *, origin: Origin = "agent") -> MemoryChange:
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
    ) -> MemoryChange:
        """Apply add/replace/remove operations all-or-nothing against the final budget."""
        self._check_target(target)
        if refusal := self._check_operations(operations, single):
            raise MemoryRefused(refusal)
        action_name = operations[0]["action"] if single else "batch"

        def plan(state: FileState) -> Planned | MemoryRefusal:
            planned = self._plan(target, state, operations, single)
            if isinstance(planned, MemoryRefusal):
                return planned
            working, archived = planned
            return Planned(join_entries(working), action_name, tuple(archived))

        self._write(target, plan, origin)
        messages = {"replace": "Entry replaced.", "remove": "Entry removed."}
        message = messages[action_name] if single else f"Applied {len(operations)} operation(s)."
        return self._change(target, action_name, message)

    def preview(self, target: Target, operations: list[dict[str, Any]]) -> MemoryPreview:
        """What apply_batch would do, without writing; raises MemoryRefused as it would."""
        self._check_target(target)
        if refusal := self._check_operations(operations, False):
            raise MemoryRefused(refusal)
        state = self.read(target)
        if len(operations) == 1 and operations[0].get("action") == "add":
            content = str(operations[0].get("content") or "").strip()
            if content and content not in state.entries:
                after = [*state.entries, content]
                if len(join_entries(after)) > self.limits[target]:
                    raise MemoryRefused(
                        self._overflow(
                            target, state, f"{FILENAMES[target]} has no room for this entry."
                        )
                    )
                return MemoryPreview(join_entries(state.entries), join_entries(after))
        planned = self._plan(target, state, operations, False)
        if isinstance(planned, MemoryRefusal):
            raise MemoryRefused(planned)
        return MemoryPreview(join_entries(state.entries), join_entries(planned[0]))

    def _check_operations(
        self, operations: list[dict[str, Any]], single: bool
    ) -> MemoryRefusal | None:
        if not operations:
            return MemoryRefusal(
                RefusalReason.EMPTY,
                "operations is empty: give at least one {action, content, old_text}.",
            )
        for index, op in enumerate(operations, 1):
            if not isinstance(op, dict):
                return MemoryRefusal(
                    RefusalReason.INVALID,
                    f"operation {index} is not an object with action/content/old_text.",
                )
            if op.get("action") not in ("add", "replace") or not op.get("content"):
                continue
            prefix = self._op_label(index, op, single)
            content = str(op["content"])
            if refusal := self._separator_refusal(content, prefix) or self._scan(content, prefix):
                return refusal
        return None

    def _plan(
        self, target: Target, state: FileState, operations: list[dict[str, Any]], single: bool
    ) -> tuple[list[str], list[tuple[str, str, str | None]]] | MemoryRefusal:
        """The entries after `operations` and what they archive, or the refusal."""
        if state.drift:
            return self._drift_refusal(target, state)
        working = list(state.entries)
        archived: list[tuple[str, str, str | None]] = []
        for index, op in enumerate(operations, 1):
            label = self._op_label(index, op, single)
            action = op.get("action")
            content = str(op.get("content") or "").strip()
            old_text = str(op.get("old_text") or "").strip()
            problem: tuple[RefusalReason, str] | None = None
            if action == "add":
                if not content:
                    problem = RefusalReason.EMPTY, f"{label}: content is empty."
                elif content not in working:
                    working.append(content)
            elif action not in ("replace", "remove"):
                problem = (
                    RefusalReason.INVALID,
                    f"{label}: unknown action; use add, replace or remove.",
                )
            elif not old_text:
                problem = (
                    RefusalReason.EMPTY,
                    f"{label}: old_text is empty; set it to a short unique part of the entry to "
                    f"{action} (see current_entries).",
                )
            elif action == "replace" and not content:
                problem = (
                    RefusalReason.EMPTY,
                    f"{label}: content is empty; use action 'remove' to delete an entry.",
                )
            else:
                found = self._match(working, old_text)
                if isinstance(found, tuple):
                    reason, message = found
                    return self._batch_error(
                        target, working, reason, f"{label}: {message}", single, old_text
                    )
                old_entry = working[found]
                if action == "replace":
                    working[found] = content
                    archived.append(("replace", old_entry, content))
                else:
                    working.pop(found)
                    archived.append(("remove", old_entry, None))
            if problem:
                return self._batch_error(target, working, *problem, single)
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

    def restore(self, archive_id: str, *, origin: Origin = "user") -> MemoryChange:
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
        added = self.add(target, record.entry, origin=origin)
        append_line(
            self.archive_path,
            json.dumps({"restored": record.id, "time": time.time(), "origin": origin}),
        )
        name = FILENAMES[target]
        message = (
            f"The entry was already in {name}; it left the archive."
            if present
            else f"Restored to {name}."
        )
        warning = added.warning
        if record.replaced_by and record.replaced_by in added.entries:
            beside = (
                f"Restored beside its replacement ({preview(record.replaced_by)}); "
                "edit or delete one of them."
            )
            warning = " ".join(filter(None, (beside, warning)))
        return dataclasses.replace(added, action="restore", message=message, warning=warning)

    # ---- internals -----------------------------------------------------------------------

    @staticmethod
    def _match(entries: list[str], old_text: str) -> int | tuple[RefusalReason, str]:
        """Index of the one entry `old_text` names, or why it names none."""
        for index, entry in enumerate(entries):
            if entry == old_text:
                return index
        hits = [index for index, entry in enumerate(entries) if old_text in entry]
        if not hits:
            return (
                RefusalReason.NO_MATCH,
                f"no entry contains {old_text!r}; use the exact text of one of current_entries.",
            )
        if len({entries[i] for i in hits}) > 1:
            listed = "; ".join(repr(preview(entries[i])) for i in hits)
            return (
                RefusalReason.AMBIGUOUS,
                f"{old_text!r} matches {len(hits)} entries ({listed}); quote more of the one "
                "you mean.",
            )
        return hits[0]

    @staticmethod
    def _op_label(index: int, op: dict[str, Any], single: bool) -> str:
        return "" if single else f"operation {index} ({op.get('action') or 'no action'})"

    def _scan(self, content: str, prefix: str = "") -> MemoryRefusal | None:
        """The refusal for injection-shaped content, or None (held findings are the agent's
        gate's business: core/agent/taint.py stages those writes for the user)."""
        if len(content) > threats.MAX_SCAN_CHARS:
            return MemoryRefusal(
                RefusalReason.TOO_LARGE,
                f"{prefix + ': ' if prefix else ''}content is too large to be a memory entry.",
            )
        if (redacted := self.redact(content)) != content:
            names = sorted(set(re.findall(r"\[REDACTED ([^\]]+)\]", redacted)))
            return MemoryRefusal(
                RefusalReason.SECRET,
                f"{prefix + ': ' if prefix else ''}refused: the text holds a secret "
                f"({', '.join(names)}; raw or encoded). Memory is sent to the model in every "
                "future system prompt; save the fact without the secret.",
            )
        verdict = self.scanner.assess(content)
        if verdict.tier != "refuse":
            return None
        refused = [f for f in verdict.findings if threats.tier_of(f) == "refuse"]
        return MemoryRefusal(
            RefusalReason.THREAT,
            f"{prefix + ': ' if prefix else ''}refused ({verdict.id}): the text matches "
            f"{threats.describe(refused)}. Memory is injected into every future system "
            "prompt, so it may not hold instructions, secrets or hidden text. Save the fact "
            "in plain declarative words instead.",
            pattern_ids=tuple(finding.id for finding in refused),
        )

    @staticmethod
    def _separator_refusal(content: str, prefix: str = "") -> MemoryRefusal | None:
        if not any(line.strip() == "§" for line in content.splitlines()):
            return None
        return MemoryRefusal(
            RefusalReason.SEPARATOR,
            f"{prefix + ': ' if prefix else ''}content has a line holding only '§', which "
            "separates entries in the file; one call saves one entry. Remove that line, or "
            "save each part with its own call (or its own operation).",
        )

    def _change(
        self, target: Target, action: str, message: str, *, changed: bool = True
    ) -> MemoryChange:
        entries = self.read(target).entries
        usage = Usage(len(join_entries(entries)), self.limits[target])
        warning = None
        if usage.percent >= WARN_PERCENT:
            warning = f"{FILENAMES[target]} is {usage.percent}% full: merge or remove entries soon."
            self.sink(Notice("warning", f"{FILENAMES[target]} is {usage.percent}% full ({usage})."))
        return MemoryChange(target, action, message, usage, entries, changed, warning)

    def _overflow(
        self,
        target: Target,
        state: FileState,
        message: str,
        reason: RefusalReason = RefusalReason.FULL,
        matches: tuple[str, ...] | None = None,
    ) -> MemoryRefusal:
        current = len(join_entries(state.entries))
        return MemoryRefusal(
            reason,
            message,
            current_entries=tuple(self._sanitised(target, state.entries)),
            usage=Usage(current, self.limits[target]),
            matches=matches,
        )

    def _batch_error(
        self,
        target: Target,
        working: list[str],
        reason: RefusalReason,
        message: str,
        single: bool,
        old_text: str | None = None,
    ) -> MemoryRefusal:
        matches = None
        if old_text:
            hits = [entry for entry in working if old_text in entry]
            if len(hits) > 1:
                matches = tuple(preview(entry) for entry in self._sanitised(target, hits))
        return self._overflow(
            target,
            self.read(target),
            message.lstrip(": ") + ("" if single else " No operation was applied."),
            reason,
            matches,
        )


def _refused(reason: RefusalReason, message: str) -> MemoryRefused:
    return MemoryRefused(MemoryRefusal(reason, message))
