"""What a bug prints: its traceback, redacted with everything the home knows to be secret.

A bug can strike before the runtime (and its redactor) exists, or while opening it: the report
reads `<home>/.env` and the environment itself, so a value from either never reaches the
terminal, whether in the exception's message, an argument it quotes, or a source line the
traceback shows.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

from hermes_tui.core.redaction import Redactor, collect_secrets, redact_shapes


def home_redactor(home: str | os.PathLike[str] | None) -> Callable[[str], str]:
    """The redaction of the home's `.env` values and the environment's secrets (key shapes
    alone when the home cannot be read: it may be what failed)."""
    from hermes_tui.config_files import parse_env_file, resolve_home

    try:
        dotenv = parse_env_file(resolve_home(home) / ".env")
    except (OSError, ValueError, UnicodeError):
        return Redactor(collect_secrets({}, os.environ)).text
    return Redactor(collect_secrets(dotenv, os.environ)).text


def crash_report(home: str | os.PathLike[str] | None) -> str:
    """The exception being handled, as Python prints it, redacted."""
    text = traceback.format_exc()
    try:
        return home_redactor(home)(text)
    except Exception:  # a report must come out whatever else is broken: shapes at least
        return redact_shapes(text)
