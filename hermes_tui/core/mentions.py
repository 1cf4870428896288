"""@-mentions: find the working directory's files for completion, and attach mentioned ones.

`list_files(root)` walks the working directory once (bounded in files and time, so a huge tree
never hangs the face that calls it from a worker): dependency and cache folders, dot folders,
binary and lock files by extension and secret files by name (`.env`, keys) are left out. `rank(query, paths)` orders them as a fuzzy finder
does (rapidfuzz, the file name counting more than its folder). `attach(text, rules)` finds each
`@path` in a message and appends the file's text in a delimited block, under the same path
policy the files tools apply (path_policy.decide): what that policy would not allow without
asking (outside the working directory, a secret file) is refused with the policy's reason, never
attached silently.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hermes_tui.core.tools.path_policy import (
    PathRules,
    decide,
    gather,
    secret_file_ids,
    secret_kind,
)

MAX_FILES = 20_000  # files listed for completion at most
WALK_SECONDS = 2.0  # and at most this long walking
FILE_CHARS = 50_000  # characters of one attached file (the head; a note says what was cut)
TOTAL_CHARS = 150_000  # characters of all files attached to one message
SKIP_DIRS = frozenset(
    {
        "node_modules", "__pycache__", "venv", "env", "site-packages", "dist", "build",
        "target", "coverage", "htmlcov",
    }
)  # fmt: skip
BINARY_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tiff", ".pdf", ".zip",
        ".gz", ".tgz", ".bz2", ".xz", ".7z", ".tar", ".jar", ".whl", ".so", ".dylib", ".dll",
        ".exe", ".bin", ".o", ".a", ".class", ".pyc", ".pyo", ".woff", ".woff2", ".ttf",
        ".otf", ".mp3", ".mp4", ".mov", ".wav", ".ogg", ".sqlite", ".db", ".parquet", ".npy",
    }
)  # fmt: skip
# Lock files (ours are `MEMORY.md.lock`, empty; a package manager's are not for reading) and
# binaries are never offered.
SKIPPED_SUFFIXES = BINARY_SUFFIXES | {".lock"}
# `@` at the start or after a space, then a path (no spaces); not an e-mail address.
MENTION = re.compile(r"(?<![\w@])@((?:[\w.~/\-+]|\\ )+)")


@dataclass(frozen=True)
class FileList:
    root: Path
    paths: tuple[str, ...]  # relative to root, with "/" separators
    complete: bool  # False when the walk stopped at MAX_FILES or WALK_SECONDS


def list_files(
    root: Path,
    *,
    max_files: int = MAX_FILES,
    seconds: float = WALK_SECONDS,
    skip: tuple[Path, ...] = (),
) -> FileList:
    """The files under `root` worth mentioning, breadth first so the top level always shows.
    `skip`: folders never listed, wherever they are (the app's own home: its memory, skills
    and sessions are not the project's files)."""
    deadline = time.monotonic() + seconds
    found: list[str] = []
    start = root.resolve()
    skipped = {path.resolve() for path in skip} - {start}
    queue = [start]
    while queue:
        directory = queue.pop(0)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    folder = Path(entry.path)
                    if not name.startswith(".") and name not in SKIP_DIRS and folder not in skipped:
                        queue.append(folder)
                elif (
                    entry.is_file()
                    and Path(name).suffix.lower() not in SKIPPED_SUFFIXES
                    and secret_kind(PurePosixPath(name), None) is None  # never offered
                ):
                    found.append(Path(entry.path).relative_to(start).as_posix())
            except OSError:
                continue
            if len(found) >= max_files or time.monotonic() > deadline:
                return FileList(root, tuple(found), False)
    return FileList(root, tuple(found), True)


def rank(query: str, paths: tuple[str, ...] | list[str], limit: int = 8) -> list[str]:
    """The best `limit` paths for `query`: by file name first, by whole path second."""
    from rapidfuzz import fuzz, process, utils  # loaded on the first `@`, not at start-up

    query = query.strip()
    if not query:
        return sorted(paths, key=lambda p: (p.count("/"), p))[:limit]
    names = [p.rsplit("/", 1)[-1] for p in paths]
    scores: dict[int, float] = {}
    for choices, weight in ((names, 1.0), (paths, 0.9)):
        for _choice, score, index in process.extract(
            query, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=limit * 4
        ):
            scores[index] = max(scores.get(index, 0.0), score * weight)
    lowered = query.lower()
    for index in list(scores):
        if lowered in paths[index].lower():  # a plain substring beats a scattered match
            scores[index] += 10
    best = sorted(scores, key=lambda i: (-scores[i], len(paths[i]), paths[i]))
    return [paths[i] for i in best if scores[i] >= 50][:limit]


@dataclass
class Attached:
    text: str  # the message as the model gets it
    files: list[str] = field(default_factory=list)  # "src/app.py (120 lines)"
    refused: list[str] = field(default_factory=list)  # "@~/.ssh/id_rsa: reads ..., a secret file"
    # The refusals that hold the message back (a file the user meant to send was not attached):
    # a face keeps the message for the user to decide; the others are only notes.
    blocked: list[str] = field(default_factory=list)

    def block(self, reason: str) -> None:
        self.refused.append(reason)
        self.blocked.append(reason)


def _fence(content: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


def _read_head(path: Path, budget: int) -> tuple[str, int]:
    """Up to `budget` characters of the file's text, and about how long it is; ValueError if
    it is binary."""
    with path.open("rb") as handle:
        data = handle.read(budget * 4)
    if b"\x00" in data[:8192]:
        raise ValueError("it is a binary file")
    text = data.decode("utf-8", errors="replace")
    size = path.stat().st_size
    return text[:budget], len(text) if size <= len(data) else size


ATTACHED = re.compile(r'\n\n<attached_file path="[^"\n]*">\n')


# A file the user attached (`attach`) or an editor embedded (ACP's resource blocks): its text.
_ATTACHED_BODY = re.compile(
    r'<attached_file path="([^"\n]*)">\n(.*?)\n</attached_file>|<file uri="([^"\n]*)">\n(.*?)\n</file>',
    re.DOTALL,
)


def attached_files(sent: str) -> list[tuple[str, str]]:
    """(path or uri, text) of each file attached to a user's message: the file's words, not
    the user's (taint indexes them as a tool's result)."""
    return [
        (m.group(1) if m.group(1) is not None else m.group(3), m.group(2) or m.group(4) or "")
        for m in _ATTACHED_BODY.finditer(sent)
    ]


def without_attachments(sent: str) -> str:
    """What the user wrote, without the files `attach` appended to it (for /undo to give
    back): the text before the first attached block, when blocks end the message."""
    found = ATTACHED.search(sent)
    if found is not None and sent.endswith("</attached_file>"):
        return sent[: found.start()]
    return sent


def attach(text: str, rules: PathRules, cwd: Path, redact: Callable[[str], str] = str) -> Attached:
    """`text` with each mentioned file appended in a fenced block, or the reason it was not.
    A file's text is `redact`ed as a tool's result is (a known secret in it never reaches the
    model)."""
    result = Attached(text)
    blocks: list[str] = []
    used = 0
    seen: set[Path] = set()
    for match in MENTION.finditer(text):
        raw = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        facts = gather(raw, cwd, rules)
        path = Path(facts.resolved)
        if not path.exists():
            if "/" in raw or "." in raw:  # looks like a path: say so, it may be a typo
                result.refused.append(f"@{raw}: no such file; sent as plain text")
            continue  # @someone, @decorator: not a mention of a file
        if path in seen:
            continue
        seen.add(path)
        checked = rules
        if facts.links > 1:  # maybe a hard link to a secret file under an innocent name
            checked = dataclasses.replace(
                rules, secret_ids=secret_file_ids(rules.user_home, rules.hermes_home)
            )
        verdict = decide("read", facts, checked)
        if verdict.action != "allow":
            result.block(f"@{raw}: not attached: it {verdict.reason}")
            continue
        if path.is_dir():
            result.refused.append(f"@{raw}: a folder; mention the files in it")
            continue
        if not path.is_file():
            result.refused.append(f"@{raw}: not a regular file (a pipe, socket or device)")
            continue
        budget = min(FILE_CHARS, TOTAL_CHARS - used)
        if budget <= 0:
            result.block(
                f"@{raw}: not attached: the message already carries {TOTAL_CHARS:,} characters of files"
            )
            continue
        try:
            content, length = _read_head(path, budget)
        except (OSError, ValueError) as exc:
            result.block(f"@{raw}: not attached: {exc}")
            continue
        used += len(content)
        shown = (
            os.path.relpath(path, rules.workdir)
            if str(path).startswith(str(rules.workdir))
            else str(path)
        )
        lines = content.count("\n") + (0 if content.endswith("\n") else 1)
        note = ""
        if length > len(content):
            note = (
                f" (the first {len(content):,} of about {length:,} characters; read_file "
                f"{shown} for the rest)"
            )
        content = redact(content)
        fence = _fence(content)
        blocks.append(
            f'<attached_file path="{shown}">\nThe user attached {shown}{note}:\n'
            f"{fence}\n{content.rstrip(chr(10))}\n{fence}\n</attached_file>"
        )
        result.files.append(
            f"{shown} ({lines:,} line{'' if lines == 1 else 's'}{', cut' if note else ''})"
        )
    if blocks:
        result.text = text + "\n\n" + "\n\n".join(blocks)
    return result
