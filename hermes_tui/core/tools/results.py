"""What a tool result may carry out of the process: known secrets redacted, size capped.

Every tool result passes here once (`ToolRegistry.run`) before the model, sessions.db or a
face sees it. Redaction (core/redaction/) replaces known secret values, in their encoded forms
too, and well-known key shapes. The cap keeps a result under `tools.max_result_chars` of JSON: the largest field is cut to its head and
tail with a note saying how much was left out and where the whole output was saved (the
session's scratch folder, `<home>/scratch/<session id>/`, 0700), so the model can page through
it with read_file.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import field
from pathlib import Path
from typing import Any

from hermes_tui.core.records import datarecord
from hermes_tui.core.redaction import Redactor, collect_secrets  # noqa: F401 - re-exported
from hermes_tui.core.redaction.pieces import PieceLedger
from hermes_tui.core.storage import atomic_write_text, ensure_private_dir

DEFAULT_MAX_RESULT_CHARS = 30_000
# Room for the cut note and the JSON around a cut field.
NOTE_ROOM = 700


@datarecord
class ResultLimits:
    """How tool results are bounded; one per runtime, shared by the main agent and reviews."""

    max_chars: int = DEFAULT_MAX_RESULT_CHARS
    redactor: Redactor = field(default_factory=Redactor)
    # <home>/scratch; a session's cut outputs go to <scratch_root>/<session id>/.
    scratch_root: Path | None = None

    def scratch_dir(self, session_id: str | None) -> Path | None:
        if self.scratch_root is None:
            return None
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id or "") or "no-session"
        return self.scratch_root / safe.lstrip(".")


@datarecord
class BoundedResult:
    """A tool result as the model gets it, beside the whole of it for the faces."""

    result: dict[str, Any]  # redacted and capped: what the model reads and sessions.db keeps
    full: dict[str, Any]  # redacted, not capped
    full_text: str  # `full` as JSON text
    saved_to: Path | None = None  # where the uncut output was written, when it was cut
    # What only the faces show (a file edit's diff), never sent to the model: a tool puts it
    # under DISPLAY_KEY in its raw result and it is taken out here.
    display: dict[str, Any] = field(default_factory=dict)


# A tool's raw result may hold this key for the faces alone (redacted like the rest).
DISPLAY_KEY = "_display"


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def bound_result(
    tool_name: str, raw: dict[str, Any], limits: ResultLimits, session_id: str | None
) -> BoundedResult:
    """Redact `raw`, and cut it to `limits.max_chars` of JSON with a note on how to page."""
    display: dict[str, Any] = {}
    if DISPLAY_KEY in raw:
        raw = dict(raw)
        display = limits.redactor.value(raw.pop(DISPLAY_KEY)) or {}
    # (Its JSON, when long, is not redacted again as the faces' event carries it: json_of.)
    full, full_text = limits.redactor.json_of(raw)
    if len(full_text) <= limits.max_chars:
        return BoundedResult(full, full, full_text, display=display)
    path, leaf = _largest_leaf(full)
    saved_text = leaf if isinstance(leaf, str) and path else json.dumps(full, indent=1)
    try:
        saved_to = _save(tool_name, saved_text, limits.scratch_dir(session_id))
        unsaved_reason = "no scratch folder for this call"
    except OSError as exc:  # a full disk must not lose the (cut) result itself
        saved_to, unsaved_reason = None, f"saving it failed: {exc.strerror or exc}"
    if saved_to is not None:
        where = (
            f"The whole {'`' + _dotted(path) + '`' if isinstance(leaf, str) and path else 'result'}"
            f" ({len(saved_text):,} characters) is saved at {saved_to}: page through it with "
            f"read_file (path, offset, limit) or search it with search_files."
        )
    else:
        where = f"The whole output was not saved ({unsaved_reason}); narrow the request to see the rest."
    if tool_name == "read_file":
        where = "Read the rest with read_file and a smaller limit or a later offset. " + where
    cut = _cut_to_fit(full, path, leaf, limits.max_chars, where)
    return BoundedResult(cut, full, full_text, saved_to, display)


def withhold_pieces(bounded: BoundedResult, ledger: PieceLedger) -> BoundedResult:
    """`bounded` with the small pieces of known values its conversation may not be shown
    (core/redaction/pieces.py: a value printed in quarters) replaced by a label. The cut
    result's `truncation` note is ours, not the tool's: its saved path (a time stamp, whose
    digits a conversation that was shown `seq`'s output may not see again) stays readable."""
    strings: list[str] = []
    _walk_strings(bounded.full, strings.append)
    _walk_strings(bounded.display, strings.append)
    withheld = ledger.withheld(strings)
    if not withheld:
        return bounded

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return ledger.replace(value, withheld)
        if isinstance(value, dict):
            return {key: fix(item) for key, item in value.items()}
        if isinstance(value, list):
            return [fix(item) for item in value]
        return value

    full = fix(bounded.full)
    result = fix(bounded.result)
    if bounded.result is not bounded.full:  # cut: `truncation` is our note (_cut_to_fit)
        result["truncation"] = bounded.result["truncation"]
    return BoundedResult(result, full, to_json(full), bounded.saved_to, fix(bounded.display))


def _walk_strings(value: Any, found: Any) -> None:
    if isinstance(value, str):
        found(value)
    elif isinstance(value, dict):
        for item in value.values():
            _walk_strings(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk_strings(item, found)


def _cut_to_fit(
    full: dict[str, Any], path: tuple[Any, ...], leaf: Any, max_chars: int, where: str
) -> dict[str, Any]:
    over = len(to_json(full)) - max_chars
    if path and isinstance(leaf, (str, list)):
        size = len(to_json(leaf))
        # Characters of the leaf per character of its JSON (escapes make JSON longer).
        ratio = max(len(leaf), 1) / max(size, 1)
        keep = int(len(leaf) - (over + NOTE_ROOM) * ratio)
        for _ in range(4):
            if keep <= 0:
                break
            short, left_out = _head_tail(leaf, keep)
            unit = "items" if isinstance(leaf, list) else "characters"
            note = (
                f"`{_dotted(path)}` was cut to stay under tools.max_result_chars ({max_chars:,}): "
                f"{left_out:,} of {len(leaf):,} {unit} left out in the middle. {where}"
            )
            candidate = _replace(full, path, short)
            candidate["truncation"] = note
            excess = len(to_json(candidate)) - max_chars
            if excess <= 0:
                return candidate
            keep -= int(excess * ratio) + 50
    # No single field holds the bulk: keep the JSON text's head and tail instead.
    text = to_json(full)
    budget = max(max_chars - NOTE_ROOM, 200)
    short, left_out = _head_tail(text, budget)
    return {
        "success": bool(full.get("success", True)),
        "result_text": short,
        "truncation": f"the result was cut to stay under tools.max_result_chars ({max_chars:,}): "
        f"{left_out:,} of {len(text):,} characters left out in the middle. {where}",
    }


def _head_tail(value: Any, keep: int) -> tuple[Any, int]:
    """The first and last parts of a string or list, `keep` characters (or items) in all."""
    if isinstance(value, str):
        head = keep // 3
        tail = keep - head
        left_out = len(value) - head - tail
        marker = f"\n[... {left_out:,} characters left out ...]\n"
        return value[:head] + marker + value[len(value) - tail :], left_out
    # A list: keep whole items from both ends, by their JSON size.
    sizes = [len(to_json(item)) + 2 for item in value]
    budget = keep
    head_items: list[Any] = []
    tail_items: list[Any] = []
    used = 0
    i, j = 0, len(value) - 1
    while i <= j:
        take_head = len(head_items) <= len(tail_items) * 2
        index = i if take_head else j
        if used + sizes[index] > budget:
            break
        used += sizes[index]
        if take_head:
            head_items.append(value[i])
            i += 1
        else:
            tail_items.insert(0, value[j])
            j -= 1
    left_out = len(value) - len(head_items) - len(tail_items)
    return [*head_items, f"[... {left_out:,} items left out ...]", *tail_items], left_out


def _largest_leaf(value: Any, path: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], Any]:
    """The path to the string or list whose JSON is longest (lists are not searched inside)."""
    best: tuple[tuple[Any, ...], Any] = (path, value)
    best_size = len(to_json(value)) if isinstance(value, (str, list)) else -1
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict):
                found_path, found = _largest_leaf(item, (*path, key))
            else:
                found_path, found = (*path, key), item
            if isinstance(found, (str, list)):
                size = len(to_json(found))
                if size > best_size:
                    best, best_size = (found_path, found), size
    return best


def _replace(value: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    out = dict(value)
    node = out
    for key in path[:-1]:
        node[key] = dict(node[key])
        node = node[key]
    node[path[-1]] = new
    return out


def _dotted(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path)


def _save(tool_name: str, text: str, directory: Path | None) -> Path | None:
    """Write the whole output to the session's scratch folder (0700, files 0600)."""
    if directory is None:
        return None
    ensure_private_dir(directory.parent)
    ensure_private_dir(directory)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"{stamp}-{tool_name}-{uuid.uuid4().hex[:6]}.txt"
    atomic_write_text(path, text, mode=0o600)
    return path
