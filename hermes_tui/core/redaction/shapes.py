"""Well-known key shapes (`sk-…`, `ghp_…`, `AKIA…`, `Bearer …`, …): found with nothing configured.

`redact_shapes` replaces each with `[REDACTED <kind>]`; `shape_starts()` finds the tail of a
streamed text that could still grow into one (core/redaction/stream.py holds it back).
"""

from __future__ import annotations

import functools
import re

# Not the middle of a longer word (`_` may glue it to a name: KEY_sk-…). Leads no ordinary
# word holds (ghp_, AKIA, xoxb-, sk-proj-, …) need no boundary: tokenghp_…, 1AKIA… are keys.
_B = r"(?<![A-Za-z0-9\-])"
# (kind, pattern): the shapes providers and code hosts give their keys. Replaced whole.
KEY_SHAPES: tuple[tuple[str, str], ...] = (
    ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"),
    # reversed: its END line first
    ("private key", r"-----YEK ETAVIRP [A-Z ]*DNE-----[\s\S]*?(?:-----YEK ETAVIRP [A-Z ]*NIGEB-----|\Z)"),
    ("bearer token", r"(?:(?i:(?<![A-Za-z0-9])bearer)|(?<=[a-z0-9])Bearer)\s+[A-Za-z0-9._~+/=\-]{8,}"),
    ("anthropic key", r"sk-ant-[A-Za-z0-9_\-]{12,}"),
    ("openai key", r"(?:sk-(?:proj|svcacct|admin|or-v1)-|" + _B + r"sk-)[A-Za-z0-9_\-]{16,}"),
    ("github token", r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("aws key", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"),
    ("slack token", r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("google key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("jwt", _B + r"eyJ[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"),
    ("gitlab token", r"glpat-[A-Za-z0-9_\-]{20,}"),
    ("hugging face token", _B + r"hf_[A-Za-z0-9]{30,}"),
    ("stripe key", _B + r"(?:sk|rk|pk)_live_[A-Za-z0-9]{16,}"),
    ("npm token", _B + r"npm_[A-Za-z0-9]{36}"),
)  # fmt: skip
# Every shape begins with one of these characters: checked once at each position first, it
# spares trying each shape there (three times faster over ordinary text).
_FIRST_CHARACTERS = "[-bBsrpgAxehn]"
SHAPES = re.compile(
    f"(?={_FIRST_CHARACTERS})(?:"
    + "|".join(f"(?P<s{i}>{pattern})" for i, (_, pattern) in enumerate(KEY_SHAPES))
    + ")"
)
# (lead, what follows it): how each of KEY_SHAPES begins. A stream's tail that is a start of a
# lead, or a lead and then such characters up to the end, may still become a key: it is held.
SHAPE_LEADS: tuple[tuple[str, str, bool], ...] = (  # (lead, what follows, needs a boundary)
    ("-----BEGIN ", r"[A-Z \-]*", True),
    ("-----YEK ETAVIRP ", r"[A-Z \-]*", True),
    ("sk-", r"[A-Za-z0-9_\-]*", True),
    *((f"sk-{kind}-", r"[A-Za-z0-9_\-]*", False) for kind in ("ant", "proj", "svcacct", "admin")),
    *((f"gh{kind}_", r"[A-Za-z0-9]*", False) for kind in "pousr"),
    ("github_pat_", r"[A-Za-z0-9_]*", False),
    ("AKIA", r"[0-9A-Z]*", False),
    ("ASIA", r"[0-9A-Z]*", False),
    *((f"xox{kind}-", r"[A-Za-z0-9\-]*", False) for kind in "abposre"),
    ("AIza", r"[0-9A-Za-z_\-]*", False),
    ("eyJ", r"[A-Za-z0-9_\-.]*", True),
    ("glpat-", r"[A-Za-z0-9_\-]*", False),
    ("hf_", r"[A-Za-z0-9]*", True),
    *((f"{kind}_live_", r"[A-Za-z0-9]*", True) for kind in ("sk", "rk", "pk")),
    ("npm_", r"[A-Za-z0-9]*", True),
)


def _starts_of(lead: str) -> str:
    """A pattern matching every non-empty start of `lead` (l(?:e(?:a(?:d)?)?)?)."""
    pattern = ""
    for char in reversed(lead):
        pattern = re.escape(char) + (f"(?:{pattern})?" if pattern else "")
    return pattern


@functools.cache
def shape_starts() -> re.Pattern[str]:
    """The tail of a streamed text that could still grow into a key: compiled at its first use
    (a stream's first held tail), since a one-shot turn that streams nothing never asks and
    its compiling is ~3 ms of the start."""
    return re.compile(
        f"(?={_FIRST_CHARACTERS})(?:"
        + "|".join(
            [
                *(
                    (_B if bounded else "") + f"(?:{_starts_of(lead)}|{re.escape(lead)}{rest})\\Z"
                    for lead, rest, bounded in SHAPE_LEADS
                ),
                r"(?i:(?<![A-Za-z0-9])" + _starts_of("bearer") + r")\Z",
                r"(?<=[a-z0-9])" + _starts_of("Bearer") + r"\Z",
                r"(?:(?i:(?<![A-Za-z0-9])bearer)|(?<=[a-z0-9])Bearer)\s+[A-Za-z0-9._~+/=\-]*\Z",
            ]
        )
        + ")"
    )


# No key shape, nor any disguise of one, is shorter than this (a bearer token: `bearer` and 8
# characters): a shorter text is returned at once. Most values of a tool's JSON result (names,
# numbers, short words) are: the eight passes below cost ~10 us each. tests/core/
# test_redaction_disguises.py reads the shortest match of every pattern here against it.
SHORTEST_SHAPE = 15


def redact_shapes(text: str) -> str:
    """`text` with every well-known key shape replaced (nothing configured needed), also
    reversed, in another letter case or encoded (`redact_disguised`)."""
    if len(text) < SHORTEST_SHAPE:
        return text
    return redact_disguised(SHAPES.sub(_shape_label, text))


def _shape_label(match: re.Match[str]) -> str:
    kind = KEY_SHAPES[int(str(match.lastgroup)[1:])][0]
    if kind == "bearer token":
        return f"{match.group(0).split()[0]} [REDACTED {kind}]"
    return f"[REDACTED {kind}]"


# ---- key shapes in disguise: reversed, in another letter case, encoded ---------------------
# Only the shapes whose lead cannot be ordinary text (a JWT or a bearer token reversed, or a
# private key's body encoded, would be guesses): a match must be the whole shape again.
_DISGUISABLE = ("anthropic key", "openai key", "github token", "aws key", "slack token",
                "google key", "gitlab token", "hugging face token", "stripe key", "npm token")  # fmt: skip
# Reversed or encoded, a JWT (`.eyJ…` twice), a bearer token (`Bearer ` before it) and a
# private key (its whole header) are no guesses either.
_REVERSIBLE = (*_DISGUISABLE, "jwt", "bearer token")
_ENCODABLE = (*_DISGUISABLE, "jwt", "bearer token", "private key")
_REVERSED_LEADS = re.compile(
    r"(?=[-_aAjJrR])(?:-ks|_[pousr]hg|_tap_buhtig|AIKA|AISA|-[abposre]xox|azIA|-taplg|_fh"
    r"|_evil_[skrp]|_mpn|Jye|reraeb)",
    re.I,
)
# A private key reversed: its END line first (when it is there), the body, its BEGIN line.
_REVERSED_PRIVATE_KEY = re.compile(
    r"(?:-----YEK ETAVIRP [A-Z ]*DNE-----)?[A-Za-z0-9+/=\r\n]*-----YEK ETAVIRP [A-Z ]*NIGEB-----"
)
_REVERSED_REACH = 300  # longer than any key of those shapes
# Another letter case: the lead in any case, and a body with at least four digits (a key is
# random; a product code like SK-HYNIX-MEMORY-MODULE is not).
_FOLDED = re.compile(
    r"(?=[sSgGxXaA])(?<![A-Za-z0-9\-])(?:sk-|gh[pousr]_|github_pat_|xox[abposre]-|glpat-|akia|asia|aiza)"
    r"(?=(?:[A-Za-z0-9_\-]*?\d){4})[A-Za-z0-9_\-]{16,}",
    re.I,
)
# A run of base64 or hex long enough to carry a key (the shortest shape, 20 characters, is 27
# in unpadded base64).
# The characters of those runs, and of keys. A stream's tail of them (the word still coming)
# is held: only its end shows whether it is a key in disguise. Not past DISGUISE_CAP (longer
# than any key's encoding): a longer run goes on as it comes.
KEY_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-"
DISGUISE_CAP = 512
_ENCODED_RUN = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/_\-]{26,}={0,2}")


def _disguised_kind(text: str, kinds: tuple[str, ...] = _DISGUISABLE) -> str | None:
    """The kind of the key shape `text` holds, if one of `kinds`."""
    for found in SHAPES.finditer(text):
        kind = KEY_SHAPES[int(str(found.lastgroup)[1:])][0]
        if kind in kinds:
            return kind
    return None


def _decoded(run: str) -> str:
    """`run` decoded as hex or base64 (standard or URL-safe, any padding), as Latin-1 text;
    empty when it is neither."""
    import base64
    import binascii

    if len(run) % 2 == 0 and all(char in "0123456789abcdefABCDEF" for char in run):
        return bytes.fromhex(run).decode("latin-1")
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4)).decode("latin-1")
    except (binascii.Error, ValueError):
        return ""


def redact_disguised(text: str) -> str:
    """`text` with key shapes nobody configured replaced where they hide: reversed, upper- or
    lower-cased, encoded in base64 (also wrapped over lines) or hex, or spelled out."""
    spans: list[tuple[int, int, str]] = []
    for lead in _REVERSED_LEADS.finditer(text):
        if spans and lead.start() < spans[-1][1]:
            continue
        # The key, reversed, ends with its lead: read backwards from the character after it
        # (what the shape's lookbehind sees), a key's length at most.
        end = min(len(text), lead.end() + 1)
        backwards = text[max(0, lead.start() - _REVERSED_REACH) : end][::-1]
        found = SHAPES.match(backwards, end - lead.end())
        if found and KEY_SHAPES[int(str(found.lastgroup)[1:])][0] in _REVERSIBLE:
            kind = KEY_SHAPES[int(str(found.lastgroup)[1:])][0]
            spans.append((end - found.end(), end - found.start(), kind))
    for start, end, kind in reversed(spans):
        text = f"{text[:start]}[REDACTED {kind}]{text[end:]}"
    if "ETAVIRP" in text:
        text = _REVERSED_PRIVATE_KEY.sub("[REDACTED private key]", text)
    text = _FOLDED.sub(_folded_label, text)
    if _wrapped_line(text):  # base64 wrapped over lines (a private key's, as `base64` prints it)
        text = _WRAPPED_RUN.sub(_wrapped_run_label, text)
    text = _ENCODED_RUN.sub(_encoded_label, text)
    if "\n" in text:  # a key wrapped over two lines
        text = _WRAPPED_KEY.sub(_wrapped_label, text)
    if len(text) >= 15 and _SPELLED_START.search(text):
        text = _SPELLED.sub(_spelled_label, text)
    if _HIDING.search(text):
        text = _HIDDEN_RUN.sub(lambda run: _redact_hidden(run.group(0)), text)
    return text


_WRAPPED_KEY = re.compile(
    f"(?={_FIRST_CHARACTERS})(?:sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[a-z]-|AIza|glpat-|hf_|npm_)"
    r"[A-Za-z0-9_\-]*(?:\r?\n[A-Za-z0-9_\-]+)+"
)


def _wrapped_label(match: re.Match[str]) -> str:
    joined = "".join(match.group(0).split())
    redacted = SHAPES.sub(_shape_label, joined)
    return redacted if redacted != joined else match.group(0)


# Zero-width characters, NUL and combining accents between a key's characters, or full-width
# letters: the key is looked for in the text without them (and with full-width made ASCII).
_HIDING = re.compile("[\x00\u200b-\u200d\u2060\ufeff\u0300-\u036f\uff01-\uff5e]")
_ASCII = {code + 0xFEE0: code for code in range(0x21, 0x7F)}
# A word long enough to be a key, hidden characters and full-width letters included: only
# such a word is read again without them.
_HIDDEN_RUN = re.compile("[\\w\\-\x00\u200b-\u200d\u2060\ufeff\u0300-\u036f\uff01-\uff5e]{16,}")


def _redact_hidden(text: str) -> str:
    kept = [index for index, char in enumerate(text) if not _HIDING.match(char) or
            0xFF01 <= ord(char) <= 0xFF5E]  # fmt: skip
    plain = "".join(text[index] for index in kept).translate(_ASCII)
    spans = []
    for found in SHAPES.finditer(plain):
        start, end = kept[found.start()], kept[found.end() - 1] + 1
        if text[start:end] != found.group(0):  # hidden: the plain one was redacted already
            spans.append((start, end, KEY_SHAPES[int(str(found.lastgroup)[1:])][0]))
    for start, end, kind in reversed(spans):
        text = f"{text[:start]}[REDACTED {kind}]{text[end:]}"
    return text


def _folded_label(match: re.Match[str]) -> str:
    kind = _disguised_kind(_canonical_case(match.group(0)))
    return f"[REDACTED {kind}]" if kind else match.group(0)


_CANONICAL_LEADS = (
    "sk-", "github_pat_", "glpat-", "AKIA", "ASIA", "AIza",
    *(f"gh{kind}_" for kind in "pousr"), *(f"xox{kind}-" for kind in "abposre"),
)  # fmt: skip


def _canonical_case(found: str) -> str:
    """A key shape with its lead as its provider writes it (sk-, ghp_, AKIA, AIza, …)."""
    for lead in _CANONICAL_LEADS:
        if found.lower().startswith(lead.lower()):
            body = found[len(lead) :]
            return lead + (body.upper() if lead in ("AKIA", "ASIA") else body)
    return found


def encoded_key(run: str) -> tuple[int, str] | None:
    """Where in `run` (base64 or hex from a group's start) the first key it decodes to
    begins, and its kind; None when it decodes to none."""
    decoded = _decoded(run)
    hexed = len(run) % 2 == 0 and all(char in "0123456789abcdefABCDEF" for char in run)
    for found in SHAPES.finditer(decoded):
        kind = KEY_SHAPES[int(str(found.lastgroup)[1:])][0]
        if kind in _ENCODABLE:
            return (2 * found.start() if hexed else found.start() // 3 * 4), kind
    return None


_ENDING_LINE = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{40,}={0,2}\r?\n\Z")


def ends_with_key_line(text: str) -> bool:
    """Whether `text` ends with a whole line of base64 that decodes to a key (the first line
    of a wrapped block, as `base64` prints a private key)."""
    if not text.endswith("\n") or len(text) < 41:
        return False
    line = _ENDING_LINE.search(text, max(0, len(text) - 1100))
    if line is None:
        return False
    body = line.group(0).strip()
    return encoded_key(body[: len(body) - len(body) % 4]) is not None


def _encoded_label(match: re.Match[str]) -> str:
    kind = _disguised_kind(_decoded(match.group(0)), _ENCODABLE)
    return f"[REDACTED {kind}]" if kind else match.group(0)


# Lines of base64 as `base64` and PEM wrap them (40 characters or more each), read joined.
_WRAPPED_RUN = re.compile(
    r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{40,}(?:\r?\n[A-Za-z0-9+/]{4,})+={0,2}"
)


_LINE_OF_BASE64 = re.compile(r"[A-Za-z0-9+/]{39}[A-Za-z0-9+/\r]")


def _wrapped_line(text: str) -> bool:
    """Whether a line break in `text` ends 40 characters of base64 (found without a scan of
    every word: ordinary text has few line breaks)."""
    at = text.find("\n", 40)
    while at >= 0:
        if _LINE_OF_BASE64.match(text, at - 40, at):
            return True
        at = text.find("\n", at + 1)
    return False


def _wrapped_run_label(match: re.Match[str]) -> str:
    kind = _disguised_kind(_decoded("".join(match.group(0).split())), _ENCODABLE)
    return f"[REDACTED {kind}]" if kind else match.group(0)


_TOKEN_CHARACTERS = KEY_CHARACTERS + ".~"


def reversed_bearer_tail(text: str) -> int:
    """Where a streamed text's last word begins when it may be a bearer token reversed whose
    `reraeB` is still coming (a token of 8 characters or more, whitespace, then nothing or a
    start of `reraeB`); `len(text)` when it may not."""
    lead = len(text.rstrip("rRaAeEbB"))
    if lead < len(text) and not "reraeb".startswith(text[lead:].lower()):
        return len(text)
    spaced = len(text[:lead].rstrip())
    if spaced == lead:
        return len(text)
    start = len(text[:spaced].rstrip(_TOKEN_CHARACTERS))
    return start if spaced - start >= 8 else len(text)


# A key spelled out, the same separator between each two of its characters (`g h p _ A b 1 …`,
# `s-k---p-r-o-j-…`, `A, K, I, A, …`): read back without the separators.
_SPELLED_SEPARATOR = r"(?P<sep>, |[ \t,.:;|/*+_\-])"
_SPELLED_START = re.compile(r"(?<![A-Za-z0-9])[sgAxhnerp][ \t,.:;|/*+_\-]")
_SPELLED = re.compile(
    r"(?<![A-Za-z0-9])(?=[sgAxhnerp])[A-Za-z]" + _SPELLED_SEPARATOR
    + r"(?:[A-Za-z0-9_.\-](?P=sep)){12,}[A-Za-z0-9_.\-](?![A-Za-z0-9])"
)  # fmt: skip
# The tail of a streamed text that may be such a key still coming (read back: shape_starts()).
SPELLED_TAIL = re.compile(
    r"(?<![A-Za-z0-9])(?=[sgAxhnerp])[A-Za-z]" + _SPELLED_SEPARATOR
    + r"(?:[A-Za-z0-9_.\-](?P=sep))*(?:[A-Za-z0-9_.\-],?)?\Z"
)  # fmt: skip
SPELLED_REACH = 400  # longer than any key spelled out
_ADJACENT = re.compile(r"[A-Za-z0-9]{2}")  # never inside a spelled-out run


def spelled_tail(text: str) -> re.Match[str] | None:
    """The spelled-out run (`g h p _ A`) that ends `text`, if one may: looked for only after
    the last two letters or digits side by side (found from the end, a few characters back in
    ordinary text)."""
    tail = text[-SPELLED_REACH:][::-1]
    pair = _ADJACENT.search(tail)
    return SPELLED_TAIL.search(text, len(text) - (pair.start() if pair else len(tail)))


def spelled_out(match: re.Match[str]) -> str:
    """The characters of a spelled-out run, its separators left out."""
    return match.group(0)[:: 1 + len(match.group("sep"))]


def _spelled_label(match: re.Match[str]) -> str:
    kind = _disguised_kind(spelled_out(match), (*_DISGUISABLE, "jwt"))
    return f"[REDACTED {kind}]" if kind else match.group(0)
