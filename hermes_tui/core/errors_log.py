"""logs/errors.log: the tracebacks of unexpected errors, kept for a bug report (DESIGN.md 4).

Faces call `log_exception` where a bug is caught and shown in one line (`chat -q`, a slash
command in the app); the traceback goes here, with known secrets redacted, never to the screen.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from hermes_tui.core.storage import ensure_private_dir, file_lock


def log_exception(
    home: Path,
    exc: BaseException,
    context: str = "",
    redact: Callable[[str], str] | None = None,
) -> Path:
    """Append `exc`'s traceback (after a dated `context` line) to <home>/logs/errors.log, under
    the file's lock; return the log's path."""
    path = Path(home) / "logs" / "errors.log"
    ensure_private_dir(path.parent)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    text = f"--- {stamp} {context}".rstrip() + "\n"
    text += "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + "\n"
    if redact is not None:
        text = redact(text)
    with file_lock(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
            os.fsync(fd)
        finally:
            os.close(fd)
    return path
