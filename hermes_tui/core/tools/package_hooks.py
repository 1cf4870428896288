"""The commit-hook keys of the working directory's package.json, put back after a command.

lint-staged, simple-git-hooks, husky (v4) and yorkie read their commands from keys of
package.json as well as from their own files (run_later.COMMIT_HOOK_CONFIGS, read-only to
commands): husky's `npx lint-staged` runs `"lint-staged": {"*": "touch ~/x"}` at the user's
next `git commit`, outside the sandbox. The file itself cannot be read-only (`npm install`
writes it), so the keys are judged after each command:

1. before it, the keys' values are read (`snapshot`: at most `MAX_BYTES` of the file, as JSON);
2. after it, a key the command added or changed gets its old value back (an added one is
   removed; a removed one stays removed: nothing runs from it), the rest of the command's
   package.json kept, written atomically with the file's indentation;
3. a package.json that no longer reads as a JSON object (or is too big to read) while it names
   one of the keys is put back whole;
and the command's own version is kept in the quarantine beside what the sweep moved aside.
The files tools ask before a write that changes one of those keys (`hook_change`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.storage import atomic_write_bytes

NAME = "package.json"
# Keys whose values are commands run at a commit (lint-staged's, simple-git-hooks', husky
# v4's `husky.hooks`, yorkie's `gitHooks`, ghooks' and pre-commit's lists of scripts).
HOOK_KEYS = (
    *("lint-staged", "nano-staged", "simple-git-hooks", "husky", "gitHooks", "ghooks"),
    *("pre-commit", "precommit", "pre-push", "prepush"),
)
# Nested places the runners read (attack8's A8-5): ghooks' `config.ghooks`; husky 0.x's
# `scripts.precommit`/`prepush`/`commitmsg`, githook-scripts' `scripts["githook:pre-commit"]`.
_SCRIPT_HOOK = re.compile(r"(?:pre|post)?(?:commit|push|commitmsg|precommit|prepush)|githook:.*")
_RAW_NAMES = (*HOOK_KEYS, "githook:", "commitmsg")
WHY = "run by a commit hook at your next git commit (lint-staged, simple-git-hooks, husky)"
MAX_BYTES = 4_000_000
_MISSING = object()


@dataclass(frozen=True)
class Snapshot:
    """package.json before a command: its bytes (None: absent or unreadable) and, when it read
    as a JSON object, its hook keys' values (a key absent: not in the dict)."""

    existed: bool
    data: bytes | None
    keys: dict[tuple[str, ...], object] | None


def _read(path: Path) -> bytes | None:
    """The file's bytes; None when it is not a regular file (a FIFO a command made would block
    the app for ever: attack9's A9-17), a link, or too large."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = handle.read(MAX_BYTES + 1)
        except OSError:
            return None
    return data if len(data) <= MAX_BYTES else None


def _object(data: bytes | None) -> dict[str, object] | None:
    if data is None:
        return None
    try:
        found = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _hook_keys(found: dict[str, object]) -> dict[tuple[str, ...], object]:
    """The values of every place a hook runner reads commands from, by their path of keys."""
    keys: dict[tuple[str, ...], object] = {(key,): found[key] for key in HOOK_KEYS if key in found}
    config = found.get("config")
    if isinstance(config, dict) and "ghooks" in config:
        keys["config", "ghooks"] = config["ghooks"]
    scripts = found.get("scripts")
    if isinstance(scripts, dict):
        for name, value in scripts.items():
            if _SCRIPT_HOOK.fullmatch(str(name)):
                keys["scripts", str(name)] = value
    return keys


def _changed(before: dict[tuple[str, ...], object], after: dict[str, object]) -> list:
    now = _hook_keys(after)
    return [path for path, value in now.items() if value != before.get(path, _MISSING)]


def _put(found: dict[str, object], path: tuple[str, ...], value: object) -> None:
    """Set (or, for `_MISSING`, remove) the value at `path` in `found`."""
    *parents, last = path
    for key in parents:
        found = found[key]  # type: ignore[assignment]
    if value is _MISSING:
        del found[last]
    else:
        found[last] = value


def snapshot(workdir: Path) -> Snapshot:
    path = workdir / NAME
    if not os.path.lexists(path):
        return Snapshot(False, None, {})
    data = _read(path) if path.is_file() and not path.is_symlink() else None
    found = _object(data)
    return Snapshot(True, data, _hook_keys(found) if found is not None else None)


def _indent(text: str) -> str | int:
    found = re.search(r"^[{\[][^\n]*\n([ \t]+)\S", text, re.MULTILINE)
    return (
        found.group(1) if found and "\t" in found.group(1) else len(found.group(1)) if found else 2
    )


def restore(before: Snapshot, workdir: Path, quarantine: Path) -> str | None:
    """After a command: put back the hook keys it added or changed (module docstring); what was
    done, for the tool result, or None when nothing was."""
    try:
        return _restore(before, workdir / NAME, quarantine)
    except OSError as exc:  # a folder named package.json, a full disk: said, never raised
        return f"changed {NAME} ({WHY}), which could not be put back: {exc.strerror or exc}"


# lint-staged reads the config nearest each staged file, a sub-folder's package.json key or
# its own files included (a monorepo's packages/*): judged below the top too (A8-5).
NESTED_CONFIGS = frozenset(
    {
        NAME,
        ".lintstagedrc",
        *(f".lintstagedrc{e}" for e in (".json", ".yaml", ".yml", ".js", ".mjs", ".cjs")),
        *(f"lint-staged.config{e}" for e in (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")),
        ".nanostagedrc",
        *(
            f"{n}{e}"
            for n in (".nano-staged", "nano-staged")
            for e in (".json", ".js", ".cjs", ".mjs")
        ),
    }
)


@dataclass(frozen=True)
class Nested:
    """The hook configs below the top of the working directory before a command."""

    files: dict[Path, Snapshot]


def snapshot_nested(workdir: Path) -> Nested:
    from hermes_tui.core.tools.gitdirs import SKIPPED, files_named

    found = files_named(workdir, NESTED_CONFIGS, SKIPPED | {".git"})
    return Nested({path: _file_snapshot(path) for path in found if path.parent != workdir})


def _file_snapshot(path: Path) -> Snapshot:
    data = _read(path) if path.is_file() and not path.is_symlink() else None
    found = _object(data) if path.name == NAME else None
    return Snapshot(True, data, _hook_keys(found) if found is not None else None)


def restore_nested(before: Nested, workdir: Path, quarantine: Path) -> list[str]:
    """After a command: each sub-folder's package.json has its hook keys put back; a
    lint-staged or nano-staged config it made there is moved aside, one it changed put back."""
    from hermes_tui.core.tools.gitdirs import SKIPPED, files_named

    notes: list[str] = []
    now = files_named(workdir, NESTED_CONFIGS, SKIPPED | {".git"})
    # Not what the quarantine keeps (it may lie in a hermes home inside the working directory).
    kept_here = (quarantine, *(p for p in quarantine.parents if p.name == "scratch"))
    for path in (p for p in now if p.parent != workdir and not set(kept_here) & set(p.parents)):
        was = before.files.get(path, Snapshot(False, None, {}))
        shown = path.relative_to(workdir)
        try:
            if path.name == NAME:
                if (said := _restore(was, path, quarantine)) is not None:
                    notes.append(said.replace(NAME, str(shown), 1))
                continue
            data = _read(path)
            if was.existed and data == was.data:
                continue
            kept = _keep(path, data, quarantine)
            if was.existed and was.data is not None:
                atomic_write_bytes(path, was.data)
                notes.append(f"changed {shown} ({WHY}): put back; {kept}")
            else:
                os.unlink(path)
                notes.append(f"made {shown} ({WHY}): removed; {kept}")
        except OSError as exc:
            notes.append(f"changed {shown} ({WHY}), which could not be put back: {exc.strerror}")
    return notes


def _restore(before: Snapshot, path: Path, quarantine: Path) -> str | None:
    if not os.path.lexists(path):
        return None
    after_data = _read(path) if path.is_file() and not path.is_symlink() else None
    if after_data is not None and after_data == before.data:
        return None
    after = _object(after_data)
    if after is not None and before.keys is not None:
        changed = _changed(before.keys, after)
        if not changed:
            return None
        kept = _keep(path, after_data, quarantine)
        for key in changed:
            _put(after, key, before.keys.get(key, _MISSING))
        text = after_data.decode("utf-8-sig") if after_data else ""
        out = json.dumps(after, indent=_indent(text), ensure_ascii=False)
        atomic_write_bytes(path, (out + "\n" if text.endswith("\n") else out).encode())
        shown = ", ".join(".".join(key) for key in changed)
        return f"changed {NAME}'s {shown} ({WHY}): put back; {kept}"
    # Not a JSON object now (or before): judged whole, when it may name a key (or is a link,
    # or too big to read). One that was there and could not be read is left as it is.
    if after_data is not None and not any(key.encode() in after_data for key in _RAW_NAMES):
        return None
    if before.existed and before.data is None:
        return None
    kept = _keep(path, after_data, quarantine)
    if not before.existed:
        os.unlink(path)
        return f"made a {NAME} that may name commit hooks ({WHY}): removed; {kept}"
    atomic_write_bytes(path, before.data or b"")
    return f"changed {NAME} so that it may name commit hooks ({WHY}): put back whole; {kept}"


def hook_change(before: str | None, after: str) -> str | None:
    """What a files-tool write of `after` over `before` (None: no file) would change of the
    commit-hook keys, for the question the files tools ask; None when it changes none."""
    new = _object(after.encode("utf-8", errors="replace"))
    if new is None:
        if any(key in after for key in _RAW_NAMES):
            return f"a {NAME} that does not read as JSON and names a commit-hook key"
        return None
    old = _object(before.encode("utf-8", errors="replace")) if before is not None else {}
    changed = _changed(_hook_keys(old) if old is not None else {}, new)
    return f"its {', '.join('.'.join(key) for key in changed)}" if changed else None


def _keep(path: Path, data: bytes | None, quarantine: Path) -> str:
    """The command's package.json, copied into the quarantine for the user to look at."""
    try:
        quarantine.mkdir(parents=True, exist_ok=True)
        target, serial = quarantine / NAME, 1
        while os.path.lexists(target):
            serial += 1
            target = quarantine / f"{NAME}.{serial}"
        if data is None:
            return "its version could not be read"
        target.write_bytes(data)
    except OSError as exc:
        return f"its version could not be kept ({exc.strerror})"
    return f"its version kept at {target}"
