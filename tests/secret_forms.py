"""The forms a known secret can leave in, for tests that search outputs for it."""

from __future__ import annotations

import base64
import urllib.parse


def forms(value: str) -> list[str]:
    """`value` raw, reversed, as hex (both cases), base64 (standard and URL-safe, without the
    padding, so a search finds it inside a longer encoded text too) and URL-encoded."""
    raw = value.encode()
    return [
        value,
        value[::-1],
        raw.hex(),
        raw.hex().upper(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        urllib.parse.quote(value, safe=""),
    ]
