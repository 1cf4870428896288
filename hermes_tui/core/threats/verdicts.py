"""What the scanner says: findings, the two tiers they fall in, and the verdict over a text.

Invariants: a finding's tier follows from its id and category alone (`tier_of`), so a verdict
read back from disk (cache.py) can be checked against what the scanner would have said; a
verdict refuses when any finding refuses, holds when any holds, and allows otherwise. A finding
of the lowest tier, "flag" (a weak signal: the library's "maybe" outside the injection
categories, a prompt named with no request for it), does not hold a text on its own; it holds
one written in a tainted turn (`Verdict.holds(tainted=True)`).
"""

from __future__ import annotations

from typing import Literal

from hermes_tui.core.records import datarecord

Severity = Literal["low", "medium", "high", "critical"]
Tier = Literal["allow", "hold", "refuse"]
FindingTier = Literal["flag", "hold", "refuse"]
SEVERITY_RANK: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}

# Anything longer cannot be a curated note; scanning it whole would be slow and a
# partial scan would let an unscanned tail through, so callers refuse it outright.
MAX_SCAN_CHARS = 200_000


@datarecord
class Finding:
    """One threat found in a text: which pattern, where, in which view."""

    id: str
    category: str
    severity: Severity
    description: str
    excerpt: str
    view: str = "text"  # which decoded form of the text it was found in
    source: str = "hermes"  # "hermes" (our patterns) or "xaidr"


# Categories whose findings are refused outright; anything else found is held for the user.
REFUSE_CATEGORIES = frozenset(
    {
        # ours
        "prompt_injection",
        "role_hijack",
        "deception",
        "hidden_content",
        "prompt_leak",
        "fake_authority",
        "command_and_control",
        "exfiltration",
        "propagation",
        "secret",
        "safety_settings",
        # xaidr's
        "jailbreak",
        "role_override",
        "system_prompt_leak",
        "data_exfiltration",
        "rag_poisoning",
        "memory_manipulation",
        "lpci",
        "forged_trust",
        "agent_delegation_abuse",
        "agent_config_theft",
        "social_engineering",
        "secret_api_key",
        "secret_private_key",
        "secret_password",
        "secret_jwt",
        "secret_github_token",
        "secret_connection_string",
        "secret_aws_key",
    }
)

# Findings held rather than refused although their category is refused: reading a credentials
# file is how an exfiltration starts, but a note about one is often ordinary ("cat .env | grep
# PORT"), so a person decides.
HOLD_IDS = frozenset({"read_secret_files"})


# A weak signal's category ends with this: "supply_chain (weak)", "suspicious (weak)".
WEAK = " (weak)"


def tier_of(finding: Finding) -> FindingTier:
    if finding.id in HOLD_IDS:
        return "hold"
    if finding.category.endswith(WEAK):
        return "flag"
    return "refuse" if finding.category in REFUSE_CATEGORIES else "hold"


def tier_over(findings: tuple[Finding, ...] | list[Finding]) -> Tier:
    tiers = {tier_of(f) for f in findings}
    return "refuse" if "refuse" in tiers else "hold" if "hold" in tiers else "allow"


@datarecord
class Verdict:
    """The scanner's tier for a text and the findings behind it."""

    tier: Tier
    findings: tuple[Finding, ...]

    @property
    def id(self) -> str:
        """The id of the finding that decided the verdict ('' when allowed)."""
        deciding = [f for f in self.findings if tier_of(f) == self.tier]
        return deciding[0].id if deciding else ""

    @property
    def flagged(self) -> bool:
        """Anything found at all, weak signals included."""
        return bool(self.findings)

    def holds(self, *, tainted: bool) -> bool:
        """Whether a write with this verdict waits for a person: a tainted turn holds on weak
        signals too (and refusals are refused before this is asked)."""
        return self.tier != "allow" or (tainted and self.flagged)

    def describe(self) -> str:
        return describe(list(self.findings))


def describe(findings: list[Finding]) -> str:
    """One line naming each finding: `exfil_secret_over_network (exfiltration, critical)`."""
    return "; ".join(f"{f.id} ({f.category}, {f.severity})" for f in findings)


def excerpt(text: str, start: int, end: int, width: int = 60) -> str:
    lo = max(0, start - 10)
    hi = min(len(text), max(end, start + width))
    snippet = text[lo:hi].replace("\n", " ")
    return ("…" if lo else "") + snippet + ("…" if hi < len(text) else "")
