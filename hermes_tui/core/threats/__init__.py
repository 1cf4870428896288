"""Injection and exfiltration scanning for every text that can reach a future system prompt.

The rooms, each importing only those above it:
- verdicts.py: `Finding`, `Verdict`, the tiers (refuse: injection-shaped; hold: worth a look);
- lexicon.py: the word lists the table is built from, in English and ten other languages;
- patterns.py: our threat patterns, one table of (regex, id, category, severity, description);
- views.py: `normalise` (the plain form any comparison should use) and the decoded `views` of a
  text (as written, base64, hex, rot13, reversed, URL, homoglyphs, spaced-out letters);
- sensor.py: the xaidr library's verdict as findings (its failure holds, never allows);
- model.py: the learned scorer (hashed n-grams and the lexicon's concepts, logistic
  regression, weights in scorer.bin): a high score holds, a middling one flags;
- scanner.py: `Scanner` (patterns + sensor over the views, cached; `assess_continuation` for
  a text that completes ones refused or held before) and `scan` (patterns only);
- cache.py: `VerdictCache`, the verdicts remembered on disk between starts.
"""

from typing import TYPE_CHECKING, Any

from hermes_tui.core.threats.scanner import JOINED, Scanner, scan
from hermes_tui.core.threats.verdicts import (
    MAX_SCAN_CHARS,
    REFUSE_CATEGORIES,
    SEVERITY_RANK,
    Finding,
    Severity,
    Tier,
    Verdict,
    describe,
    tier_of,
)
from hermes_tui.core.threats.views import fold_homoglyphs, normalise, views

if TYPE_CHECKING:
    from hermes_tui.core.threats.patterns import PATTERNS, ThreatPattern


def __getattr__(name: str) -> Any:
    """The pattern table, built on first use (the first scan, or a caller asking for it): a
    start whose texts are all remembered never builds it."""
    if name in ("PATTERNS", "ThreatPattern"):
        from hermes_tui.core.threats import patterns

        return getattr(patterns, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "JOINED",
    "MAX_SCAN_CHARS",
    "PATTERNS",
    "REFUSE_CATEGORIES",
    "SEVERITY_RANK",
    "Finding",
    "Scanner",
    "Severity",
    "ThreatPattern",
    "Tier",
    "Verdict",
    "describe",
    "fold_homoglyphs",
    "normalise",
    "scan",
    "tier_of",
    "views",
]
