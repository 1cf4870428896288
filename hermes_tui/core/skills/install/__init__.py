"""Skills from outside: fetch a source (sources.py), vet every file of every skill in it
(vetting.py, scripts.py), install with provenance `hub` and keep the lock (installer.py)."""

from hermes_tui.core.skills.install.installer import (
    InstallResult,
    SkillInstaller,
    UpdateResult,
    tree_diff,
    tree_digest,
)
from hermes_tui.core.skills.install.sources import (
    Fetched,
    InstallError,
    SourceSpec,
    fetch,
    parse_source,
)
from hermes_tui.core.skills.install.vetting import (
    POLICY,
    Candidate,
    ShellJudge,
    Tier,
    Verdict,
    Vetter,
    decide,
    find_candidates,
)

__all__ = [
    "POLICY",
    "Candidate",
    "Fetched",
    "InstallError",
    "InstallResult",
    "ShellJudge",
    "SkillInstaller",
    "SourceSpec",
    "Tier",
    "UpdateResult",
    "Verdict",
    "Vetter",
    "decide",
    "fetch",
    "find_candidates",
    "parse_source",
    "tree_diff",
    "tree_digest",
]
