"""Secrets out of everything that leaves the process: one redaction for every road.

Tool results, provider errors, exceptions, events the faces print, messages sessions.db keeps,
exports, staged writes and log lines all pass `Redactor.text` (or `.value` for JSON-like
values) before they go anywhere. Two kinds of secret are replaced:

1. Known values (the provider keys, every value of `<home>/.env`, environment variables,
   config.yaml entries and MCP servers' settings that core/redaction/recognise.py calls
   secret by name or by shape), also in the forms that carry them out unnoticed (core/redaction/forms.py):
   any letter case, reversed, spelled out with separators (`s k - a b c`), hex, URL-encoding,
   base32 and base64 (standard and URL-safe, at any offset inside a longer encoded text, wrapped
   over lines or not), and the encodings of the value upper-cased, lower-cased and reversed.
   Dumps of its bytes (od, xxd, hexdump, basenc, a list of numbers) and look-alike characters
   (NFKC, homoglyphs, invisible format and tag characters) are read through decoded views
   (core/redaction/views.py). Each becomes `[REDACTED NAME]`.
2. Well-known key shapes, configured or not: `Bearer <token>`, OpenAI/Anthropic `sk-…`, GitHub
   `ghp_…`, AWS `AKIA…`, Slack `xox?-…`, Google `AIza…`, JWTs, PEM private keys, and a few more.
   Each becomes `[REDACTED <kind>]`, also disguised (core/redaction/shapes.py): reversed,
   re-cased, encoded in base64 or hex, spelled out with separators.

Known values go first, so a configured key is named by its variable rather than by its shape.
The replacements hold no quote or backslash, so redacting JSON text keeps it valid JSON.

Streamed text is redacted as a whole, not per delta: a secret the provider happened to split
across two deltas would match in neither. `redacting_sink` holds back the tail of each thread's
stream that could still grow into a secret (`Redactor.held_from`) until the next delta or the
end of the model call, and passes the rest on at once. Nothing is held longer than MAX_HELD
characters (no key is that long; it keeps each delta's work small), except a private key: once
its header is whole it is shown as its label, and its body is dropped up to its END line.
"""

from collections.abc import Callable

from hermes_tui.core.redaction.forms import base64_forms, encoded_forms
from hermes_tui.core.redaction.known import Redactor, collect_secrets, kept_labels
from hermes_tui.core.redaction.recognise import (
    MIN_SECRET_LENGTH,
    SECRET_NAME,
    arg_secrets,
    labelled,
    looks_like_secret_value,
    scrubbed,
    tree_secrets,
    variable_secrets,
)
from hermes_tui.core.redaction.shapes import KEY_SHAPES, SHAPE_LEADS, redact_shapes
from hermes_tui.core.redaction.stream import MAX_HELD, RedactingFilter, redacting_sink

__all__ = [
    "KEY_SHAPES",
    "MAX_HELD",
    "MIN_SECRET_LENGTH",
    "SECRET_NAME",
    "SHAPE_LEADS",
    "Redact",
    "RedactingFilter",
    "Redactor",
    "arg_secrets",
    "base64_forms",
    "collect_secrets",
    "encoded_forms",
    "kept_labels",
    "labelled",
    "looks_like_secret_value",
    "redact_shapes",
    "redacting_sink",
    "scrubbed",
    "tree_secrets",
    "variable_secrets",
]

Redact = Callable[[str], str]
