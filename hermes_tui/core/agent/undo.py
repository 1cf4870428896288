"""Undo one learning change (from a review record or the audit trail), as a new user write.

Nothing is rewound in place: the undo is itself a write with origin "user", archived and
audited like any other, so it can be undone in turn.

Nothing the user wrote is silently dropped: when a file the review changed has changed again
since, the review's change is taken back by a three-way merge (core/merge.py) that keeps the
later edits; where they touch the same lines, `UndoNeedsConfirmation` names the lines that
would be lost, and only `force=True` puts the review's "before" back whole (the text replaced
still goes to the skill's history). Memory is undone entry by entry: only an entry still exactly
as the review wrote it is removed, so an entry edited since stays.
"""

from __future__ import annotations

from hermes_tui.core.events import ReviewChange
from hermes_tui.core.memory import MemoryStore, MemoryStoreError, parse_entries
from hermes_tui.core.merge import lost_lines, merge3
from hermes_tui.core.skills.library import SkillError, SkillLibrary


class UndoError(Exception):
    """The change cannot be undone as it stands; the message says why."""


class UndoNeedsConfirmation(UndoError):
    """Undoing would also throw away something the user did since; ask, then pass force=True."""


def undo_change(
    change: ReviewChange, memory: MemoryStore, skills: SkillLibrary, *, force: bool = False
) -> str:
    if change.pending_id:
        raise UndoError("this change was only staged; reject it in the pending list instead")
    if change.kind == "memory":
        return _undo_memory(change, memory)
    if not force:
        _check_user_work(change, skills)
    return _undo_skill(change, skills, force)


def _check_user_work(change: ReviewChange, skills: SkillLibrary) -> None:
    """Undoing a review's create archives the skill: say so if the user has pinned or edited it."""
    if change.action != "create" or change.file:
        return
    skill = skills.get(change.target)
    if skill is None:
        return
    reasons = []
    if skills.usage.get(change.target).get("pinned"):
        reasons.append("you pinned it")
    current = skill.skill_md.read_text(encoding="utf-8") if skill.skill_md.exists() else None
    if change.after is not None and current is not None and current != change.after:
        reasons.append("it changed since the review created it")
    if reasons:
        raise UndoNeedsConfirmation(
            f"undoing archives {change.target}, but {' and '.join(reasons)}; "
            "archive it anyway? (it can be restored from 'archived')"
        )


def _undo_memory(change: ReviewChange, memory: MemoryStore) -> str:
    before, after = parse_entries(change.before or ""), parse_entries(change.after or "")
    current = memory.entries(change.target)  # type: ignore[arg-type]
    operations = [
        {"action": "remove", "old_text": e} for e in after if e not in before and e in current
    ]
    operations += [
        {"action": "add", "content": e} for e in before if e not in after and e not in current
    ]
    if not operations:
        raise UndoError("memory no longer holds this change; nothing to undo")
    # The change's record is redacted: an entry it took away that held a secret reads as its
    # label there. Put back so, the label would stand in the file where the secret was.
    archived = {record.entry for record in memory.archived(change.target)}  # type: ignore[arg-type]
    hidden = [
        op["content"]
        for op in operations
        if op["action"] == "add" and "[REDACTED " in op["content"] and op["content"] not in archived
    ]
    if hidden:
        raise UndoError(
            f"the entry this change replaced held a secret, recorded only as its label "
            f"({hidden[0][:80]}); undoing would write the label where the secret was. The "
            f"entry is kept whole in memories/.archive.jsonl: put it back in "
            f"{change.target.upper()}.md by hand"
        )
    try:
        memory.apply_batch(change.target, operations, origin="user")  # type: ignore[arg-type]
    except MemoryStoreError as exc:
        raise UndoError(str(exc)) from exc
    return f"undid {len(operations)} memory change(s) in {change.target}"


def _current(change: ReviewChange, skills: SkillLibrary, force: bool) -> str | None:
    """The text now in the file the change wrote (SKILL.md or its support file), None if gone
    (or, with `force`, if it is no text: the undo then writes the review's "before" whole)."""
    skill = skills.get(change.target)
    if skill is None:
        return None
    path = skill.directory / change.file if change.file else skill.skill_md
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if force:
            return None
        # Merging would have to rewrite those bytes: ask instead, and keep them in the history.
        raise UndoNeedsConfirmation(
            f"{change.target}/{change.file or 'SKILL.md'} now holds bytes that are not UTF-8 "
            f"text (byte {exc.start}), so the review's {change.action} cannot be taken back "
            "apart from them. Put it back as before the review anyway? (the file as it is now "
            "is kept in the skill's history)"
        ) from exc


def _taken_back(change: ReviewChange, current: str | None, force: bool) -> str:
    """The text that undoes `change` (back to `before`) and keeps what was written since."""
    before, after = change.before or "", change.after or ""
    where = f"{change.target}/{change.file or 'SKILL.md'}"
    if current is None or current == after or force:
        return before
    if current == before:
        raise UndoError(
            f"{where} is already as before the review's {change.action}; nothing to undo"
        )
    merged = merge3(after, current, before)
    if merged is not None:
        return merged
    lost = "\n".join(f"  {line}" for line in lost_lines(current, before))
    raise UndoNeedsConfirmation(
        f"{where} changed since the review's {change.action}, and the change cannot be taken "
        f"back apart from those edits; putting it back as before the review drops:\n{lost}\n"
        "Put it back anyway? (the text replaced is kept in the skill's history)"
    )


def _undo_skill(change: ReviewChange, skills: SkillLibrary, force: bool = False) -> str:
    name = change.target
    try:
        if change.action == "create":
            skills.archive(name, origin="user", reason="undo_create")
            return f"archived {name} (created by the review)"
        if change.action == "delete":
            skills.restore(name, origin="user")
            return f"restored {name}"
        current = _current(change, skills, force)
        kept = " (your edits since are kept)"
        if change.file:
            if change.before is None:
                if current not in (None, change.after) and not force:
                    raise UndoNeedsConfirmation(
                        f"{name}/{change.file} changed since the review added it; removing it "
                        f"drops:\n"
                        + "\n".join(f"  {line}" for line in lost_lines(current, ""))
                        + "\nRemove it anyway?"
                    )
                skills.remove_file(name, change.file, origin="user")
                return f"{name}: removed {change.file} (added by the review)"
            text = _taken_back(change, current, force)
            skills.write_file(name, change.file, text, origin="user")
            return f"{name}: {change.file} put back as before" + (kept * (text != change.before))
        restorable = change.before is not None and change.before.startswith("---")
        if change.action in ("patch", "edit") and restorable:
            text = _taken_back(change, current, force)
            skills.edit(name, text, origin="user")
            return f"{name}: SKILL.md put back as before the {change.action}" + (
                kept * (text != change.before)
            )
        raise UndoError(
            f"undo of a skill {change.action} is not possible from this record; use the skill's history"
        )
    except SkillError as exc:
        raise UndoError(str(exc)) from exc
