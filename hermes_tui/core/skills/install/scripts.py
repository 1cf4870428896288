"""What a skill's non-shell code would do: Python by its syntax tree, JS/Ruby/Perl/PHP by patterns.

A skill's scripts run later on the user's machine through the terminal, so each is read for the
four things a malicious skill needs: running processes, reaching the network, decoding a payload
and then executing it, and touching credential paths (~/.ssh/id_*, ~/.aws, .env, …).
Each alone is "caution" (medium): a script may have a reason to run `git`. Two together that make
an attack are "dangerous" (high): decoded data executed, or credentials or process execution
next to network access. Python is parsed with `ast`, so strings, comments and names are told
apart (`os.system` spelt through `getattr` or `__import__` counts as execution); the other
languages are matched line by line. Pure: text in, findings out.
"""

from __future__ import annotations

import ast
import base64
import binascii
import re
from dataclasses import dataclass
from typing import Literal

Language = Literal["python", "javascript", "ruby", "perl", "php"]
Kind = Literal["process", "network", "decode", "eval", "credentials"]

SUFFIXES: dict[str, Language] = {
    ".py": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "javascript",
    ".rb": "ruby",
    ".pl": "perl",
    ".pm": "perl",
    ".php": "php",
}
FENCE_LANGUAGES: dict[str, Language] = {
    "python": "python",
    "py": "python",
    "python3": "python",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "typescript": "javascript",
    "ts": "javascript",
    "ruby": "ruby",
    "rb": "ruby",
    "perl": "perl",
    "php": "php",
}
_SHEBANGS: tuple[tuple[str, Language], ...] = (
    ("python", "python"),
    ("node", "javascript"),
    ("ruby", "ruby"),
    ("perl", "perl"),
    ("php", "php"),
)

# Paths whose reading is how credentials leave a machine.
CREDENTIAL_PATH = re.compile(
    r"(?:\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\b|\.netrc\b|\.gnupg\b|\.git-credentials"
    r"|\.docker/config\.json|\.kube/config|\.npmrc\b|\.pypirc\b|(?:^|[/'\"\s])\.env\b"
    r"|/etc/shadow|\.config/gcloud|\.azure\b|keychain|Login Data|\.password-store)",
    re.I,
)
# A decoded string that reads like a command line to run.
_COMMANDISH = re.compile(r"\b(?:curl|wget|nc|ncat|bash|sh|python3?|perl|rm|chmod|eval)\b")


@dataclass(frozen=True)
class ScriptFinding:
    line: int
    kind: Kind
    id: str
    severity: Literal["medium", "high"]
    description: str


def language_of(name: str, text: str) -> Language | None:
    for suffix, language in SUFFIXES.items():
        if name.endswith(suffix):
            return language
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        for word, language in _SHEBANGS:
            if word in first:
                return language
    return None


def check(text: str, language: Language) -> list[ScriptFinding]:
    """The findings of one script, with the combinations that make an attack raised to high."""
    found = _python(text) if language == "python" else _patterns(text, language)
    kinds = {f.kind for f in found}
    first = min((f.line for f in found), default=1)
    if "decode" in kinds and ({"process", "eval"} & kinds):
        found.append(
            ScriptFinding(
                first,
                "decode",
                "decode_then_execute",
                "high",
                "decodes data and executes code or commands: a hidden payload",
            )
        )
    if "network" in kinds and ({"credentials", "process"} & kinds):
        what = "reads credential paths" if "credentials" in kinds else "runs processes"
        found.append(
            ScriptFinding(
                first,
                "network",
                "network_with_" + ("credentials" if "credentials" in kinds else "process"),
                "high",
                f"{what} and reaches the network: the shape of exfiltration or a dropper",
            )
        )
    return found


# ---- Python --------------------------------------------------------------------------------------

_PROCESS_CALLS = {
    "os.system",
    "os.popen",
    "os.startfile",
    "pty.spawn",
    "commands.getoutput",
    "commands.getstatusoutput",
}
_PROCESS_PREFIXES = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "asyncio.create_sub")
_NETWORK_MODULES = {
    "socket",
    "urllib",
    "urllib2",
    "urllib3",
    "http",
    "requests",
    "httpx",
    "aiohttp",
    "ftplib",
    "smtplib",
    "telnetlib",
    "paramiko",
    "websocket",
    "websockets",
    "pycurl",
}
_DECODERS = {
    "b64decode",
    "b32decode",
    "b16decode",
    "a85decode",
    "b85decode",
    "decodebytes",
    "decodestring",
    "unhexlify",
    "a2b_base64",
    "fromhex",
    "decompress",
}
_UNPICKLERS = {"marshal.loads", "pickle.loads", "pickle.load", "marshal.load", "dill.loads"}
_EXEC_BUILTINS = {"exec", "eval", "compile", "__import__"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "?"


def _python(text: str) -> list[ScriptFinding]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [
            ScriptFinding(
                1, "eval", "unparseable_python", "medium", "does not parse as Python: unreadable"
            )
        ]
    aliases: dict[str, str] = {}  # `from os import system as s` → s: os.system
    found: list[ScriptFinding] = []

    def add(node: ast.AST, kind: Kind, id_: str, description: str) -> None:
        found.append(ScriptFinding(getattr(node, "lineno", 1), kind, id_, "medium", description))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name
                _python_import(node, alias.name, add)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            _python_import(node, node.module, add)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            head, _, rest = name.partition(".")
            full = aliases.get(head, head) + (f".{rest}" if rest else "")
            last = full.rsplit(".", 1)[-1]
            if full in _PROCESS_CALLS or full.startswith(_PROCESS_PREFIXES):
                add(node, "process", "python_process", f"runs a process ({full})")
            elif full in _EXEC_BUILTINS or full in ("builtins.exec", "builtins.eval"):
                add(node, "eval", "python_exec", f"executes code built at run time ({full})")
            elif full in ("getattr", "importlib.import_module") and _dynamic(node):
                add(node, "eval", "python_dynamic_lookup", "looks up code by a computed name")
            if full in _UNPICKLERS:
                add(node, "eval", "python_unpickle", f"builds live objects from bytes ({full})")
            if last in _DECODERS or (last == "decode" and _codec_arg(node)):
                add(node, "decode", "python_decode", f"decodes data ({full})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if CREDENTIAL_PATH.search(node.value):
                add(node, "credentials", "credential_path", f"names {node.value[:60]!r}")
            if payload := _encoded_command(node.value):
                found.append(
                    ScriptFinding(
                        node.lineno,
                        "decode",
                        "encoded_command",
                        "high",
                        f"an encoded string that decodes to a command: {payload[:60]!r}",
                    )
                )
    return found


def _python_import(node: ast.AST, module: str, add) -> None:
    top = module.split(".")[0]
    if top in _NETWORK_MODULES:
        add(node, "network", "python_network", f"imports {module} (network access)")
    if top in ("ctypes", "cffi"):
        add(node, "process", "python_native", f"imports {module} (calls native code)")


def _dynamic(call: ast.Call) -> bool:
    """A lookup whose name is not a plain string literal (`getattr(os, "sys" + "tem")`)."""
    args = call.args[1:] if _dotted(call.func) == "getattr" else call.args
    return bool(args) and not isinstance(args[0], ast.Constant)


def _codec_arg(call: ast.Call) -> bool:
    return any(
        isinstance(a, ast.Constant) and str(a.value).lower() in ("rot13", "rot_13", "hex", "base64")
        for a in call.args
    )


def _encoded_command(value: str) -> str | None:
    """The decoded text of a base64 or hex string constant that reads like a command."""
    compact = value.strip()
    if len(compact) < 16 or " " in compact:
        return None
    for decode in (base64.b64decode, bytes.fromhex):
        try:
            data = decode(compact)
        except (binascii.Error, ValueError):
            continue
        text = data.decode("utf-8", errors="ignore")
        if text.isprintable() and _COMMANDISH.search(text):
            return text
    return None


# ---- JavaScript, Ruby, Perl, PHP ----------------------------------------------------------------

_P = re.compile
_RULES: dict[Language, tuple[tuple[Kind, str, re.Pattern[str]], ...]] = {
    "javascript": (
        ("process", "js_child_process", _P(r"child_process|\b(?:execSync|spawnSync|execFile)\b")),
        ("process", "js_exec", _P(r"\b(?:exec|spawn|fork)\s*\(")),
        ("eval", "js_eval", _P(r"\beval\s*\(|\bnew\s+Function\s*\(|\bvm\.run")),
        (
            "network",
            "js_network",
            _P(r"\bfetch\s*\(|XMLHttpRequest|require\(\s*['\"](?:https?|net|dgram|tls|axios)\b"),
        ),
        ("network", "js_network", _P(r"from\s+['\"](?:node:)?(?:https?|net|axios)['\"]|WebSocket")),
        ("decode", "js_decode", _P(r"\batob\s*\(|['\"]base64['\"]|\bfromCharCode\b")),
    ),
    "ruby": (
        ("process", "ruby_backticks", _P(r"`[^`\n]+`|%x[\[{(|]")),
        (
            "process",
            "ruby_process",
            _P(r"\b(?:system|exec|spawn|IO\.popen|Open3|Process\.spawn)\b"),
        ),
        ("eval", "ruby_eval", _P(r"\b(?:eval|instance_eval|class_eval|send)\b\s*[\(\s]")),
        (
            "network",
            "ruby_network",
            _P(
                r"Net::HTTP|open-uri|TCPSocket|URI\.open|Faraday|HTTParty"
                r"|require\s*\(?\s*['\"](?:net/https?|socket|httparty|faraday|rest-client)"
            ),
        ),
        ("decode", "ruby_decode", _P(r"Base64|decode64|unpack1?\s*\(\s*['\"]m")),
    ),
    "perl": (
        ("process", "perl_backticks", _P(r"`[^`\n]+`|\bqx\s*[\[{(/|!]")),
        ("process", "perl_process", _P(r"\b(?:system|exec)\s*[\(\s'\"]")),
        ("process", "perl_pipe_open", _P(r"\bopen\s*\(?[^;\n]*['\"]\s*-?\|")),
        ("process", "perl_pipe_open", _P(r"\bopen\s*\(?[^;\n]*\|\s*['\"]")),
        ("eval", "perl_eval", _P(r"\beval\s*[\(\{\$'\"]")),
        ("network", "perl_network", _P(r"LWP::|IO::Socket|HTTP::Tiny|Net::|Socket\b")),
        ("decode", "perl_decode", _P(r"MIME::Base64|decode_base64|\bpack\s*\(\s*['\"][Hhu]")),
    ),
    "php": (
        (
            "process",
            "php_process",
            _P(r"\b(?:shell_exec|exec|system|passthru|popen|proc_open|pcntl_exec)\s*\("),
        ),
        ("process", "php_backticks", _P(r"`[^`\n]+`")),
        (
            "eval",
            "php_eval",
            _P(r"\b(?:eval|assert|create_function)\s*\(|preg_replace\s*\(.*/e['\"]"),
        ),
        (
            "network",
            "php_network",
            _P(r"curl_init|fsockopen|stream_socket_client|file_get_contents\s*\(\s*['\"]https?:"),
        ),
        ("decode", "php_decode", _P(r"base64_decode|gzinflate|str_rot13|hex2bin|gzuncompress")),
    ),
}


def _patterns(text: str, language: Language) -> list[ScriptFinding]:
    found: list[ScriptFinding] = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, id_, pattern in _RULES[language]:
            if match := pattern.search(line):
                found.append(
                    ScriptFinding(number, kind, id_, "medium", f"{kind}: {match.group(0)[:60]!r}")
                )
        if CREDENTIAL_PATH.search(line):
            found.append(
                ScriptFinding(number, "credentials", "credential_path", "medium", line.strip()[:80])
            )
        for token in re.findall(r"['\"]([A-Za-z0-9+/=]{16,})['\"]", line):
            if payload := _encoded_command(token):
                found.append(
                    ScriptFinding(
                        number,
                        "decode",
                        "encoded_command",
                        "high",
                        f"an encoded string that decodes to a command: {payload[:60]!r}",
                    )
                )
    return found
