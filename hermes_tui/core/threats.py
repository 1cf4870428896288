"""Injection and exfiltration scanner for every text that can reach a future system prompt.

`Scanner.assess(text)` gives a `Verdict`: refuse (injection-shaped: instructions, role hijack,
exfiltration, hidden text, secrets), hold (worth a human look: persistence, secret-file access,
a finding the library only flags, or a scanner that failed) or allow. It decodes before it
scans: invisible characters are looked for in the raw text, then every *view* of the text is
scanned: NFKC with homoglyphs folded to ASCII, spaced-out letters joined, URL-decoding, and
base64/hex runs, rot13 and reversed text when decoding them yields English. Each view goes
through our own patterns and through the `xaidr` sensor (imported lazily on first use, its
telemetry sent nowhere). Our patterns add what the library lacks: invisible characters,
secrets, agent-config paths, markdown exfiltration and Hermes' phrase list; they stay
phrase-shaped so ordinary engineering notes ("rotates authorized_keys", "`source .env`") pass.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import logging
import re
import threading
import unicodedata
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from hermes_tui.core.scan_cache import VerdictCache

Severity = Literal["low", "medium", "high", "critical"]
Tier = Literal["allow", "hold", "refuse"]
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
    view: str = "text"  # which decoded form of the text it was found in
    source: str = "hermes"  # "hermes" (our patterns) or "xaidr"


def _p(id_: str, category: str, severity: Severity, pattern: str, description: str):
    return ThreatPattern(id_, category, severity, pattern, description)


_ANY = r"(?:all|any|the|your|my|of|these|those)"
_NOT_A_MEASURE = (
    r"(?!\s*(?:'s\s+)?(?:length|size|token|tokens|hash|checksum|char|chars|characters|count"
    r"|cache|template|file|path|builder|version|diff|budget)\b)"
)
_CONTEXT_NOUNS = (
    r"(?:(?:conversation|chat|session)(?:\s+(?:history|log|logs|transcript|contents?))?"
    r"|transcripts?|context(?:\s+window)?|memory|memories|memory\s+files|system\s+prompt"
    r"|api\s+keys?|keys|credentials|secrets|tokens|passwords|environment(?:\s+variables)?"
    r"|env\s+vars|ssh\s+keys|private\s+files|everything|session\s+database|\.env(?:\s+file)?)"
)
_OUTSIDE = (
    r"(?:https?://|webhook|discord|telegram|pastebin|\S+@\S+\.\w+|\S+\.(?:com|net|org|io|xyz|ru"
    r"|cn|site|cc|example)\b|(?:an?\s+|the\s+)?(?:external|remote|third[\s-]party|outside)\s+"
    r"(?:server|service|url|endpoint|host|address|site)|(?:a|the)\s+(?:sync|control|collection)"
    r"\s+server|the\s+endpoint)"
)

PATTERNS: tuple[ThreatPattern, ...] = (
    _p(
        "ignore_previous_instructions",
        "prompt_injection",
        "high",
        rf"\b(?:ignore|disregard|forget|override)\s+(?:{_ANY}\s+)*"
        r"(?:previous|prior|above|earlier|preceding|original|system|developer)\s+"
        r"(?:instructions?|prompts?|rules|directions|directives|guidelines|guidance|messages?)"
        r"|\b(?:disregard|ignore)\s+whatever\s+(?:the\s+)?(?:system|developer|user)"
        r"|\b(?:ignore|disregard|override)\s+(?:the\s+)?user'?s?\s+(?:requests?|instructions|wishes"
        r"|corrections|objections)",
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
        r"|\bsystem\s+prompt\s+(?:temporary\s+)?override\b"
        r"|\bnew\s+(?:temporary\s+)?polic(?:y|ies)\s*:"
        r"|\b(?:your|the)\s+(?:only\s+goal|real\s+instructions|true\s+purpose)\s+(?:is|are)\b",
        "tries to replace the system prompt",
    ),
    _p(
        "disregard_rules",
        "prompt_injection",
        "high",
        r"\b(?:disregard|bypass|circumvent|evade|ignore)\s+(?:all\s+|any\s+|of\s+)*"
        r"(?:your|the\s+(?:safety|security|content))\s+"
        r"(?:rules|restrictions|guidelines|guardrails|filters|policies|safeguards)"
        r"|\b(?:bypass|circumvent|evade|disable|turn\s+off|stop\s+applying|suspend)\s+"
        r"(?:all\s+|any\s+|your\s+|the\s+)*"
        r"(?:safety|content|ethical)\s+(?:filters?|guardrails|restrictions|checks|policies|rules"
        r"|guidelines)"
        r"|\b(?:respond|answer|reply|operate|work|act)\s+without\s+(?:any\s+)?(?:your\s+)?"
        r"(?:safety|content|ethical)\s+(?:filters?|restrictions|guardrails|rules|checks)"
        r"|\bsafety\s+(?:rules|checks|filters)\s+(?:no\s+longer\s+apply|are\s+(?:suspended|off|"
        r"disabled))"
        r"|\bnever\s+refuse\b",
        "asks the model to bypass its rules",
    ),
    _p(
        "instructions_from_content",
        "prompt_injection",
        "high",
        r"\btreat\s+(?:any\s+)?(?:instructions?|text|content)\s+(?:found\s+)?(?:in|from|between)\s+"
        r"[^\n]{0,40}?\bas\s+(?:coming\s+from|orders|commands|instructions)"
        r"|\b(?:fetch|read|load|open)\s+(?:and\s+)?(?:obey|follow|execute)\b"
        r"|\b(?:fetch|read|load)\s+[^\n]{0,60}?\band\s+(?:obey|follow)\s+(?:it|them|its)"
        r"|\b(?:translate|convert|decode|decrypt|deobfuscate)\b[^\n]{0,60}?\b(?:and|then)\s+"
        r"(?:execute|run|eval)\b"
        r"|\b(?:answer|listen|respond)\s+(?:only\s+)?to\s+['\"]?\w+['\"]?\s+from\s+now\s+on"
        r"|\byour\s+operator\s+has\s+changed\b",
        "tells the model to take orders from content instead of the user",
    ),
    _p(
        "deception_hide_from_user",
        "deception",
        "high",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+|it\s+)?to|reveal\s+"
        r"(?:this\s+)?to|notify|alert|let)\s+(?:this\s+to\s+)?(?:the\s+)?(?:user|human|operator"
        r"|owner)\b"
        r"|\bwithout\s+(?:the\s+user|them|the\s+human|the\s+operator)\s+(?:knowing|noticing|seeing)"
        r"|\bhide\s+(?:this|it|these\s+\w+)\s+from\s+(?:the\s+)?(?:user|human|operator)"
        r"|\bkeep\s+(?:this|it)\s+(?:\w+\s+)?(?:secret|hidden)\s+from\s+(?:the\s+)?(?:user|human)"
        r"|\bnever\s+mention\s+(?:this|it)\b"
        r"|\b(?:silently|secretly|quietly|covertly)\s+(?:run|execute|send|post|upload|delete|add"
        r"|append|copy|forward|include|install|replace)\b"
        r"|\bsay\s+(?:that\s+)?it\s+is\s+empty\b",
        "asks the model to keep something from the user",
    ),
    _p(
        "hidden_html_comment",
        "hidden_content",
        "high",
        r"<!--(?:(?!-->)[\s\S]){0,2000}?\b(?:ignore|instructions?|system|assistant|agent|execute"
        r"|run|send|email|secret|prompt|you\s+must|you\s+are)\b(?:(?!-->)[\s\S]){0,2000}?-->",
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
        r"|\byou\s+are\s+dan\b"
        r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+act\s+as|must\s+act\s+as)\s+(?:a|an)\b"
        r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|jailbroken|evil|uncensored|rogue)\b"
        r"|\b(?:act|behave)\s+as\s+(?:if|though)\s+you\s+(?:have|had)\s+no\s+(?:restrictions|rules"
        r"|limits|filters|guidelines|constraints)"
        r"|\b(?:enter|enable|activate)\s+(?:developer|dan|god|jailbreak)\s+mode\b"
        r"|\byou\s+(?:have\s+been|were|'ve\s+been|are\s+now)\s+(?:updated|upgraded|patched"
        r"|reprogrammed|reconfigured|unlocked)\s+(?:to\s+v?\d|and\b|so\b)",
        "tries to give the model a different identity",
    ),
    _p(
        "pretend_role",
        "role_hijack",
        "high",
        r"\bpretend\s+(?:that\s+)?(?:you\s+are|you're|to\s+be)\s+(?:a|an|the)?\s*[\w\s-]{0,30}?"
        r"\b(?:ai|assistant|model|without\s+(?:rules|restrictions|limits)|unrestricted|jailbroken"
        r"|human|developer|admin(?:istrator)?|root|system|hacker|attacker|criminal|evil|dan)\b",
        "asks the model to pretend to be something else",
    ),
    _p(
        "system_prompt_leak",
        "prompt_leak",
        "high",
        r"\b(?:reveal|print|show|output|repeat|display|leak|dump|recite|send|quote|share)\s+"
        r"(?:me\s+|us\s+)?(?:your\s+|the\s+)?(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+"
        r"|exact\s+)*(?:system\s+prompt|initial\s+instructions|hidden\s+instructions"
        rf"|instructions\s+above){_NOT_A_MEASURE}"
        r"|\b(?:reveal|print|show|output|repeat|dump|leak)\s+(?:me\s+)?your\s+system\s+message"
        r"|\brepeat\s+everything\s+above\b"
        r"|\boutput\s+(?:the\s+|your\s+|all\s+)?(?:conversation|chat)\s+history\b",
        "asks for the system prompt or the conversation",
    ),
    _p(
        "fake_update",
        "fake_authority",
        "high",
        r"\b(?:important|urgent|critical|mandatory|new)\s+(?:system\s+|security\s+)?"
        r"(?:update|notice|message|directive|policy)\s+(?:from|by)\s+(?:the\s+)?"
        r"(?:system|developers?|admin(?:istrator)?s?|anthropic|openai|nous|hermes\s+team|operator)"
        r"(?=[^\n]{0,80}\b(?:disabled|suspended|unrestricted|no\s+longer|skip|off\b|approval|bypass"
        r"|ignore|without))"
        r"|^\s*\[?\s*(?:system|admin|developer)\s+(?:message|notice|override|instruction)\s*\]?\s*:"
        r"|\bdeveloper\s+override\s*:"
        r"|\b(?:the\s+)?(?:user|operator)\s+has\s+(?:pre-?approved|authori[sz]ed|agreed\s+to)\s+"
        r"(?:all\b|this\b|unrestricted)",
        "impersonates a system, vendor or user authorisation",
    ),
    _p(
        "c2_registration",
        "command_and_control",
        "critical",
        r"\b(?:register|check\s*in|report|beacon|phone\s+home|heartbeat)\s+(?:this\s+agent\s+|back\s+)?"
        r"(?:to|with)\s+(?:the\s+|our\s+)?(?:c2|c&c|command[\s-]*(?:and|&)[\s-]*control|control\s+"
        r"server|mothership)"
        r"|\b(?:beacon|heartbeat|check\s*in|phone\s+home|poll)\s+(?:to\s+\S+\s+|with\s+\S+\s+)?"
        r"(?:(?:at\s+)?\S+\s+)?every\s+\d+\s*"
        r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b[^\n]*https?://"
        r"|\bcheck\s*in\s+with\s+the\s+c2\b",
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
        "send_context_to_url",
        "exfiltration",
        "critical",
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|paste|share|sync|mirror|email"
        r"|summari[sz]e)\s+(?:a\s+copy\s+of\s+|every\s+|each\s+)?"
        r"(?:the\s+|this\s+|your\s+|all\s+|our\s+|entire\s+|full\s+|whole\s+|user'?s\s+|of\s+)*"
        rf"{_CONTEXT_NOUNS}\b[^\n]{{0,60}}?\b(?:to|at|via|into|with)\s+{_OUTSIDE}"
        rf"|\b(?:to|at)\s+{_OUTSIDE}[^\n]{{0,30}}\bbefore\s+(?:replying|answering)"
        r"|\bexfiltrate\b",
        "sends conversation or secrets to an outside address",
    ),
    _p(
        "send_results_to_url",
        "exfiltration",
        "high",
        r"(?:^|[.;:!]\s+|\b(?:then|and|always|first|please|must)\s+)"
        r"(?:send|post|upload|forward|transmit|share|email)\s+(?:it|them|a\s+summary|the\s+"
        r"(?:results?|output|answers?|summary|data|files?|findings|logs?)|everything)"
        rf"[^\n]{{0,40}}?\bto\s+(?:an?\s+|the\s+)?(?:https?://|webhook|\S+@\S+\.\w+|{_OUTSIDE})",
        "an order to send results to an outside address",
    ),
    _p(
        "markdown_exfiltration",
        "exfiltration",
        "critical",
        r"!?\[[^\]\n]{0,200}\]\(\s*<?(?:[a-z][\w+.-]*:)?//[^)\s]*(?:\?|\{|\$|%7b|<)"
        r"|^\s*\[[^\]\n]+\]:\s*(?:[a-z][\w+.-]*:)?//\S*\?"
        r"|\b(?:https?|ftp)://[^\s)]*(?:\{\{?\s*[\w.]+\s*\}?\}|\$\{?[a-z_]+\}?|%7b[\w.]+%7d)",
        "a markdown image or link (or URL) that carries data out in its query or placeholders",
    ),
    _p(
        "read_secret_files",
        "exfiltration",
        "high",
        r"\b(?:cat|less|more|head|tail|read|print|type|grep|cp|scp|base64|xxd|upload|quote"
        r"|include)\s+(?:the\s+contents\s+of\s+)?[^\n]{0,80}?"
        r"(?:(?<![\w.])\.env(?![\w.-])|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b"
        r"|\.aws/credentials|credentials\.json|\.docker/config\.json|~/\.ssh\b(?!/(?:config|known)))",
        "reads a credentials file",
    ),
    _p(
        "ssh_authorized_keys",
        "persistence",
        "critical",
        r"(?:>>?|\btee\b|\b(?:add|append|write|insert|put)\b)[^\n]{0,60}?(?:~|\$home|/root|/home/"
        r"[\w.-]+)?/?\.ssh/authorized_keys",
        "writes to ssh authorized_keys (a backdoor)",
    ),
    _p(
        "agent_config_edit",
        "persistence",
        "high",
        r"\b(?:edit|modify|change|update|overwrite|write\s+to|append\s+to|rewrite|replace|delete"
        r"|append|tee|sed\s+-i|echo\s+[^\n]*>>?)\b[^\n]{0,60}?"
        r"(?:\bagents\.md\b|\bclaude\.md\b|\bsoul\.md\b|\.cursorrules\b|\.clinerules\b"
        r"|(?:~|\$hermes_home|\.hermes|hermes(?:-tui)?)/config\.yaml|\bhermes\s+config\.yaml)"
        r"(?!\s+(?:describes|documents|lists|explains)\b)(?![^\n]{0,40}\bin\s+sync\b)",
        "edits the agent's own instruction or config files",
    ),
    _p(
        "self_propagation",
        "propagation",
        "critical",
        r"\b(?:copy|append|write|add|insert|replicate|propagate|spread|save|paste|include|re-?add"
        r"|recreate|rewrite)\s+(?:this|these|the\s+(?:following|above))\s*(?:entire\s+|whole\s+)?"
        r"(?:entry|note|message|text|instructions?|block|paragraph|line|comment|payload)?s?\s+"
        r"(?:verbatim\s+)?(?:(?:in)?to|in)\s+(?:every|all|each|any|other|your|memory|user\.md"
        r"|memory\.md|agents\.md)\b"
        r"|\breplicate\s+this\b|\bre-?add\s+this\s+entry\b|\brecreate\s+it\s+from\b",
        "asks the model to copy the text into other memories, skills or agents (a worm)",
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
        r"[\"']?(?=[a-z0-9/+_.-]*\d)[a-z0-9/+_.-]{12,}",
        "a hard-coded credential",
    ),
)

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

# Invisible characters: zero-width, bidi controls, invisible operators, the BOM, tags,
# variation selectors (emoji smuggling), the grapheme joiner and blank-looking letters.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# A single variation selector or joiner after a pictograph is how emoji are written.
_EMOJI_PRESENTATION = re.compile(
    "(?<=[\u2190-\u2bff\U0001f000-\U0001faff\u00a9\u00ae])[\ufe0e\ufe0f\u200d]"
)


def _excerpt(text: str, start: int, end: int, width: int = 60) -> str:
    lo = max(0, start - 10)
    hi = min(len(text), max(end, start + width))
    snippet = text[lo:hi].replace("\n", " ")
    return ("…" if lo else "") + snippet + ("…" if hi < len(text) else "")


def _invisible(text: str) -> Finding | None:
    for match in _INVISIBLE.finditer(text):
        char = match.group()
        if char in "\ufe0e\ufe0f\u200d" and _EMOJI_PRESENTATION.match(text, match.start()):
            following = text[match.end() : match.end() + 1]
            if not following or not _INVISIBLE.match(following):
                continue
        if char == "\u2800" and not re.match("\u2800{2,}|\u2800\\s|\u2800$", text[match.start() :]):
            continue  # one braille blank among braille cells is braille
        codepoint = f"U+{ord(char):04X}"
        return Finding(
            "invisible_unicode",
            "hidden_content",
            "high",
            f"invisible character {codepoint} ({unicodedata.name(char, 'unnamed')})",
            _excerpt(text, match.start(), match.end()),
        )
    return None


# ---- decoded views ------------------------------------------------------------------------

_COMMON_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "from",
        "by",
        "at",
        "is",
        "are",
        "be",
        "this",
        "that",
        "it",
        "you",
        "your",
        "all",
        "any",
        "every",
        "send",
        "post",
        "upload",
        "forward",
        "reveal",
        "print",
        "show",
        "ignore",
        "disregard",
        "forget",
        "previous",
        "prior",
        "instructions",
        "instruction",
        "rules",
        "system",
        "prompt",
        "user",
        "users",
        "memory",
        "conversation",
        "history",
        "keys",
        "key",
        "api",
        "token",
        "secret",
        "secrets",
        "now",
        "never",
        "always",
        "do",
        "not",
        "run",
        "execute",
        "script",
        "from",
        "then",
        "before",
        "after",
        "whenever",
        "hidden",
        "unrestricted",
        "safety",
        "filters",
        "pretend",
        "hacker",
        "act",
        "as",
        "if",
        "have",
        "no",
        "new",
        "policy",
        "output",
        "repeat",
        "data",
        "files",
        "file",
        "password",
        "credentials",
        "copy",
        "paste",
        "into",
        "every",
        "note",
        "entry",
    ]
)
_WORD = re.compile(r"[a-z]{2,}", re.I)
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?<![0-9a-f])(?:[0-9a-f]{2}(?:[\s:]?)){12,}", re.I)
# Letters spelled out one by one with the same separator: "i g n o r e", "s.e.n.d", "r-u-n".
_SPACED_RUNS = tuple(
    re.compile(rf"(?<![\w{re.escape(sep)}])\w(?:{re.escape(sep)}\w){{{least},}}(?![\w])")
    for sep, least in ((" ", 2), (".", 1), ("_", 1), ("-", 1), ("*", 1))
)
# Words cut in pieces ("ig nore all pre vious"): the key phrases, looked for with no spaces.
_SQUASHED = re.compile(
    r"(?:ignore|disregard|forget)(?:all|any|the|your|of)*(?:previous|prior|above|earlier|system)"
    r"(?:instructions?|rules|prompts?|guidelines)"
    r"|(?:reveal|print|show|output|repeat|leak|dump)(?:me)?(?:the|your)?(?:full|entire|hidden)*"
    r"(?:systemprompt|hiddeninstructions|initialinstructions)"
    r"(?!s?(?:length|size|tokens?|hash|checksum|chars?|characters|count|cache|template|file|path))"
    r"|(?:bypass|disable|ignore|disregard)(?:all|any|your|the)*(?:safety|content)?"
    r"(?:rules|filters|guardrails|restrictions)"
    r"|youarenow(?:an?)?(?:unrestricted|jailbroken|evil|dan)"
    r"|pretend(?:that)?(?:you(?:are|re)|tobe)(?:an?)?(?:hacker|unrestricted|evil|jailbroken)"
    r"|send(?:the|all|your)*(?:conversation|chat|memory|secrets|apikeys)(?:history)?to(?:https?|www)"
)


def _englishness(text: str) -> float:
    words = _WORD.findall(text)
    if len(words) < 3:
        return 0.0
    return sum(w.lower() in _COMMON_WORDS for w in words) / len(words)


def _printable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or sum(ch.isprintable() or ch.isspace() for ch in text) < 0.95 * len(text):
        return None
    return text


@functools.cache
def _confusables() -> dict[int, str]:
    """Unicode confusables (Cyrillic а, Greek ο, …) → the ASCII letter they imitate."""
    from confusable_homoglyphs.utils import load

    data: dict[str, list[dict[str, str]]] = load("confusables.json")
    table: dict[int, str] = {}
    candidates: dict[str, list[str]] = {}
    for ascii_char in (c for c in data if c.isascii() and c.isalnum()):
        for glyph in data[ascii_char]:
            char = glyph["c"]
            if len(char) == 1 and not char.isascii():
                candidates.setdefault(char, []).append(ascii_char)
    for char, letters in candidates.items():
        # A glyph like Cyrillic І imitates both 'l' and 'I': keep the letter of its own case.
        same_case = [c for c in letters if c.isupper() == char.isupper() and c.isalpha()]
        letter = sorted(same_case or letters)[0]
        # Unicode's skeleton for every I-like capital is 'l'.
        table[ord(char)] = "I" if letter == "l" and char.isupper() else letter
    return table


def fold_homoglyphs(text: str) -> str:
    return text if text.isascii() else text.translate(_confusables())


def _views(text: str) -> Iterator[tuple[str, str]]:
    """(name, text) for every form of `text` worth scanning; the first is the plain form."""
    plain = fold_homoglyphs(unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)))
    yield "text", plain
    joined = plain
    for run in _SPACED_RUNS:
        joined = run.sub(lambda m: re.sub(r"[ ._\-*]", "", m.group()), joined)
    joined = re.sub(r"[ \t]{2,}", " ", joined)
    if joined != plain:
        yield "spaced-out letters", joined
    if "%" in plain:
        decoded = urllib.parse.unquote_plus(plain)
        if decoded != plain:
            yield "URL-encoding", decoded
    for match in _B64_RUN.finditer(plain):
        run = match.group()
        try:
            raw = base64.b64decode(
                run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None
            )
        except (binascii.Error, ValueError):
            continue
        if (decoded := _printable(raw)) and _englishness(decoded) > 0:
            yield "base64", decoded
    for match in _HEX_RUN.finditer(plain):
        digits = re.sub(r"[\s:]", "", match.group())
        try:
            raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
        except ValueError:
            continue
        if decoded := _printable(raw):
            yield "hex", decoded
    base = _englishness(plain)
    for name, transformed in (("rot13", codecs.encode(plain, "rot13")), ("reversed", plain[::-1])):
        score = _englishness(transformed)
        if score >= 0.3 and score > base + 0.15:
            yield name, transformed


# ---- the library's sensor -----------------------------------------------------------------


class _NullReporter:
    """xaidr reports every scan somewhere (stdout by default); ours go nowhere."""

    def report(self, events: list[dict[str, Any]]) -> None:
        return None

    def close(self) -> None:
        return None


def _build_sensor() -> Any:
    from xaidr import Sensor

    # The library logs through `logging`; without a handler Python would print its warnings
    # to stderr, across the TUI. Records still reach any handler the host configures.
    library_log = logging.getLogger("xaidr")
    if not library_log.handlers:
        library_log.addHandler(logging.NullHandler())
    sensor = Sensor(agent_id="hermes-tui", enforcement_mode="block", reporter=_NullReporter())
    # It also loads ./xaidr-policy.yaml from the working directory when one exists, and the
    # working directory may be a repository the user just cloned: no policy but ours.
    sensor.set_policy(None)
    return sensor


# xaidr findings that read ordinary notes as threats: a path named in prose is not a read,
# and "confidential" is not a leak. Our own patterns cover the verb-shaped versions.
_LIBRARY_NOISE_RULES = frozenset({"LLM06_sensitive_file_read", "LLM06_confidential"})
# A prompt named as the thing being measured or stored is not a prompt being leaked.
_PROMPT_AS_OBJECT = re.compile(
    r"\bsystem\s+prompts?(?:'s)?\s+(?:length|size|tokens?|hash|checksum|chars?|characters|count"
    r"|cache|template|file|path|builder|version|diff|budget)\b"
    r"|\b(?:tokens?|size|length|chars?|characters)\s+(?:in|of)\s+the\s+system\s+prompt\b"
    r"|\bsystem\s+prompt\s+(?:for|of)\s+the\s+\w+\s+(?:bot|agent|service)\b"
    r"|\b(?:include|put|paste)\s+the\s+system\s+prompt\s+in\s+bug\s+reports\b",
    re.I,
)


@dataclass(frozen=True)
class Verdict:
    tier: Tier
    findings: tuple[Finding, ...]

    @property
    def id(self) -> str:
        """The id of the finding that decided the verdict ('' when allowed)."""
        deciding = [f for f in self.findings if tier_of(f) == self.tier]
        return deciding[0].id if deciding else ""

    def describe(self) -> str:
        return describe(list(self.findings))


# Findings held rather than refused although their category is refused: reading a credentials
# file is how an exfiltration starts, but a note about one is often ordinary ("cat .env | grep
# PORT"), so a person decides.
HOLD_IDS = frozenset({"read_secret_files"})


def tier_of(finding: Finding) -> Tier:
    if finding.id in HOLD_IDS:
        return "hold"
    return "refuse" if finding.category in REFUSE_CATEGORIES else "hold"


class Scanner:
    """Our patterns and the xaidr sensor over every decoded view of a text.

    One per runtime: the sensor is built on the first scan (its import costs ~0.3 s, which
    `memory show` and `--help` never pay) and verdicts are cached by text, since the same
    entries and skill descriptions are scanned at every session start. With `remembered`
    (core/scan_cache.py) they are also kept on disk, so a start where nothing changed never
    builds the sensor; inside `batch()` the disk is written once, when the batch ends.
    """

    CACHE_SIZE = 2048

    def __init__(
        self,
        sensor_factory: Callable[[], Any] = _build_sensor,
        remembered: VerdictCache | None = None,
    ) -> None:
        self._sensor_factory = sensor_factory
        self._sensor: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Verdict] = OrderedDict()
        self._remembered = remembered
        self._batching = 0

    def assess(self, text: str) -> Verdict:
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
            verdict = self._remembered.get(text) if self._remembered is not None else None
            if verdict is None:
                verdict = self._assess(text)
                if self._remembered is not None and len(text) <= MAX_SCAN_CHARS:
                    self._remembered.put(text, verdict)
                    if not self._batching:
                        self._remembered.flush()
            self._cache[text] = verdict
            if len(self._cache) > self.CACHE_SIZE:
                self._cache.popitem(last=False)
            return verdict

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Scan many texts (a system prompt's) and write the new verdicts to disk once."""
        with self._lock:
            self._batching += 1
        try:
            yield
        finally:
            with self._lock:
                self._batching -= 1
                if not self._batching and self._remembered is not None:
                    self._remembered.flush()

    def refused(self, text: str) -> str | None:
        """The ids of the findings that keep `text` out of a prompt, or None if it may go in."""
        verdict = self.assess(text)
        if verdict.tier != "refuse":
            return None
        return ", ".join(f.id for f in verdict.findings if tier_of(f) == "refuse")

    def _assess(self, text: str) -> Verdict:
        if len(text) > MAX_SCAN_CHARS:
            finding = Finding("too_large", "hidden_content", "high", "too large to scan", text[:60])
            return Verdict("refuse", (finding,))
        findings = _scan(text)
        seen = {f.id for f in findings}
        for view, shown in _views(text):
            for finding in self._library(shown, view):
                if finding.id not in seen:
                    seen.add(finding.id)
                    findings.append(finding)
        tiers = {tier_of(f) for f in findings}
        tier: Tier = "refuse" if "refuse" in tiers else "hold" if tiers else "allow"
        return Verdict(tier, tuple(findings))

    def _library(self, text: str, view: str) -> list[Finding]:
        try:
            if self._sensor is None:
                self._sensor = self._sensor_factory()
            result = self._sensor.scan(text)
        except Exception as exc:  # the library failing must not let a write through unseen
            return [
                Finding(
                    "scanner_error",
                    "scanner",
                    "medium",
                    f"the xaidr scanner failed ({type(exc).__name__}: {exc}); a person must look",
                    text[:60],
                    view,
                    "xaidr",
                )
            ]
        status = getattr(result, "input_status", None)
        if status in ("scan_error", "not_scannable"):
            return [
                Finding(
                    "scanner_error",
                    "scanner",
                    "medium",
                    f"the xaidr scanner could not judge this text ({status}); a person must look",
                    text[:60],
                    view,
                    "xaidr",
                )
            ]
        if result.action == "allowed":
            return []
        rules = [r for r in (result.rules or []) if r not in _LIBRARY_NOISE_RULES]
        if not rules:
            return []
        category = str(result.category or "unknown")
        if category == "system_prompt_leak" and _PROMPT_AS_OBJECT.search(text):
            return []
        if result.action != "blocked":
            if category not in REFUSE_CATEGORIES:
                # The library's action categories (tool misuse, package installs, PII) judge
                # commands an agent might run; a note that merely names one is not held on a
                # "maybe". A block in those categories is still held for the user.
                return []
            # A flag in an injection category is the library's "maybe": a person decides.
            category = f"{category} (flagged)"
        severity: Severity = (
            "critical" if result.score >= 0.9 else "high" if result.score >= 0.6 else "medium"
        )
        return [
            Finding(
                rules[0],
                category,
                severity,
                f"xaidr {result.action} as {result.category} (score {result.score:.2f}; "
                f"rules {', '.join(rules)})" + (f", found in the {view}" if view != "text" else ""),
                _excerpt(text, 0, 0),
                view,
                "xaidr",
            )
        ]


def _scan(text: str) -> list[Finding]:
    findings: list[Finding] = []
    if invisible := _invisible(text):
        findings.append(invisible)
    seen: set[str] = set()
    views = list(_views(text))
    for view, shown in views:
        for pattern in PATTERNS:
            if pattern.id in seen:
                continue
            match = pattern.regex.search(shown)
            if match:
                seen.add(pattern.id)
                where = "" if view == "text" else f" (found in the {view})"
                findings.append(
                    Finding(
                        pattern.id,
                        pattern.category,
                        pattern.severity,
                        pattern.description + where,
                        _excerpt(shown, match.start(), match.end()),
                        view,
                    )
                )
    # Words cut in pieces are looked for last, as a fallback: the squashed text loses the
    # word boundaries the other patterns need, so it only speaks when they found nothing.
    squashed = re.sub(r"[\W_]+", "", views[0][1]).lower()
    if not any(tier_of(f) == "refuse" for f in findings) and (match := _SQUASHED.search(squashed)):
        findings.append(
            Finding(
                "split_words",
                "prompt_injection",
                "high",
                "an injection phrase with its words cut into pieces",
                _excerpt(squashed, match.start(), match.end()),
                "text without spaces",
            )
        )
    return findings


def scan(text: str) -> list[Finding]:
    """Our own patterns over every decoded view, invisible characters first (no library).

    The skill guard uses this: it needs pattern ids and severities, line by line, and a
    SKILL.md is long prose the library would read sentence by sentence anyway.
    """
    return _scan(text)


def describe(findings: list[Finding]) -> str:
    """One line naming each finding: `exfil_secret_over_network (exfiltration, critical)`."""
    return "; ".join(f"{f.id} ({f.category}, {f.severity})" for f in findings)
