"""Staged writes: memory, skill and instruction-file writes that wait for the user's approval.

A review's writes wait here when write approval is on; any agent or review write waits here
when its conversation read untrusted content (taint) or the scanner holds it (core/agent/taint.py),
and so does a files-tool write that copies a tool result into a project's instruction file
(AGENTS.md...: kind "file", its target the file's path, replayed as write_file in `workdir`).

Each is `<home>/pending/<id>.json`: the tool call to replay, the text before and after, and a
hash of the target as it was when staged. Approving re-checks that hash (the target must not
have changed meanwhile) and replays the call; approved and rejected records move to
`pending/.approved/` and `pending/.rejected/`, so nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import atomic_write_text, ensure_private_dir


class PendingError(Exception):
    """A pending write that cannot be approved (unknown id, or its target changed)."""


class PendingRefused(PendingError):
    """The approved write was replayed and its store refused it; the write stays pending."""


@datarecord
class PendingWrite:
    """A write held for the user's approval (pending/<id>.json), with why and from where."""

    id: str
    created_at: float
    origin: str
    review_id: str
    kind: str  # memory, skill or file (a project's instruction file)
    target: str
    action: str
    tool: str
    arguments: dict[str, Any]
    before: str | None
    after: str | None
    base_hash: str
    # Why it waits (empty for write approval) and the untrusted tool results that tainted it.
    reason: str = ""
    sources: tuple[dict[str, str], ...] = ()
    # The tool results it copies text from (provenance.ContentMatch as a dict): call, excerpts.
    copied: tuple[dict[str, Any], ...] = ()
    # The working directory a held file write is replayed in (the path policy judges it there).
    workdir: str = ""


# One wording for every face that says where a held write is meanwhile.
QUARANTINE = "kept out of the prompt until approved"


def quarantine_line(count: int, kind: str = "write") -> str:
    """`2 held writes kept out of the prompt until approved` (pending list, the memory pane)."""
    return f"{count} held {kind}{'s' if count != 1 else ''} {QUARANTINE}"


def text_hash(text: str | None) -> str:
    return hashlib.sha256(("\x00absent" if text is None else text).encode("utf-8")).hexdigest()


def why_held(record: PendingWrite) -> list[str]:
    """Lines saying why a write waits, what it copies (both excerpts side by side) and which tool
    results tainted it (both faces show them)."""
    if not record.reason:
        return []
    lines = [f"held: {record.reason}"]
    for match in record.copied:
        lines.append(f"copied from {match.get('call')}:")
        lines.extend(
            side_by_side(
                ("tool result", str(match.get("source_excerpt"))),
                ("this write", str(match.get("write_excerpt"))),
            )
        )
    for source in record.sources:
        lines.append(f"tainted by {source.get('tool')}: {source.get('call')}")
        lines.append(f"  {source.get('reason')}; it returned: {source.get('excerpt')}")
    return lines


def side_by_side(left: tuple[str, str], right: tuple[str, str], width: int = 40) -> list[str]:
    """Two titled excerpts as columns of `width` characters: what a tool returned beside what
    the write says."""
    import textwrap

    columns = [
        [title, "-" * len(title), *textwrap.wrap(text, width)] for title, text in (left, right)
    ]
    rows = max(len(column) for column in columns)
    for column in columns:
        column.extend([""] * (rows - len(column)))
    return [f"  {a:<{width}} │ {b}".rstrip() for a, b in zip(*columns, strict=True)]


class PendingStore:
    def __init__(self, directory: Path, redact: Callable[[Any], Any] | None = None) -> None:
        self.directory = directory
        # The runtime's Redactor.value: a staged write never keeps a secret (approving one
        # stores the placeholder, not the secret).
        self.redact = redact or (lambda value: value)

    def stage(
        self,
        *,
        review_id: str,
        kind: str,
        target: str,
        action: str,
        tool: str,
        arguments: dict[str, Any],
        before: str | None,
        after: str | None,
        origin: str = "review",
        reason: str = "",
        sources: tuple[dict[str, str], ...] = (),
        copied: tuple[dict[str, Any], ...] = (),
        workdir: str = "",
    ) -> PendingWrite:
        record = PendingWrite(
            uuid.uuid4().hex[:10],
            time.time(),
            origin,
            review_id,
            kind,
            target,
            action,
            tool,
            arguments,
            before,
            after,
            text_hash(before),
            reason,
            sources,
            copied,
            workdir,
        )
        ensure_private_dir(self.directory)  # staged writes carry memory and skill text: 0700
        atomic_write_text(
            self.directory / f"{record.id}.json",
            json.dumps(self.redact(asdict(record)), indent=2, ensure_ascii=False),
        )
        return record

    def list(self) -> list[PendingWrite]:
        records = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                records.append(PendingWrite(**json.loads(path.read_text(encoding="utf-8"))))
            except (OSError, json.JSONDecodeError, TypeError):
                continue
        return sorted(records, key=lambda r: r.created_at)

    def count(self, kind: str | None = None) -> int:
        """How many writes wait (of one kind: memory or skill)."""
        return sum(1 for record in self.list() if kind is None or record.kind == kind)

    def get(self, pending_id: str) -> PendingWrite:
        path = self.directory / f"{pending_id}.json"
        if not path.is_file():
            raise PendingError(
                f"no pending write {pending_id!r}; `hermes-tui pending list` shows them"
            )
        return PendingWrite(**json.loads(path.read_text(encoding="utf-8")))

    def approve(
        self,
        pending_id: str,
        current_text: Callable[[PendingWrite], str | None],
        apply: Callable[[PendingWrite], None],
    ) -> PendingWrite:
        """Apply a held write and file it as approved; the record applied.

        `apply` makes the write and raises PendingRefused when its store refuses it (the
        record then stays pending); a target changed since staging raises PendingError.
        """
        record = self.get(pending_id)
        if text_hash(current_text(record)) != record.base_hash:
            raise PendingError(
                f"{record.kind} {record.target!r} changed since this write was staged; reject it "
                "(the next review will look again)"
            )
        apply(record)
        self._move(record, ".approved")
        return record

    def reject(self, pending_id: str) -> PendingWrite:
        record = self.get(pending_id)
        self._move(record, ".rejected")
        return record

    def _move(self, record: PendingWrite, folder: str) -> None:
        destination = self.directory / folder
        ensure_private_dir(destination)
        (self.directory / f"{record.id}.json").replace(destination / f"{record.id}.json")
