"""/init: the agent explores the working directory and answers with an AGENTS.md, which is
checked as every context file is (the threat scan) and then written here, atomically.

The agent does not write the file itself: its answer carries the text between two marker
lines, so what lands on disk is exactly what was scanned, and a refused text is never written.
An AGENTS.md already there is given to the agent to improve (unless it is a link out of the
project or not a regular file: then it is not read) and kept, moved, as AGENTS.md.bak.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from hermes_tui.core.storage import atomic_write_text

BEGIN, END = "<<<AGENTS.md", "AGENTS.md>>>"
MAX_CHARS = 20_000  # the prompt's context tier caps a context file anyway


class Refuser(Protocol):
    def refused(self, text: str) -> str | None: ...


class InitError(Exception):
    """No AGENTS.md was written; the message says why."""


def _current(cwd: Path) -> tuple[str | None, str]:
    """(the AGENTS.md there, or None; why it was not read), read as the prompt reads a context
    file: never through a link out of the project (a command's `AGENTS.md -> ~/.aws/credentials`
    sent the credentials to the provider: attack9's A9-4), never a FIFO, never more than
    MAX_CHARS (a sparse 8 GB file)."""
    path = cwd / "AGENTS.md"
    if not os.path.lexists(path):
        return None, ""
    try:
        target = path.resolve()
        if cwd.resolve() not in target.parents:
            return None, f"The AGENTS.md here is a link to {target}, outside the project: not read."
        if not target.is_file():
            return None, "The AGENTS.md here is not a regular file: not read."
        with target.open("rb") as file:
            data = file.read(MAX_CHARS * 4)
    except OSError as exc:
        return None, f"The AGENTS.md here could not be read ({exc.strerror or exc})."
    return data.decode("utf-8", errors="replace")[:MAX_CHARS], ""


def init_prompt(cwd: Path) -> str:
    text, why = _current(cwd)
    current = f"\n\n{why} Write a new one." if why else ""
    if text is not None:
        current = (
            "\n\nAn AGENTS.md exists; improve it rather than start over. It reads:\n"
            f"{BEGIN}\n{text}\n{END}"
        )
    return (
        f"/init: write an AGENTS.md for the project in {cwd}, the instructions a coding agent "
        "reads before working here. Explore first, only reading (list folders, read the "
        "README, build files, CI configuration, tests, a few central modules); change nothing. "
        "Then answer with the complete file between a line holding only "
        f"{BEGIN} and a line holding only {END}. Keep it short and specific to this project: "
        "what it is, how to build, test and lint it (exact commands), how the code is laid out, "
        "its conventions, and what to take care with. No secrets, nothing invented; say what "
        f"you could not find out.{current}"
    )


def agents_md_from_reply(reply: str) -> str | None:
    """The text between the markers of the agent's answer (the last such block), or None."""
    blocks = re.findall(
        rf"^{re.escape(BEGIN)}[ \t]*\n(.*?)\n^{re.escape(END)}[ \t]*$", reply, re.S | re.M
    )
    text = blocks[-1].strip() if blocks else ""
    return text + "\n" if text else None


class InitHeld(InitError):
    """The AGENTS.md waits in pending/ for the user (it copies a tool result, say)."""


def write_agents_md(
    cwd: Path,
    reply: str,
    scanner: Refuser,
    gate: Callable[[Path, str], dict[str, Any] | None] | None = None,
) -> Path:
    """Write the AGENTS.md of the agent's answer into `cwd`; raises InitError (nothing written)
    when the answer holds none, it is too long, or the threat scan refuses it, and InitHeld
    when `gate` (the session's write gate: Session.gate_file_write) holds it, as it holds the
    agent's own write_file of a text copied from a tool result (attack4's A4-18)."""
    text = agents_md_from_reply(reply)
    if text is None:
        raise InitError(f"the answer held no AGENTS.md between {BEGIN} and {END}; nothing written")
    if len(text) > MAX_CHARS:
        raise InitError(f"the AGENTS.md proposed is {len(text):,} characters (most {MAX_CHARS:,})")
    ids = scanner.refused(text)
    if ids:
        raise InitError(
            f"the AGENTS.md proposed matched threat pattern(s) {ids}; nothing written "
            "(it would not be loaded as a context file either)"
        )
    path = cwd / "AGENTS.md"
    answer = gate(path, text) if gate is not None else None
    if answer is not None and answer.get("staged"):
        raise InitHeld(
            f"the AGENTS.md proposed is held for your approval (pending {answer['pending_id']}): "
            "nothing written yet; /pending shows why"
        )
    if answer is not None:
        raise InitError(f"{answer.get('error')}; nothing written")
    mode = 0o644  # as an editor makes it (a temporary file's 0600 would hide it from others)
    if os.path.lexists(path):
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode):
            raise InitError("AGENTS.md here is a folder; nothing written")
        if stat.S_ISREG(info.st_mode):
            mode = stat.S_IMODE(info.st_mode)
        # Kept by moving it, never by reading it: a link stays a link (to wherever it led,
        # unread), a file keeps its bytes.
        os.replace(path, cwd / "AGENTS.md.bak")
    atomic_write_text(path, text, mode=mode)
    return path
