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

import json
import time
from typing import Any

from hermes_tui.core import threats
from hermes_tui.core.events import Notice, Origin
from hermes_tui.core.memory.files import FileState, MemoryFiles, MemoryStoreError, Planned, fail
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
from hermes_tui.core.storage import (
    append_line,
)


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

    def add(self, target: Target, content: str, *, origin: Origin = "agent") -> dict[str, Any]:
        self._check_target(target)
        content = (content or "").strip()
        if not content:
            return fail("content is empty: give the fact to remember in 'content'.")
        if refusal := self._separator_refusal(content) or self._scan(content):
            return refusal

        def plan(state: FileState) -> Planned | dict[str, Any]:
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
            return Planned(f"{base}{ENTRY_DELIMITER}{content}" if base else content, "add")

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

        def plan(state: FileState) -> Planned | dict[str, Any]:
            planned = self._plan(target, state, operations, single)
            if isinstance(planned, dict):
                return planned
            working, archived = planned
            return Planned(join_entries(working), action_name, tuple(archived))

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
            return fail("operations is empty: give at least one {action, content, old_text}.")
        for index, op in enumerate(operations, 1):
            if not isinstance(op, dict):
                return fail(f"operation {index} is not an object with action/content/old_text.")
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
                f"Restored beside its replacement ({preview(record.replaced_by)}); "
                "edit or delete one of them."
            )
            result["warning"] = " ".join(filter(None, (beside, result.get("warning"))))
        return result

    # ---- internals -----------------------------------------------------------------------

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
            listed = "; ".join(repr(preview(entries[i])) for i in hits)
            return f"{old_text!r} matches {len(hits)} entries ({listed}); quote more of the one you mean."
        return hits[0]

    @staticmethod
    def _op_label(index: int, op: dict[str, Any], single: bool) -> str:
        return "" if single else f"operation {index} ({op.get('action') or 'no action'})"

    def _scan(self, content: str, prefix: str = "") -> dict[str, Any] | None:
        """The refusal for injection-shaped content, or None (held findings are the agent's
        gate's business: core/agent/taint.py stages those writes for the user)."""
        if len(content) > threats.MAX_SCAN_CHARS:
            return fail(
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

    @staticmethod
    def _separator_refusal(content: str, prefix: str = "") -> dict[str, Any] | None:
        if not any(line.strip() == "§" for line in content.splitlines()):
            return None
        return fail(
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
                result["matches"] = [preview(entry) for entry in self._sanitised(target, hits)]
        return result
