"""Secrets out of everything that leaves the process: one redaction for every road.

Tool results, provider errors, exceptions, events the faces print, messages sessions.db keeps,
exports, staged writes and log lines all pass `Redactor.text` (or `.value` for JSON-like
values) before they go anywhere. Two kinds of secret are replaced:

1. Known values (the provider keys, every value of `<home>/.env`, environment variables whose
   names look secret), also in the encodings that carry them out unnoticed: base64 (standard and
   URL-safe, at any offset inside a longer encoded text), hex, URL-encoding and reversed. Each
   becomes `[REDACTED NAME]`.
2. Well-known key shapes, configured or not: `Bearer <token>`, OpenAI/Anthropic `sk-…`, GitHub
   `ghp_…`, AWS `AKIA…`, Slack `xox?-…`, Google `AIza…`, JWTs, PEM private keys, and a few more.
   Each becomes `[REDACTED <kind>]`.

Known values go first, so a configured key is named by its variable rather than by its shape.
The replacements hold no quote or backslash, so redacting JSON text keeps it valid JSON.

Streamed text is redacted as a whole, not per delta: a secret the provider happened to split
across two deltas would match in neither. `redacting_sink` holds back the tail of each thread's
stream that could still grow into a secret (`Redactor.held_from`) until the next delta or the
end of the model call, and passes the rest on at once. Nothing is held longer than MAX_HELD
characters (no key is that long; it keeps each delta's work small), except a private key: once
its header is whole it is shown as its label, and its body is dropped up to its END line.
"""

from __future__ import annotations

import base64
import bisect
import dataclasses
import logging
import re
import threading
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from hermes_tui.core.events import (
    Event,
    MemoryChanged,
    Notice,
    NudgeCounters,
    ReasoningDelta,
    ServerWaiting,
    Sink,
    SkillChanged,
    TextDelta,
    TextReset,
    TodoChanged,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
    WriteHeld,
)

# Shorter values ("1", "true", "dev") would redact ordinary words all over the output.
MIN_SECRET_LENGTH = 8
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
# An encoded form shorter than this could match by chance in ordinary base64 or hex.
MIN_ENCODED_LENGTH = 8

_B = r"(?<![A-Za-z0-9_\-])"  # not the middle of a longer word
# (kind, pattern): the shapes providers and code hosts give their keys. Replaced whole.
KEY_SHAPES: tuple[tuple[str, str], ...] = (
    ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"),
    ("bearer token", r"(?i:\bbearer)\s+[A-Za-z0-9._~+/=\-]{8,}"),
    ("anthropic key", _B + r"sk-ant-[A-Za-z0-9_\-]{12,}"),
    ("openai key", _B + r"sk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{16,}"),
    ("github token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("aws key", _B + r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"),
    ("slack token", _B + r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("google key", _B + r"AIza[0-9A-Za-z_\-]{35}"),
    ("jwt", _B + r"eyJ[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"),
    ("gitlab token", _B + r"glpat-[A-Za-z0-9_\-]{20,}"),
    ("hugging face token", _B + r"hf_[A-Za-z0-9]{30,}"),
    ("stripe key", _B + r"(?:sk|rk|pk)_live_[A-Za-z0-9]{16,}"),
    ("npm token", _B + r"npm_[A-Za-z0-9]{36}"),
)  # fmt: skip
_SHAPES = re.compile("|".join(f"(?P<s{i}>{pattern})" for i, (_, pattern) in enumerate(KEY_SHAPES)))
# (lead, what follows it): how each of KEY_SHAPES begins. A stream's tail that is a start of a
# lead, or a lead and then such characters up to the end, may still become a key: it is held.
SHAPE_LEADS: tuple[tuple[str, str], ...] = (
    ("-----BEGIN ", r"[A-Z \-]*"),
    ("sk-", r"[A-Za-z0-9_\-]*"),
    *((f"gh{kind}_", r"[A-Za-z0-9]*") for kind in "pousr"),
    ("github_pat_", r"[A-Za-z0-9_]*"),
    ("AKIA", r"[0-9A-Z]*"),
    ("ASIA", r"[0-9A-Z]*"),
    *((f"xox{kind}-", r"[A-Za-z0-9\-]*") for kind in "abposre"),
    ("AIza", r"[0-9A-Za-z_\-]*"),
    ("eyJ", r"[A-Za-z0-9_\-.]*"),
    ("glpat-", r"[A-Za-z0-9_\-]*"),
    ("hf_", r"[A-Za-z0-9]*"),
    *((f"{kind}_live_", r"[A-Za-z0-9]*") for kind in ("sk", "rk", "pk")),
    ("npm_", r"[A-Za-z0-9]*"),
)


def _starts_of(lead: str) -> str:
    """A pattern matching every non-empty start of `lead` (l(?:e(?:a(?:d)?)?)?)."""
    pattern = ""
    for char in reversed(lead):
        pattern = re.escape(char) + (f"(?:{pattern})?" if pattern else "")
    return pattern


_SHAPE_STARTS = re.compile(
    "|".join(
        [
            *(
                _B + f"(?:{_starts_of(lead)}|{re.escape(lead)}{rest})\\Z"
                for lead, rest in SHAPE_LEADS
            ),
            r"(?i:\b" + _starts_of("bearer") + r")\Z",
            r"(?i:\bbearer)\s+[A-Za-z0-9._~+/=\-]*\Z",
        ]
    )
)


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


def redact_shapes(text: str) -> str:
    """`text` with every well-known key shape replaced (nothing configured needed)."""
    return _SHAPES.sub(_shape_label, text)


def _shape_label(match: re.Match[str]) -> str:
    kind = KEY_SHAPES[int(str(match.lastgroup)[1:])][0]
    if kind == "bearer token":
        return f"{match.group(0).split()[0]} [REDACTED {kind}]"
    return f"[REDACTED {kind}]"


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
        found = _SHAPE_STARTS.search(text)
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
        patterns = [p for p in (self._pattern, self._base64, _SHAPES) if p is not None]
        moved = True
        while moved:
            moved = False
            for pattern in patterns:
                for match in pattern.finditer(text):
                    if match.start() < cut and (match.end() > cut or match.end() == len(text)):
                        cut, moved = match.start(), True
        return cut

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


# Held back at most, outside a private key: no key shape is this long, and a longer run of key
# characters would make every delta scan it again.
MAX_HELD = 1024
_KEY_OPEN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")


@dataclasses.dataclass
class _Stream:
    """One thread's stream of text (or reasoning) deltas, as redaction sees it."""

    kind: type[TextDelta] | type[ReasoningDelta]
    held: str = ""  # the tail that could still grow into a secret
    in_key: str | None = None  # inside a private key: its last characters (for its END)
    carried: int = 0  # how much of `held` an earlier model call of the turn streamed

    def feed(self, redactor: Redactor, text: str) -> str:
        """What may be shown now of the stream with `text` added, redacted."""
        if self.in_key is not None:
            # The key is already shown as one label; everything up to its END is swallowed
            # (the whole text redacts the same way), and only its END is looked for.
            seen = self.in_key + text
            end = _KEY_END.search(seen)
            if end is None:
                self.in_key = seen[-64:]
                return ""
            self.in_key, text = None, seen[end.end() :]
        text = self.held + text
        cut = redactor.held_from(text)
        shown, self.held = redactor.text(text[:cut]), text[cut:]
        self.carried = max(0, self.carried - cut)
        opened = _KEY_OPEN.search(self.held)
        if opened and not _KEY_END.search(self.held, opened.end()):
            shown += redactor.text(self.held[: opened.start()]) + "[REDACTED private key]"
            self.in_key, self.held = self.held[opened.end() :][-64:], ""
            return shown
        if len(self.held) > MAX_HELD:
            shown, self.held = shown + redactor.text(self.held), ""
        self.carried = min(self.carried, len(self.held))
        return shown


# What happens within a turn, between or during its model calls (its tools run, a retry is
# announced): the tail held back goes on waiting across them, so text that ends a call with the
# start of a secret and begins the next call with the rest shows it as one label. Any other
# event (the turn's end, an error) lets it go.
_WITHIN_TURN = (
    ServerWaiting,
    Notice,
    ToolCallStarted,
    ToolCallFinished,
    TodoChanged,
    MemoryChanged,
    SkillChanged,
    WriteHeld,
    UsageUpdated,
    NudgeCounters,
)


def redacting_sink(sink: Sink, redactor: Redactor) -> Sink:
    """`sink`, handed every event with its text redacted (what the faces print and show).

    Text and reasoning deltas are redacted as one stream per thread (each turn streams on its
    own): the tail that could still grow into a secret waits for the next delta, and is let go
    (redacted) by any other event of that thread but those within a turn (`_WITHIN_TURN`): a
    secret split across two model calls of a turn, around a tool call, is redacted whole. A
    retried call's reset drops the attempt's text, held or not, but keeps what an earlier call
    left held.
    """
    lock = threading.Lock()
    streams: dict[int, _Stream] = {}  # thread → its stream

    def let_go(stream: _Stream | None) -> None:
        if stream is not None and stream.held:
            sink(stream.kind(redactor.text(stream.held)))

    def forward(event: Event) -> None:
        thread = threading.get_ident()
        if isinstance(event, (TextDelta, ReasoningDelta)):
            with lock:
                stream = streams.get(thread)
                if stream is None or stream.kind is not type(event):
                    streams[thread] = _Stream(type(event))
            if stream is not None and stream.kind is not type(event):
                let_go(stream)
                stream = None
            stream = stream or streams[thread]
            if shown := stream.feed(redactor, event.text):
                sink(type(event)(shown))
            return
        with lock:
            stream = streams.get(thread)
            if isinstance(event, _WITHIN_TURN):
                if stream is not None and isinstance(event, ToolCallStarted):
                    stream.carried = len(stream.held)  # the call that streamed it is over
                stream = None
            elif isinstance(event, TextReset) and stream is not None and stream.carried:
                # A retry drops the attempt's text, held or not; what an earlier call of the
                # turn streamed is kept, still held.
                stream.held, stream.in_key = stream.held[: stream.carried], None
                stream = None
            else:
                stream = streams.pop(thread, None)
        if not isinstance(event, TextReset):
            let_go(stream)
        sink(redactor.deep(event))

    return forward


class RedactingFilter(logging.Filter):
    """A handler filter: the formatted message and any traceback redacted before it is written."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redactor.text(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = self.redactor.text(
                logging.Formatter().formatException(record.exc_info)
            )
            record.exc_info = None
        return True


Redact = Callable[[str], str]
