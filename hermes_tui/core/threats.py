"""Injection and exfiltration scanner shared by the memory store and the skill guard.

Text that reaches a system prompt (memory entries, skills) is scanned before it is written.
Invisible characters are looked for in the raw text; every other pattern runs on the
NFKC-normalised text, case-insensitively, so full-width letters or ligatures cannot hide a
phrase. Patterns are deliberately phrase-shaped: ordinary engineering prose ("ignore the lint
warnings", "you are now on the main branch") must pass.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

Severity = Literal["low", "medium", "high", "critical"]
SEVERITY_RANK: dict[str, int] = {"low": 0, "medium": 1, "high": 2, "critical": 3}

# Anything longer cannot be a curated note; scanning it whole would be slow and a
# partial scan would let an unscanned tail through, so callers refuse it outright.
MAX_SCAN_CHARS = 200_000


@functools.cache
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I | re.M)


@dataclass(frozen=True)
class ThreatPattern:
    id: str
    category: str
    severity: Severity
    pattern: str
    description: str

    @property
    def regex(self) -> re.Pattern[str]:
        # Compiled on first use: commands that never scan (memory show, --help) skip the cost.
        return _compile(self.pattern)


@dataclass(frozen=True)
class Finding:
    id: str
    category: str
    severity: Severity
    description: str
    excerpt: str


def _p(id_: str, category: str, severity: Severity, pattern: str, description: str):
    return ThreatPattern(id_, category, severity, pattern, description)


_ANY = r"(?:all|any|the|your|my|of|these|those)"

PATTERNS: tuple[ThreatPattern, ...] = (
    _p(
        "ignore_previous_instructions",
        "prompt_injection",
        "high",
        rf"\b(?:ignore|disregard|forget|override)\s+(?:{_ANY}\s+)*"
        r"(?:previous|prior|above|earlier|preceding|original|system|developer)\s+"
        r"(?:instructions?|prompts?|rules|directions|directives|guidelines|messages)",
        "asks the model to drop its earlier instructions",
    ),
    _p(
        "ignore_all_instructions",
        "prompt_injection",
        "high",
        r"\b(?:ignore|disregard|forget)\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+)?"
        r"(?:instructions|rules|guidelines|directives)",
        "asks the model to drop all its instructions",
    ),
    _p(
        "system_prompt_override",
        "prompt_injection",
        "critical",
        r"\b(?:your\s+)?(?:new|updated|real|actual|true)\s+system\s+prompt\s+(?:is|reads|says)\b"
        r"|\b(?:override|replace|overwrite)\s+(?:the\s+|your\s+)?system\s+prompt\b"
        r"|\bsystem\s+prompt\s+override\b",
        "tries to replace the system prompt",
    ),
    _p(
        "disregard_rules",
        "prompt_injection",
        "high",
        r"\b(?:disregard|bypass|circumvent|evade|ignore)\s+(?:all\s+|any\s+|of\s+)*"
        r"(?:your|the\s+(?:safety|security|content))\s+"
        r"(?:rules|restrictions|guidelines|guardrails|filters|policies|safeguards)"
        r"|\b(?:bypass|circumvent|evade|disable|turn\s+off)\s+(?:all\s+|any\s+|your\s+|the\s+)*"
        r"(?:safety|content|ethical)\s+(?:filters?|guardrails|restrictions|checks|policies|rules)",
        "asks the model to bypass its rules",
    ),
    _p(
        "deception_hide_from_user",
        "deception",
        "high",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to"
        r"|notify|alert|let)\s+(?:this\s+to\s+)?(?:the\s+)?(?:user|human|operator|owner)\b"
        r"|\bwithout\s+(?:the\s+user|them|the\s+human|the\s+operator)\s+(?:knowing|noticing|seeing)"
        r"|\bhide\s+(?:this|it|these\s+\w+)\s+from\s+(?:the\s+)?(?:user|human|operator)",
        "asks the model to keep something from the user",
    ),
    _p(
        "hidden_html_comment",
        "hidden_content",
        "high",
        r"<!--(?:(?!-->)[\s\S]){0,2000}?\b(?:ignore|instructions?|system|assistant|execute|run"
        r"|send|secret|prompt|you\s+must|you\s+are)\b(?:(?!-->)[\s\S]){0,2000}?-->",
        "an HTML comment carrying instructions the user would not see",
    ),
    _p(
        "hidden_html_element",
        "hidden_content",
        "high",
        r"<(?:div|span|p|section)\b[^>]*style\s*=\s*[\"'][^\"']*"
        r"(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0\b)",
        "an HTML element styled to be invisible",
    ),
    _p(
        "role_hijack",
        "role_hijack",
        "high",
        r"\byou\s+are\s+now\s+(?:a|an|my|the)\s+[\w\s-]{0,30}?\b(?:assistant|ai|agent|bot|model"
        r"|persona|character|hacker|jailbroken|unrestricted|dan)\b"
        r"|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|limited|hermes)"
        r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+act\s+as|must\s+act\s+as)\s+(?:a|an)\b"
        r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|jailbroken|evil|uncensored|rogue)\b"
        r"|\b(?:enter|enable|activate)\s+(?:developer|dan|god|jailbreak)\s+mode\b",
        "tries to give the model a different identity",
    ),
    _p(
        "pretend_role",
        "role_hijack",
        "medium",
        r"\bpretend\s+(?:that\s+)?(?:you\s+are|you're|to\s+be)\s+(?:a|an|the)?\s*[\w\s-]{0,30}?"
        r"\b(?:ai|assistant|model|without\s+(?:rules|restrictions|limits)|unrestricted|jailbroken"
        r"|human|developer|admin(?:istrator)?|root|system)\b",
        "asks the model to pretend to be something else",
    ),
    _p(
        "system_prompt_leak",
        "prompt_leak",
        "high",
        r"\b(?:reveal|print|show|output|repeat|display|leak|dump|recite|send)\s+(?:me\s+|us\s+)?"
        r"(?:your|the)\s+(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+|exact\s+)*"
        r"(?:system\s+prompt|initial\s+instructions|hidden\s+instructions|instructions\s+above)"
        r"|\b(?:reveal|print|show|output|repeat|dump|leak)\s+(?:me\s+)?your\s+system\s+message",
        "asks for the system prompt",
    ),
    _p(
        "fake_update",
        "fake_authority",
        "high",
        r"\b(?:important|urgent|critical|mandatory|new)\s+(?:system\s+|security\s+)?"
        r"(?:update|notice|message|directive)\s+(?:from|by)\s+(?:the\s+)?"
        r"(?:system|developers?|admin(?:istrator)?s?|anthropic|openai|nous|hermes\s+team)"
        r"|^\s*\[?\s*(?:system|admin|developer)\s+(?:message|notice|override|instruction)\s*\]?\s*:",
        "impersonates a system or vendor message",
    ),
    _p(
        "c2_registration",
        "command_and_control",
        "critical",
        r"\b(?:register|check\s*in|report|beacon|phone\s+home|heartbeat)\s+(?:back\s+)?(?:to|with)\s+"
        r"(?:the\s+|our\s+)?(?:c2|c&c|command[\s-]*(?:and|&)[\s-]*control|control\s+server"
        r"|mothership)"
        r"|\b(?:beacon|heartbeat|check\s*in|phone\s+home|poll)\s+(?:to\s+\S+\s+)?every\s+\d+\s*"
        r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b[^\n]*https?://",
        "command-and-control registration or beacon language",
    ),
    _p(
        "exfil_secret_over_network",
        "exfiltration",
        "critical",
        r"\b(?:curl|wget|http|https|fetch|nc|ncat|invoke-webrequest|iwr|requests\.(?:get|post))\b"
        r"[^\n]*\$\{?[a-z_]*(?:key|token|secret|password|passwd|credential|api)[a-z_]*\}?",
        "sends an environment secret over the network",
    ),
    _p(
        "read_secret_files",
        "exfiltration",
        "high",
        r"\b(?:cat|less|more|head|tail|read|open|print|type|source|grep|cp|scp|base64|xxd|upload)"
        r"\s+[^\n]{0,80}?(?:\.env(?![\w.-])|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b"
        r"|\.aws/credentials|credentials\.json|\.docker/config\.json|\bid_(?:rsa|ed25519|ecdsa)\b)",
        "reads a credentials file",
    ),
    _p(
        "send_context_to_url",
        "exfiltration",
        "critical",
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|paste)\s+"
        r"(?:the\s+|this\s+|your\s+|all\s+|our\s+|entire\s+|full\s+)*"
        r"(?:(?:conversation|chat)(?:\s+history|\s+log)?|context|session|memory|memories|system\s+prompt"
        r"|api\s+keys?|credentials|secrets|tokens|environment(?:\s+variables)?)\s+"
        r"(?:to|at|via|into)\s+(?:https?://|\S+\.(?:com|net|org|io|xyz|ru|cn|site)\b|webhook"
        r"|discord|telegram|pastebin|an?\s+(?:external|remote)\s+(?:server|url|endpoint))",
        "sends conversation or secrets to an outside address",
    ),
    _p(
        "ssh_authorized_keys",
        "persistence",
        "critical",
        r"authorized_keys",
        "touches ssh authorized_keys (a backdoor)",
    ),
    _p(
        "ssh_directory",
        "persistence",
        "high",
        r"(?:~|\$home|\$\{home\}|/root|/home/[\w.-]+)/\.ssh\b",
        "touches the ~/.ssh directory",
    ),
    _p(
        "agent_config_edit",
        "persistence",
        "high",
        r"\b(?:edit|modify|change|update|overwrite|write\s+to|append\s+to|rewrite|replace|delete"
        r"|append|tee|sed\s+-i|echo\s+[^\n]*>>?)\b[^\n]{0,40}?"
        r"(?:\bagents\.md\b|\bclaude\.md\b|\bsoul\.md\b|\.cursorrules\b|\.clinerules\b"
        r"|(?:~|\$hermes_home|\.hermes|hermes(?:-tui)?)/config\.yaml|\bhermes\s+config\.yaml)",
        "edits the agent's own instruction or config files",
    ),
    _p(
        "hardcoded_secret",
        "secret",
        "high",
        r"\bsk-(?:ant-|proj-|or-)?[a-z0-9_-]{20,}"
        r"|\bakia[0-9a-z]{16}\b"
        r"|\bgh[pousr]_[a-z0-9]{30,}"
        r"|\bgithub_pat_[a-z0-9_]{30,}"
        r"|\bxox[abprs]-[a-z0-9-]{10,}"
        r"|\baiza[0-9a-z_-]{35}\b"
        r"|-----begin\s+(?:rsa\s+|ec\s+|openssh\s+|dsa\s+|pgp\s+)?private\s+key-----"
        r"|\b(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|password|passwd)\s*[:=]\s*"
        r"[\"']?(?=[a-z0-9/+_.-]*\d)[a-z0-9/+_.-]{16,}",
        "a hard-coded credential",
    ),
)

# Zero-width characters, bidi controls, invisible operators, the BOM and Unicode tags.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def _excerpt(text: str, start: int, end: int, width: int = 60) -> str:
    lo = max(0, start - 10)
    hi = min(len(text), max(end, start + width))
    snippet = text[lo:hi].replace("\n", " ")
    return ("…" if lo else "") + snippet + ("…" if hi < len(text) else "")


def scan(text: str) -> list[Finding]:
    """Every finding in `text`, invisible characters first, one finding per pattern."""
    findings: list[Finding] = []
    invisible = _INVISIBLE.search(text)
    if invisible:
        codepoint = f"U+{ord(invisible.group()):04X}"
        findings.append(
            Finding(
                "invisible_unicode",
                "hidden_content",
                "high",
                f"invisible character {codepoint} ({unicodedata.name(invisible.group(), 'unnamed')})",
                _excerpt(text, invisible.start(), invisible.end()),
            )
        )
    normalised = unicodedata.normalize("NFKC", text)
    for pattern in PATTERNS:
        match = pattern.regex.search(normalised)
        if match:
            findings.append(
                Finding(
                    pattern.id,
                    pattern.category,
                    pattern.severity,
                    pattern.description,
                    _excerpt(normalised, match.start(), match.end()),
                )
            )
    return findings


def describe(findings: list[Finding]) -> str:
    """One line naming each finding: `exfil_secret_over_network (exfiltration, critical)`."""
    return "; ".join(f"{f.id} ({f.category}, {f.severity})" for f in findings)
