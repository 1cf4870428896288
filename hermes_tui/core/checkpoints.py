"""Checkpoints: what the agent's file edits replaced, so a turn can be undone (`/rewind`).

Layout, under `<home>/checkpoints/<session id>/` (0700): `blobs/<sha256>` holds file contents by
their hash (each written once, atomically), and `log.jsonl` one record per line:
`{"kind": "turn", "turn", "text", "at", "messages", "session_id"}` when a user turn starts
(`messages`: how many messages the stored conversation `session_id` held before it), `{"kind": "write", "turn", "path", "before",
"after"}` for each change write_file or patch made (`before` is the hash of what was there, or
null when the file did not exist, so a rewind deletes it; `after` the hash of what the agent
wrote), and `{"kind": "restore", "path", "after"}` when a rewind put a file back.

Rewinding to before turn T restores each file changed in turn T or later to its `before` in the
first such change. A file whose content now differs from the last thing the agent (or a rewind)
left in it was changed since, by hand or by a command: it is a conflict, and the face asks before
it is overwritten. Commands run in the terminal are not tracked: what they changed stays. Only
what the files tools wrote is; a file over MAX_SNAPSHOT bytes is recorded as not restorable.

Each file written back is judged as the files tools judge a write there (path_policy.py, at plan
time): one they would ask about (it runs later outside the sandbox: a git config or hook,
`.envrc`, `.vscode/`, run_later.py; it lies outside the working directory; a secret file) is
written back only when the face asked the user (`restore(..., asked_ok=True)`), the plan saying
why; one they never write (the hermes home's stores) is refused. A log naming any path (forged,
or recorded in another folder) so cannot put a file where the agent could not.

A rewind reads, writes and deletes only the recorded path itself (the real path the files tools
wrote, which holds no link), never through a symbolic link (core/nofollow.py): when a command
swapped a folder on the way, or the file, for a link (to the user's home, say), that file is
refused, with why, and left alone; a swap during the rewind cannot redirect the write either.
"""

from __future__ import annotations

import hashlib
import json
import stat
import time
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from hermes_tui.core import nofollow
from hermes_tui.core.records import datarecord
from hermes_tui.core.storage import (
    append_line,
    atomic_write_bytes,
    ensure_private_dir,
    file_lock,
)

MAX_SNAPSHOT = 20_000_000  # bytes; a bigger file's edit is recorded but cannot be restored
TOO_LARGE = "too-large"  # the `before` of such a file


class CheckpointError(Exception):
    """A rewind that cannot be done as asked, with why."""


@datarecord
class Turn:
    """One user turn of a session as /rewind lists it, with the files it changed."""

    number: int
    text: str
    at: float
    messages: int  # messages in the conversation before this turn's user message
    session_id: str = ""  # the stored conversation `messages` counts (compression starts anew)
    files: tuple[str, ...] = ()  # paths its write_file/patch calls changed, in order


@datarecord
class FileRestore:
    """One file of a rewind: what it becomes, and whether it was changed since the agent."""

    path: str
    target: bytes | None  # None: the agent created it, so the rewind deletes it
    current: bytes | None  # None: it does not exist now
    changed_since: bool  # its content is not what the agent (or a rewind) last left there
    restorable: bool = True
    refused: str = ""  # why it cannot be touched safely (a link on its path); then not restorable
    asks: str = ""  # why the files tools would ask before writing it (the user is asked first)

    @property
    def needed(self) -> bool:
        return self.target != self.current

    def diff(self) -> str:
        """A unified diff from the file as it is now to what the rewind makes it."""
        if self.refused:
            return f"{self.refused}; it stays as it is\n"
        if not self.restorable:
            return f"{self.path}: too large to have been saved; it stays as it is\n"

        def lines(data: bytes | None) -> list[str]:
            return [] if data is None else data.decode("utf-8", "replace").splitlines(True)

        import difflib  # only a rewind's preview diffs; every session makes a store

        before_name = self.path if self.current is not None else "/dev/null"
        after_name = self.path if self.target is not None else "/dev/null"
        return "".join(
            difflib.unified_diff(
                lines(self.current), lines(self.target), f"a/{before_name}", f"b/{after_name}"
            )
        )


@datarecord
class RewindPlan:
    """What rewinding to a turn would do: the turn and the files put back."""

    turn: Turn
    files: tuple[FileRestore, ...] = field(default_factory=tuple)

    @property
    def conflicts(self) -> tuple[FileRestore, ...]:
        return tuple(f for f in self.files if f.changed_since and f.needed and f.restorable)

    @property
    def asked(self) -> tuple[FileRestore, ...]:
        """Files the rewind writes back that the files tools would ask about: asked first."""
        return tuple(f for f in self.files if f.asks and f.needed and f.restorable)

    @property
    def refused(self) -> tuple[FileRestore, ...]:
        """Files the rewind will not touch because a link is on their path, with why."""
        return tuple(f for f in self.files if f.refused)


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    """The file's bytes (None: it does not exist), never through a link or from a named pipe
    (nofollow.UnsafePath)."""
    return nofollow.read_bytes(path)


class CheckpointStore:
    """One conversation's checkpoints; the files tools call `before` and `after` around a write."""

    def __init__(self, root: Path, session_id: str, redact: Callable[[str], str] = str) -> None:
        self.root = root
        self.redact = redact  # the turn's text is kept as sessions.db keeps it
        # The conversation's working directory (Session.attach), against which a file written
        # back is judged for running later outside the sandbox.
        self.workdir: Path | None = None
        self.folder = root / session_id
        self.log_path = self.folder / "log.jsonl"
        self._pending: dict[str, str | None] = {}  # path -> `before` hash of the write under way
        records = self.records()
        self.turn = max((r["turn"] for r in records if r["kind"] == "turn"), default=0)

    # ---- recording ------------------------------------------------------------------------

    def records(self) -> list[dict[str, Any]]:
        try:
            text = self.log_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        records = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a killed writer
            if isinstance(record, dict) and "kind" in record:
                records.append(record)
        return records

    def _append(self, record: dict[str, Any]) -> None:
        ensure_private_dir(self.root)
        ensure_private_dir(self.folder)
        append_line(self.log_path, json.dumps(record, ensure_ascii=False))

    def _store_blob(self, data: bytes) -> str:
        digest = _hash(data)
        blob = self.folder / "blobs" / digest
        if not blob.exists():
            ensure_private_dir(blob.parent)
            atomic_write_bytes(blob, data, mode=0o600)
        return digest

    def blob(self, digest: str) -> bytes:
        return (self.folder / "blobs" / digest).read_bytes()

    def begin_turn(self, text: str, messages: int, session_id: str) -> int:
        self.turn += 1
        self._append(
            {
                "kind": "turn",
                "turn": self.turn,
                "text": self.redact(text)[:2000],
                "at": time.time(),
                "messages": messages,
                "session_id": session_id,
            }
        )
        return self.turn

    def before(self, path: Path) -> None:
        """Snapshot `path` as it is, right before a tool replaces it."""
        key = str(path)
        try:
            info = path.lstat()
        except FileNotFoundError:
            self._pending[key] = None
            return
        if not stat.S_ISREG(info.st_mode):
            return  # a link or special file: the tool refuses it (not recorded, not restorable)
        size = info.st_size
        if size > MAX_SNAPSHOT:
            self._pending[key] = TOO_LARGE
            return
        try:
            data = _read(path)
        except nofollow.UnsafePath:
            return  # swapped for a link meanwhile: not recorded, so a rewind never touches it
        self._pending[key] = None if data is None else self._store_blob(data)

    def after(self, path: Path) -> None:
        """The write went through: record it with what it left."""
        key = str(path)
        if key not in self._pending:
            return
        before = self._pending.pop(key)
        try:
            data = _read(path)
        except nofollow.UnsafePath:
            return  # swapped for a link right after the write: nothing safe to record
        after = None if data is None else self._store_blob(data)
        self._append(
            {"kind": "write", "turn": self.turn, "path": key, "before": before, "after": after}
        )

    def forget_last_turn(self, session_id: str) -> None:
        """`/undo` took the last turn of `session_id` out of the conversation: it is no longer
        a point to rewind to. Its file writes stay on record, so rewinding to an earlier turn
        still puts back what it changed."""
        turns = self.turns()
        if turns and turns[-1].session_id == session_id:
            self._append({"kind": "undone", "turn": turns[-1].number})

    # ---- reading and rewinding -----------------------------------------------------------

    def turns(self) -> list[Turn]:
        """The conversation's turns, oldest first, each with the files it changed (a turn
        `/undo` removed is no longer one)."""
        records = self.records()
        undone = {r["turn"] for r in records if r["kind"] == "undone"}
        files: dict[int, list[str]] = {}
        for r in records:
            if r["kind"] == "write" and r["path"] not in files.setdefault(r["turn"], []):
                files[r["turn"]].append(r["path"])
        return [
            Turn(
                r["turn"],
                r["text"],
                r["at"],
                r["messages"],
                r.get("session_id", ""),
                tuple(files.get(r["turn"], ())),
            )
            for r in records
            if r["kind"] == "turn" and r["turn"] not in undone
        ]

    def get(self, number: int) -> Turn:
        turn = next((t for t in self.turns() if t.number == number), None)
        if turn is None:
            raise CheckpointError(f"there is no turn {number} in this conversation")
        return turn

    def plan(self, number: int) -> RewindPlan:
        """What rewinding to before turn `number` would do to the files."""
        turn = self.get(number)
        first_before: dict[str, str | None] = {}
        last_after: dict[str, str | None] = {}
        for r in self.records():
            if r["kind"] == "write":
                if r["turn"] >= number and r["path"] not in first_before:
                    first_before[r["path"]] = r["before"]
                last_after[r["path"]] = r["after"]
            elif r["kind"] == "restore":
                last_after[r["path"]] = r["after"]
        files = []
        for path, before in first_before.items():
            try:
                current = _read(Path(path))
            except nofollow.UnsafePath as exc:
                reason = f"not restored: {exc.why}"
                files.append(FileRestore(path, None, None, True, False, f"{path}: {reason}"))
                continue
            expected = last_after.get(path)
            changed = (None if current is None else _hash(current)) != expected
            if before == TOO_LARGE:
                files.append(FileRestore(path, None, current, changed, restorable=False))
                continue
            target = None if before is None else self.blob(before)
            asks = ""
            if target is not None and target != current:
                from hermes_tui.core.tools.path_policy import judge_write

                verdict = judge_write(Path(path), self.workdir or Path.cwd(), self.root.parent)
                if verdict.action == "deny":
                    refused = f"{path}: not restored: {verdict.reason}"
                    files.append(FileRestore(path, None, current, True, False, refused))
                    continue
                asks = verdict.reason if verdict.action == "ask" else ""
            files.append(FileRestore(path, target, current, changed, asks=asks))
        return RewindPlan(turn, tuple(files))

    def restore(
        self, plan: RewindPlan, *, overwrite_changed: bool, asked_ok: bool = False
    ) -> list[str]:
        """Put the plan's files back; a file changed since is left alone unless
        `overwrite_changed`, one the files tools would ask about unless `asked_ok` (the user
        was asked: `plan.asked`). Returns the paths restored. Each is written atomically under the
        log's lock, and checked again right before, so an edit made meanwhile is never lost
        without having been asked about."""
        restored: list[str] = []
        with file_lock(self.log_path):
            for item in plan.files:
                if not item.restorable or not item.needed:
                    continue
                path = Path(item.path)
                try:
                    now = _read(path)
                except nofollow.UnsafePath as exc:
                    raise CheckpointError(
                        f"{item.path} changed while the rewind was being chosen ({exc.why}); "
                        "it was not touched"
                    ) from None
                if now != item.current:
                    raise CheckpointError(
                        f"{item.path} changed while the rewind was being chosen; look again"
                    )
                if item.changed_since and not overwrite_changed:
                    continue
                if item.asks and not asked_ok:
                    continue
                try:
                    if item.target is None:
                        nofollow.unlink(path)
                    else:
                        nofollow.write_bytes(path, item.target)
                except nofollow.UnsafePath as exc:
                    raise CheckpointError(f"{exc}; it was not touched") from None
                after = None if item.target is None else self._store_blob(item.target)
                self._append({"kind": "restore", "path": item.path, "after": after})
                restored.append(item.path)
        return restored

    def copy_to(self, other: CheckpointStore, before_turn: int) -> None:
        """Carry the records of turns before `before_turn` (and their blobs) into the store of
        a conversation forked from this one, so it can rewind them too."""
        for r in self.records():
            if r.get("turn", 0) >= before_turn and r["kind"] != "restore":
                continue
            for key in ("before", "after"):
                digest = r.get(key)
                if digest and digest != TOO_LARGE:
                    other._store_blob(self.blob(digest))
            other._append(r)
        other.turn = max(other.turn, before_turn - 1)
