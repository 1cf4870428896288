"""Known secret values (provider keys, `.env` values, secret-named variables) and the forms
they leave in; `Redactor` replaces them and the key shapes of core/redaction/shapes.py."""

from __future__ import annotations

import base64
import bisect
import dataclasses
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from hermes_tui.core.redaction.shapes import SHAPE_STARTS, SHAPES, redact_shapes

# Shorter values ("1", "true", "dev") would redact ordinary words all over the output.
MIN_SECRET_LENGTH = 8
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
# An encoded form shorter than this could match by chance in ordinary base64 or hex.
MIN_ENCODED_LENGTH = 8


def looks_like_secret_value(value: str) -> bool:
    # Paths and sentences under a secret-looking name (KEYBOARD_LAYOUT_DIR=/usr/share/...) are
    # not secrets, and redacting them would blank out ordinary output.
    return (
        len(value) >= MIN_SECRET_LENGTH
        and not any(ch.isspace() for ch in value)
        and not value.startswith(("/", "~", "."))
    )


def collect_secrets(
    dotenv: Mapping[str, str], environ: Mapping[str, str], provider_keys: Mapping[str, str] = {}
) -> dict[str, str]:
    """Name → value of what must never leave the process.

    Every value of `<home>/.env` (it exists to hold secrets), the configured provider keys, and
    environment variables whose names look secret (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, ...).
    """
    found: dict[str, str] = {}
    for name, value in environ.items():
        if SECRET_NAME.search(name) and looks_like_secret_value(value):
            found[name] = value
    for source in (dotenv, provider_keys):
        for name, value in source.items():
            if looks_like_secret_value(value):
                found[name] = value
    return found


def _base64_cores(raw: bytes) -> list[str]:
    """What `raw` looks like inside any base64 text, at each of the three byte offsets.

    Base64 turns 3 bytes into 4 characters, so a secret embedded in a longer encoded text
    (`KEY=<secret>` encoded whole) shows up as one of three strings depending on where it starts;
    the groups it shares with its neighbours are left out.
    """
    cores = []
    for offset in range(3):
        skip = (3 - offset) % 3  # bytes of the secret in the group shared with what precedes
        body = raw[skip:]
        body = body[: len(body) - len(body) % 3]
        if len(body) * 4 // 3 >= MIN_ENCODED_LENGTH:
            cores.append(base64.b64encode(body).decode("ascii"))
    return cores


def encoded_forms(value: str) -> set[str]:
    """The value and the forms it can be carried out in: hex, URL-encoded, reversed (base64 is
    `base64_forms`)."""
    raw = value.encode("utf-8")
    forms = {value, value[::-1], raw.hex(), raw.hex().upper()}
    forms.update({urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value)})
    return {form for form in forms if len(form) >= MIN_ENCODED_LENGTH}


def base64_forms(value: str) -> set[str]:
    """The value inside base64 text (standard and URL-safe) at each of the three offsets."""
    forms = set()
    for core in _base64_cores(value.encode("utf-8")):
        forms.update({core, core.replace("+", "-").replace("/", "_")})
    return forms


def _alternatives(forms: Mapping[str, str], suffix: str) -> re.Pattern[str] | None:
    # Longest first, so a key containing another (or a longer encoding) wins.
    ordered = sorted(forms, key=len, reverse=True)
    return re.compile("|".join(f"{re.escape(f)}{suffix}" for f in ordered)) if forms else None


class Redactor:
    """Replaces known secret values (in their encoded forms too) and well-known key shapes."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        by_form: dict[str, str] = {}
        by_base64: dict[str, str] = {}
        for name, value in (secrets or {}).items():
            if looks_like_secret_value(value):
                for form in encoded_forms(value):
                    by_form.setdefault(form, name)
                for form in base64_forms(value):
                    by_base64.setdefault(form, name)
        self._names = by_form
        self._base64_names = by_base64
        self._pattern = _alternatives(by_form, "")
        # The group that holds the secret's last bytes and its padding go with it.
        self._base64 = _alternatives(by_base64, "[A-Za-z0-9+/_-]{0,3}={0,2}")
        # Every form, sorted: whether a text is the start of one is a bisect away.
        self._forms = sorted({*by_form, *by_base64})
        self._longest = max(map(len, self._forms), default=0)

    def __bool__(self) -> bool:
        """Whether any known value is configured (key shapes are redacted either way)."""
        return self._pattern is not None

    def text(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(lambda m: f"[REDACTED {self._names[m.group(0)]}]", text)
        if self._base64 is not None:
            text = self._base64.sub(self._base64_label, text)
        return redact_shapes(text)

    def held_from(self, text: str) -> int:
        """Where the tail of streamed `text` that could still grow into a secret begins
        (`len(text)`: nothing to hold). `text[:cut]` redacted on its own reads as it would
        inside the whole stream: no match it holds goes on past the cut."""
        cut = len(text)
        found = SHAPE_STARTS.search(text)
        if found:
            cut = found.start()
        # Known forms have no whitespace: only the last few characters can start one.
        for start in range(max(0, len(text) - self._longest), cut):
            tail = text[start:]
            at = bisect.bisect_left(self._forms, tail)
            if at < len(self._forms) and self._forms[at].startswith(tail):
                cut = start
                break
        # A whole match that reaches the end may go on (a longer key, base64 padding, a private
        # key's body); one that spans the cut would be cut in two. Either is held from its start.
        matches = self._matches(text)
        moved = True
        while moved:
            moved = False
            for start, end in matches:
                if start < cut and (end > cut or end == len(text)):
                    cut, moved = start, True
        return cut

    def _matches(self, text: str) -> list[tuple[int, int]]:
        """Where each pattern matches in `text` (start, end), whatever it matches."""
        patterns = [p for p in (self._pattern, self._base64, SHAPES) if p is not None]
        return [m.span() for pattern in patterns for m in pattern.finditer(text)]

    def split_at(self, text: str, at: int) -> int:
        """Where `text` may be cut at `at` or after it without cutting a secret in two: the end
        of the matches that span `at` (`at` itself when none does)."""
        moved = True
        while moved:
            moved = False
            for start, end in self._matches(text):
                if start < at < end:
                    at, moved = end, True
        return at

    def pair(self, first: str, second: str) -> tuple[str, str]:
        """`first` and `second` redacted as the one text they read as when one follows the other
        (a reply's reasoning and its text): a secret that ends the first and begins the second is
        one label at the end of the first, and its rest is gone from the second."""
        whole = first + second
        cut = self.split_at(whole, len(first)) if first and second else len(first)
        return self.text(whole[:cut]), self.text(whole[cut:])

    def _base64_label(self, match: re.Match[str]) -> str:
        found = match.group(0)
        name = next(n for form, n in self._base64_names.items() if found.startswith(form))
        return f"[REDACTED {name}]"

    def value(self, value: Any) -> Any:
        """The same JSON-like value with every string (keys included) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def deep(self, value: Any) -> Any:
        """Like `value`, but keeps tuples and dataclasses (an event's fields), and returns the
        very same object when nothing in it changed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, (list, tuple)):
            items = [self.deep(v) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return type(value)(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            pairs = [(self.deep(k), self.deep(v)) for k, v in value.items()]
            if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
                return value
            return dict(pairs)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changed = {}
            for item in dataclasses.fields(value):
                old = getattr(value, item.name)
                new = self.deep(old)
                if new is not old:
                    changed[item.name] = new
            return dataclasses.replace(value, **changed) if changed else value
        return value
