"""Which values are secrets, by their name or by their shape: one place for every source (the
environment, `<home>/.env`, config.yaml, MCP servers' env, headers, args and URLs, an ACP
editor's servers) and for the sandbox's scrub of the environment (core/tools/sandbox.py).

A name says secret when it holds KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
AUTH (not AUTHOR), COOKIE, SALT, DSN, WEBHOOK or SIGNATURE, PRIVATE or PEM as a word of its own
(not GOPRIVATE), or ends in _PAT, _SK, _PASS, _PWD, _PW or _SIG; SESSION and a trailing _SID only with a token-like value
(XDG_SESSION_TYPE=wayland is not one). A value holds a secret whatever its name when it carries a
credential: a URL's password or token user (`postgres://app:<pw>@db`, a Sentry DSN's key), a
query parameter under a secret name (`?apikey=…`), a webhook URL's token path
(hooks.slack.com/services/…), or a well-known key shape (`ghp_…`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from hermes_tui.core.redaction.forms import random_looking
from hermes_tui.core.redaction.shapes import SHAPES

# Shorter values ("1", "true", "dev") would redact ordinary words all over the output.
MIN_SECRET_LENGTH = 8
SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASSPHRASE|CREDENTIAL|AUTH(?!OR)|COOKIE|SALT|DSN|WEBHOOK"
    r"|SIGNATURE|(?:^|_)(?:PRIVATE|PEM)(?:_|$)|(?:PASS|PSW|PWD|PW)$|_(?:PAT|SK|SIG)$|^SIG$",
    re.I,
)
# Names that say nothing of their value though SECRET_NAME matches: the shell's working
# directories, git's `GIT_CONFIG_KEY_<n>` (a config key's name; its VALUE_<n> is judged by value).
_NOT_SECRET_NAME = re.compile(r"(?:OLD)?PWD|GIT_CONFIG_KEY_\d+", re.I)
# Values a secret-looking name may hold that are no secret: a switch, a number, a lower-case
# host name (AUTH0_DOMAIN), a URL carrying no credential (NEXTAUTH_URL=http://localhost:3000),
# a key binding (toggle_key: ctrl+shift+k).
_PLAIN = re.compile(
    r"(?i:true|false|yes|no|on|off|none|null|enabled?|disabled?)|\d{1,5}"
    r"|[a-z0-9\-]+(?:\.[a-z0-9\-]+)+(?::\d+)?"
    r"|(?i:(?:ctrl|control|alt|shift|meta|super|cmd|option)[+\-])+\w+"  # a key binding
)
# Names that hold a secret only when the value looks like a token (not a desktop's session name).
# A session's id (TERM_SESSION_ID, Windows Terminal's WT_SESSION: a UUID) names the session,
# not a way into it.
_WEAK_NAME = re.compile(r"SESSION(?!_?ID$)|_SID$", re.I)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_TOKEN_LIKE = re.compile(r"[A-Za-z0-9+/=_.\-]{16,}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")
_PAIR = re.compile(r"(?:^|[;\s]|-D)([A-Za-z][\w .\-]{0,60}?)\s*=\s*([^;\s]+)")
_PAIR_NAMES = frozenset({"PWD", "PW", "PASS", "UPW"})
# `password X` (netrc, a mysql option file's words), `"password": "X"` (JSON printed flat).
_WORD_PAIR = re.compile(
    r"\b(password|passwd|pwd|passphrase|secret|token)[\"']?\s*[:\s]\s*[\"']?([^\s\"',;}]+)",
    re.I,
)
# The authority up to the LAST `@` (SQLAlchemy reads it so: a password may hold `/`, `?`, `#`).
_USERINFO = re.compile(r"://([^\s:@/]*):([^\s@]+)@")
# `user:pw@host:5432/db` and Oracle's `scott/pw@host:1521/ORCL`, without a scheme.
# Not an image's digest (`python:3.11-slim@sha256:…`).
_BARE_USERINFO = re.compile(
    r"(?<![\w/:.@])[\w.\-]{1,64}[:/]([^\s@:/]{4,})@(?!sha\d+:)[A-Za-z0-9][\w.\-]*"
)
_PGP = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY[A-Z ]*-----")
_BASIC = re.compile(r"\bbasic\s+([A-Za-z0-9+/=_\-]{8,})", re.I)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_HEADER_ARG = re.compile(r"([A-Za-z][\w\-]{0,60}):\s*(\S.*)")
_HOOK_HOST = re.compile(
    r"hook", re.I
)  # hooks.slack.com, discord's /api/webhooks/, *.webhook.office.com
# A path's word: lower, UPPER, Capitalised or camelCase with humps of 3 letters or more (a
# random value's letters switch case every letter or two: `x9Kq2mZpQ7`, `secretZq9xWv3`).
_PATH_WORD = re.compile(r"[A-Z]+|[A-Za-z][a-z]*(?:[A-Z][a-z]{2,})*")
_LETTERS = re.compile(r"[A-Za-z]+")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `--api-key X`, `--token=X`, `-k X`: an argument's flag saying its value is a secret.
_SHORT_SECRET_FLAGS = frozenset({"-k", "-p", "-t"})


def looks_like_path(value: str) -> bool:
    """A value starting with `/`, `~` or `.` that is a path: one that exists, or whose parts
    are words (`/usr/share/X11`, `~/.config/app`, `./node_modules/.bin`). `/x9Kq2mZpQ7` is not
    one: about one base64 secret in 64 starts with `/`."""
    if not value.startswith(("/", "~", ".")):
        return False
    try:
        if os.path.lexists(os.path.expanduser(value)):
            return True
    except (ValueError, OSError):
        return False
    for part in value.split("/"):
        for letters in _LETTERS.findall(part):
            if not _PATH_WORD.fullmatch(letters):
                return False
    return True


def looks_like_secret_value(value: str) -> bool:
    """Long enough, one word, not a path: paths and sentences under a secret-looking name
    (KEYBOARD_LAYOUT_DIR=/usr/share/...) are not secrets, and redacting them would blank out
    ordinary output."""
    return (
        len(value) >= MIN_SECRET_LENGTH
        and not any(ch.isspace() for ch in value)
        and not looks_like_path(value)
    )


def secret_name(name: str, value: str = "") -> bool:
    """Whether `name` says its value is a secret (for SESSION and _SID: with `value` a token);
    a value that is plainly none (`false`, `1`, a host name, a URL without credentials:
    TOKENIZERS_PARALLELISM=false, NEXTAUTH_URL=http://localhost:3000) is not one."""
    if _NOT_SECRET_NAME.fullmatch(name) or (value and plainly_not_secret(value)):
        return False
    if SECRET_NAME.search(name):
        return True
    return bool(_WEAK_NAME.search(name)) and _token(value) and not _UUID.fullmatch(value)


def plainly_not_secret(value: str) -> bool:
    if _PLAIN.fullmatch(value):
        return True
    url = _URL.fullmatch(value)
    return bool(url) and not _carried(value)


def _token(value: str) -> bool:
    return (
        bool(_TOKEN_LIKE.fullmatch(value)) and random_looking(value) and not looks_like_path(value)
    )


def value_secrets(value: str) -> list[str]:
    """The credentials `value` carries whatever its name (those long enough to redact): URL
    passwords and token users, secret-named query parameters and `Password=…;` pairs, webhook
    tokens, key shapes."""
    return [part for part in _carried(value) if looks_like_secret_value(part)]


def _carried(value: str, depth: int = 0) -> list[str]:
    found: list[str] = []
    for match in _URL.finditer(value):
        found += _url_secrets(match.group(0))
    found += [m.group(2) for m in _USERINFO.finditer(value)]
    found += [m.group(1) for m in _BARE_USERINFO.finditer(value) if random_looking(m.group(1))]
    # A connection string's `Password=…;` (ADO.NET, ODBC's PWD=, libpq's `password=… host=…`),
    # a Java property (`-Djavax.net.ssl.keyStorePassword=…`), netrc's `password X`, JSON's.
    for match in [*_PAIR.finditer(value), *_WORD_PAIR.finditer(value)]:
        name = re.sub(r"[ .\-]", "_", match.group(1))
        item = match.group(2)
        named = secret_name(name, item) or name.upper() in _PAIR_NAMES
        if named and random_looking(item) and not plainly_not_secret(item):
            found.append(item)
    if value[:1] in "{[":
        found += _json_secrets(value)
    found += [match.group(0) for match in SHAPES.finditer(value)]
    found += [match.group(1) for match in _BASIC.finditer(value)]
    if _PGP.search(value):  # a PGP private key block: its body's lines
        found += [word for word in secret_parts(value) if len(word) >= 16]
    if depth == 0:  # base64 of credentials (`user:pw`, a kubeconfig, a PEM key), one level
        for run in _BASE64_RUN.findall(value):
            decoded = _decoded(run)
            basic = decoded and re.fullmatch(r"[\w.@\-]{1,64}:(\S{4,})", decoded)
            if decoded and ((basic and random_looking(basic.group(1))) or _carried(decoded, 1)):
                found.append(run)
    found += [unquote(part) for part in found if "%" in part]  # a script prints it decoded
    return list(dict.fromkeys(part for part in found if part))


def _decoded(run: str) -> str | None:
    import base64
    import binascii

    try:
        raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run else None)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(char.isprintable() or char in "\n\r\t" for char in text)
    return text if text and printable >= 0.95 * len(text) else None


def _json_secrets(value: str) -> list[str]:
    import json

    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return []
    return list(tree_secrets(parsed, loose=True).values())


def _url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        password, user = parts.password, parts.username
    except ValueError:
        return []
    found = [password] if password else []
    if user and _token(user):  # a Sentry DSN's key, `https://<token>:x-oauth-basic@…`
        found.append(user)
    for name, item in parse_qsl(parts.query):
        if secret_name(name, item):
            found.append(item)
    for pair in parts.query.split("&"):  # raw too: parse_qsl reads `+` as a space
        name, _, item = pair.partition("=")
        if item and secret_name(unquote(name), item):
            found.append(unquote(item))
    if _HOOK_HOST.search(parts.netloc + parts.path):
        found += [seg for seg in parts.path.split("/") if len(seg) >= 16 and random_looking(seg)]
    return [item for item in found if item]


def variable_secrets(name: str, value: str) -> list[str]:
    """What a variable (environment, `.env`, a config key) holds that is secret: its value when
    the name says so (its random-looking words when it holds spaces), and the credentials the
    value carries whatever the name (with the whole value when it is one word)."""
    found = secret_parts(value) if secret_name(name, value) else []
    carried = value_secrets(value)
    if carried and looks_like_secret_value(value):
        found.append(value)
    return list(dict.fromkeys([*found, *carried]))


def secret_parts(value: str) -> list[str]:
    """The value itself when it looks like a secret; for one holding spaces (a connection
    string, JSON credentials) its random-looking words (8 characters or more, letters and a
    digit: `Sq1PassZ9x` of `Password=Sq1PassZ9x;`); a sentence or a path gives none."""
    if looks_like_secret_value(value):
        return [value]
    if not any(char.isspace() for char in value):
        return []
    words = re.split(r"[\s;,=:'\"{}\[\]()<>]+", value)
    return [word for word in words if looks_like_secret_value(word) and random_looking(word)]


def scrubbed(name: str, value: str) -> bool:
    """Whether a command's environment goes without this variable: its name says secret
    (whatever the value: a path to a credentials file tells where it is), or its value
    carries a credential (DATABASE_URL with a password, a webhook URL)."""
    return secret_name(name, value) or bool(_carried(value))


def _variable_like(value: str) -> bool:
    """`OPENAI_API_KEY`, `${KEY}`: a value naming a variable, not holding a secret."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*|\$\{?\w+\}?", value))


def _flag_value(flag: str, value: str) -> list[str]:
    """`value` when `flag` says it is a secret (`--api-key`, `-token`, `-k`) and it looks random
    (`--token-file ./t`, `-t latest` and `--api-key ${KEY}` name no secret)."""
    bare = flag.lstrip("-")
    if not looks_like_secret_value(value) or _variable_like(value):
        return []
    if flag in _SHORT_SECRET_FLAGS:  # `-p production` is a profile; `-p a-b-c-d` a passphrase
        passphrase = len(value) >= 20 and len(re.split(r"[-_.]", value)) >= 4
        return [value] if random_looking(value) or passphrase else []
    named = flag.startswith("-") and len(bare) > 1 and secret_name(bare.replace("-", "_"), value)
    return [value] if named else []


def arg_secrets(args: Sequence[str]) -> list[str]:
    """The secrets a program's arguments hold: the value after a secret-looking flag
    (`--api-key X`, `--token=X`, `-k X`), a `NAME=value` whose name or value says secret
    (`-e GITHUB_TOKEN=…`), the credentials any argument carries (a URL's password)."""
    found: list[str] = []
    for i, arg in enumerate(args):
        flag, equals, attached = arg.partition("=")
        if equals and flag.startswith("-"):
            found += _flag_value(flag, attached)
        elif equals and _VARIABLE_NAME.fullmatch(flag):
            found += variable_secrets(flag, attached)
        elif header := _HEADER_ARG.fullmatch(arg):  # mcp-remote's --header "X-API-Key: k"
            found += variable_secrets(header.group(1).replace("-", "_"), header.group(2))
        elif i + 1 < len(args):
            found += _flag_value(arg, args[i + 1])
        found += value_secrets(arg)
    return list(dict.fromkeys(found))


def labelled(
    found: Iterable[tuple[str, Iterable[str]]], known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """`{label: secret}` of `(label, secrets)` pairs, after the `known` ones; a label with
    several secrets, or one `known` already holds, gets `label (2)`, … for the others; a
    secret already there is not added again."""
    out: dict[str, str] = dict(known or {})
    for label, secrets in found:
        for secret in secrets:
            if secret in out.values():
                continue
            key, count = label, 1
            while key in out:
                count += 1
                key = f"{label} ({count})"
            out[key] = secret
    return out


def tree_secrets(tree: Any, label: str = "config", loose: bool = False) -> dict[str, str]:
    """The secrets a parsed YAML or JSON document holds (config.yaml: Hermes' `model.api_key`,
    a platform's token, a server's args): every string under a secret-looking key that looks
    random (a key naming a variable, `api_key_env: OPENAI_API_KEY`, is no secret), the
    credentials any string carries, and the secrets of every list read as arguments."""
    pairs: list[tuple[str, list[str]]] = []

    def walk(node: Any, name: str) -> None:
        if isinstance(node, Mapping):
            for key, item in node.items():
                walk(item, str(key))
        elif isinstance(node, (list, tuple)):
            strings = [item for item in node if isinstance(item, str)]
            pairs.append((name, arg_secrets(strings)))
            for item in node:
                if not isinstance(item, str):
                    walk(item, name)
        elif isinstance(node, str):
            named = secret_name(name.replace(".", "_"), node) and not _variable_like(node)
            named = named and (loose or looks_like_secret_value(node))
            pairs.append((name, [*(secret_parts(node) if named else []), *value_secrets(node)]))

    walk(tree, label)
    return labelled(pairs)
