"""Well-known key shapes (`sk-…`, `ghp_…`, `AKIA…`, `Bearer …`, …): found with nothing configured.

`redact_shapes` replaces each with `[REDACTED <kind>]`; `SHAPE_STARTS` finds the tail of a
streamed text that could still grow into one (core/redaction/stream.py holds it back).
"""

from __future__ import annotations

import re

_B = r"(?<![A-Za-z0-9\-])"  # not the middle of a longer word; `_` may glue it to a name (KEY_sk-…)
# (kind, pattern): the shapes providers and code hosts give their keys. Replaced whole.
KEY_SHAPES: tuple[tuple[str, str], ...] = (
    ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"),
    ("bearer token", r"(?i:(?<![A-Za-z0-9])bearer)\s+[A-Za-z0-9._~+/=\-]{8,}"),
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
SHAPES = re.compile("|".join(f"(?P<s{i}>{pattern})" for i, (_, pattern) in enumerate(KEY_SHAPES)))
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


SHAPE_STARTS = re.compile(
    "|".join(
        [
            *(
                _B + f"(?:{_starts_of(lead)}|{re.escape(lead)}{rest})\\Z"
                for lead, rest in SHAPE_LEADS
            ),
            r"(?i:(?<![A-Za-z0-9])" + _starts_of("bearer") + r")\Z",
            r"(?i:(?<![A-Za-z0-9])bearer)\s+[A-Za-z0-9._~+/=\-]*\Z",
        ]
    )
)


def redact_shapes(text: str) -> str:
    """`text` with every well-known key shape replaced (nothing configured needed)."""
    return SHAPES.sub(_shape_label, text)


def _shape_label(match: re.Match[str]) -> str:
    kind = KEY_SHAPES[int(str(match.lastgroup)[1:])][0]
    if kind == "bearer token":
        return f"{match.group(0).split()[0]} [REDACTED {kind}]"
    return f"[REDACTED {kind}]"
