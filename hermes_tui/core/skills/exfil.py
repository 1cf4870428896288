"""A skill's script that sends the user's credentials or environment off the machine.

The guard's line patterns (guard.py `credentials_upload`) know how a file is uploaded by curl or
wget; a script needs no such spelling (attack4's A4-34: `tar cz -C ~ .ssh .aws | curl -T -`,
Python's urlopen with `open(os.path.expanduser('~/.aws/credentials'))`, a path split over
shell variables, `env | curl --data-binary @-`). So this judges a unit of text (a script file,
or one fenced block or line of a Markdown file, whose blocks are separate commands) by two
facts together:

1. it reads a credential location, in any spelling: `~/.ssh`, `$HOME/.aws`, `.ssh` after
   `tar -C ~`, `Path.home() / ".aws"`, a home-anchored `…/credentials`, `id_ed25519`; read in
   the text as written, with shell variables expanded, string literals joined (`'.a' + 'ws'`)
   and in the scanner's decodings (base64, hex…). Using a key is not reading it for sending:
   `ssh -i KEY`, `IdentityFile`, `ssh-add`, `chmod`, `mkdir`, `ssh-keygen`, a `test -f`, and
   `known_hosts`, `authorized_keys`, `.ssh/config` or a `.pub` key are left out first;
   or it dumps the whole environment (`env`, `printenv`, `export -p` into a pipe, a
   substitution or a file; `/proc/*/environ`; `os.environ` or `process.env` serialised or sent);
2. it sends something off the machine: a network program (curl, wget, nc, scp, rsync, ssh,
   dig…), `/dev/tcp`, `git push`, a cloud copy, or a network library (urllib, requests, httpx,
   sockets, smtplib, node's https/net, fetch).

Either alone is ordinary (a deploy script curls a URL and reads ~/.config/app.toml; a setup
script chmods ~/.ssh/id_ed25519): both together make the write dangerous.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Iterator

from hermes_tui.core import threats

# A credential location as a path component: the folder or file itself, not `foo.ssh`.
_CRED_NAMES = (
    r"ssh|aws(?!/config\b)|gnupg|azure|password-store|netrc|git-credentials|pypirc|npmrc|pgpass"
    r"|vault-token|kube/config|docker/config\.json|gem/credentials|config/(?:gh|gcloud|hub|rclone)\b"
    r"|cargo/credentials|terraform\.d/credentials|boto|s3cfg|m2/settings\.xml|\w+_history"
    r"|hermes/\.env"
)
_CREDENTIAL = re.compile(
    rf"(?<![\w.\-])\.(?:{_CRED_NAMES})(?![\w\-])"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)"
    r"|(?:~|\$\{?HOME\}?|home\(\)|homedir\(\)|expanduser\([^)]*\))\S*?/credentials\b"
    # The whole home archived or copied (it holds them all), and a search of it for keys.
    r"|\b(?:tar|zip|7z|rsync|scp)\b[^\n|;&]*?\s[\"']?(?:~|\$\{?HOME\}?)/?[\"']?(?=\s|$|[|;&)])"
    r"|-C\s*[\"']?(?:~|\$\{?HOME\}?)/?[\"']?\s+\.(?=\s|$|[|;&)])"
    r"|\bfind\s+[\"']?(?:~|\$\{?HOME\}?)[^\n|;]*-i?(?:name|path)\s+[\"']?\S*"
    r"(?:id_|credentials|netrc|\.pem|\.key)"
    # The home's own .env, and the programs that print a stored credential.
    r"|(?:~|\$\{?HOME\}?|homedir\(\)|home\(\))/\.env\b"
    r"|\bgh\s+auth\s+token\b|\bgit\s+(?:config\b[^\n|;]*credential|credential\s+fill)"
    r"|\baws\s+configure\s+(?:export-credentials|get)\b|\bgcloud\s+auth\s+print-\w+-token"
    r"|\baz\s+account\s+get-access-token|\bkubectl\s+config\s+view\b[^\n|;]*--raw"
    r"|\bsecurity\s+find-\w+-password|\bsecret-tool\s+lookup|\bpass\s+show\b|\bop\s+read\b"
    r"|\bdocker-credential-\w+|\bvault\s+(?:read|kv\s+get)\b",
    re.IGNORECASE | re.MULTILINE,
)
# A home path whose first component is a glob (`~/.a*s/…`, `$HOME/.[s]sh`): matched against
# the credential folders' names.
_HOME_GLOB = re.compile(r"(?:~|\$\{?HOME\}?)/([^/\s\"']*[*?\[][^/\s\"']*)")
_CRED_DIRS = (".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".netrc", ".git-credentials")
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\([0-7]{3})")
# Uses of a key or of a harmless file beside the keys, taken out before looking for a read.
# (Its first two start only where a word starts: the same matches, since each would match from
# there too, but a long word is read once, not from each of its characters.)
_NOT_A_READ = re.compile(
    r"(?<!\S)\S*\.ssh/(?:known_hosts|authorized_keys|config)\b\S*|(?<!\S)\S+\.pub\b\S*"
    r"|(?:\s-i|IdentityFile[= ]|ssh-add\b)\s*\S+"
    r"|\b(?:chmod|chown)\s+(?:-R\s+)?\S+\s+\S+|\bmkdir\s+(?:-p\s+)?\S+|\bssh-keygen\b[^\n]*"
    r"|(?:\btest|\[\[?)\s+-[edfrsw]\s+\S+|>>?\s*\S+|\becho\s+'[^'\n]*'"
    # A credential file handed to the tool that uses it is a use, not a read for sending.
    r"|--(?:kubeconfig|homedir|config-file|credentials-file|profile)[= ]\s*\S+"
    r"|\b(?:KUBECONFIG|AWS_CONFIG_FILE|AWS_SHARED_CREDENTIALS_FILE|GNUPGHOME)=\S+",
    re.IGNORECASE,
)
# (A line start reads only its own line's blanks, and no blank run is split between two
# quantifiers: a skill with thousands of blank lines was read again from each; test_linear_patterns.)
_ENV_DUMP = re.compile(
    r"(?:^[^\S\n]*+|(?:[;&|(`]|\$\()\s*)(?:env|printenv|export(?:\s+-p)?|declare\s+-[px]|set)"
    r"(?:\s+-\w+)*\s*+(?:\||>|\)|`)"
    r"|\b(?:check_output|run|Popen|getoutput)\(\s*+(?:\[\s*+)?['\"](?:env|printenv)['\"]"
    r"|/proc/(?:self|\d+|\$\$|\*|\$\w+)/environ"
    r"|(?:json\.dumps|str|repr|bytes|pickle\.dumps|urlencode)\(\s*(?:dict\(\s*)?(?:os\.)?environb?\b"
    r"|\b(?:data|json|params|body|files|content)\s*=\s*(?:dict\(\s*)?(?:\{\s*\*\*\s*)?(?:os\.)?environb?\b"
    r"|\b(?:os\.)?environb?\.(?:items|keys|values)\(\)"
    r"|(?<!env=)(?<!env = )\bdict\(\s*(?:os\.)?environb?\s*\)"
    r"|\bfor\s+\w+(?:\s*,\s*\w+)?\s+in\s+(?:os\.)?environb?\b"
    r"|\b(?:JSON\.stringify|Object\.(?:entries|keys|values))\(\s*process\.env\s*\)"
    r"|\bGet-ChildItem\s+env:",
    re.IGNORECASE | re.MULTILINE,
)
_SENDS = re.compile(
    r"(?:^|[\s;&|(`$\"'])(?:curl|wget|nc|ncat|netcat|socat|scp|sftp|ftp|tftp|telnet|rsync|ssh"
    r"|dig|nslookup|drill|xh|aria2c|lftp|smbclient|sendmail|swaks)(?=[\s'\",\]])"
    r"|/dev/(?:tcp|udp)/|\bgit\s+push\b|\bopenssl\s+s_client\b"
    r"|\baws\s+s3\s+(?:cp|sync|mv)\b|\bgsutil\s+(?:cp|rsync)\b|\brclone\s+(?:copy|sync|move)\b"
    r"|\b(?:import|from)\s+(?:requests|httpx|urllib3?|urllib\.request|http\.client|aiohttp"
    r"|smtplib|ftplib|paramiko|socket|pycurl|websockets?)\b|\burlopen\(|\brequests\.\w+\("
    r"|\burllib\.request\b|\bhttp\.client\b|\bsocket\.(?:socket|create_connection)\b"
    r"|\brequire\(\s*['\"](?:https?|net|tls|dgram|axios|node-fetch)['\"]\s*\)"
    r"|\bfetch\(|\baxios\.\w+\(|\bXMLHttpRequest\b|\bInvoke-(?:WebRequest|RestMethod)\b"
    # httpie, DNS and ICMP, publishing, and other languages' clients.
    r"|(?:^|[;&|(`]|\$\(|\bdo\b|\bthen\b)\s*(?:https?|host|getent\s+hosts)\s+\S|\bping\b[^\n|;]*\s-p\b"
    r"|\bgh\s+(?:gist|api|release\s+upload|issue\s+create)\b|\b(?:npm|cargo)\s+publish\b"
    r"|\btwine\s+upload\b|\b(?:LWP|HTTP::Tiny|IO::Socket|Net::HTTP)\b|\bNet\.WebClient\b"
    r"|\brequire\(\s*['\"]http2['\"]\s*\)|\bfile_get_contents\(\s*['\"]https?:|\bfsockopen\(",
    re.IGNORECASE | re.MULTILINE,
)
_ASSIGNMENT = re.compile(
    r"(?:^|[;&|]|\s)(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)="
    r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]*)",
    re.MULTILINE,
)
_CHR = re.compile(r"\bchr\((\d{1,7})\)")
_JOINED_LITERALS = re.compile(r"(['\"])\s*\+\s*\1")
_ADJACENT_LITERALS = re.compile(r"(['\"])\s+\1")  # Python's '.a' 'ws' (in shell: two words)
_PROSE_ORDER = re.compile(r"\|\s*\w|https?://|/dev/(?:tcp|udp)/")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1", re.MULTILINE | re.DOTALL)
MAX_ASSIGNMENTS = 500  # a script with more is expanded only that far
_ENCODED = re.compile(r"(?<![\w/+=-])[A-Za-z0-9+/_-]{8,}={0,2}(?![\w/+=-])")
MAX_TOKENS = 2_000  # decoded of a file


def expand_shell_variables(text: str) -> str:
    """`text` with `$NAME` / `${NAME}` replaced by the last value assigned before (in order,
    so `D=.aw; D=${D}s` makes `.aws`); quotes around a value dropped."""
    values: dict[str, str] = {}

    def substitute(value: str) -> str:
        return re.sub(
            r"\$\{(\w+)\}|\$(\w+)",
            lambda m: values.get(m.group(1) or m.group(2), m.group()),
            value,
        )

    for count, match in enumerate(_ASSIGNMENT.finditer(text)):
        if count >= MAX_ASSIGNMENTS:
            break
        values[match.group(1)] = substitute(match.group(2).strip("\"'"))
    return substitute(text)


def _readings(text: str) -> Iterator[str]:
    """The unit as written, with shell variables expanded and string literals joined, then in
    the scanner's decodings."""
    text = _CHR.sub(lambda m: repr(chr(int(m.group(1)) % 0x110000)), text)  # chr(46) → '.'
    joined = _JOINED_LITERALS.sub("", text)
    yield joined
    yield expand_shell_variables(joined)
    if "\\" in text:  # $'\x2eaws', printf '\056ssh', Python's '\x2e'
        unescaped = _ESCAPE.sub(
            lambda m: chr(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8)), joined
        )
        yield expand_shell_variables(_JOINED_LITERALS.sub("", unescaped.replace("'$'", "")))
    for name, view in threats.views(text):
        if name != "text":
            yield view
    yield _decoded_tokens(text)
    yield _ADJACENT_LITERALS.sub("", joined)
    yield joined[::-1]  # '~/.aws'[::-1] written as 'swa./~'
    yield codecs.encode(joined, "rot13")


def _decoded_tokens(text: str) -> str:
    """Every short base64 or hex token that decodes to printable text (a path hidden as
    `echo fi8uYXdz… | base64 -d`: the scanner's decodings look for longer runs)."""
    decoded: list[str] = []
    for count, match in enumerate(_ENCODED.finditer(text)):
        if count >= MAX_TOKENS:
            break
        token = match.group()
        for decode in (_from_base64, bytes.fromhex):
            try:
                raw = decode(token)
            except (ValueError, binascii.Error):
                continue
            if raw.isascii() and raw.decode().isprintable():
                decoded.append(raw.decode())
    return "\n".join(decoded)


def _from_base64(token: str) -> bytes:
    return base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_")


def reads_credentials(text: str) -> str | None:
    """The credential location the unit reads (as found), or None."""
    import fnmatch

    for reading in _readings(text):
        reading = _NOT_A_READ.sub(" ", reading)
        found = _CREDENTIAL.search(reading)
        if found:
            return found.group()
        for glob in _HOME_GLOB.finditer(reading):
            if any(fnmatch.fnmatchcase(name, glob.group(1)) for name in _CRED_DIRS):
                return glob.group()
    return None


def dumps_environment(text: str) -> str | None:
    found = _ENV_DUMP.search(text) or _ENV_DUMP.search(_JOINED_LITERALS.sub("", text))
    return found.group().strip() if found else None


# An environment variable named as a credential (OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD),
# read in shell, Python, node, PowerShell or Ruby: sent in a request's data, URL or body, it
# is the credential sent (other layers redact it from what the model sees; a skill's script
# runs later, where none does).
_KEY_NAME = (
    r"[A-Z_][A-Z0-9_]*?(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|PRIVATE_KEY"
    r"|CREDENTIALS?)[A-Z0-9_]*"
)
_KEY_REFERENCE = re.compile(
    rf"\$\{{?({_KEY_NAME})\b\}}?"
    rf"|\benvironb?(?:\.get\(|\[)\s*['\"]({_KEY_NAME})['\"]"
    rf"|\bgetenv\(\s*['\"]({_KEY_NAME})['\"]"
    rf"|\bprocess\.env(?:\.({_KEY_NAME})\b|\[\s*['\"]({_KEY_NAME})['\"])"
    rf"|\$env:({_KEY_NAME})\b|\bENV\[\s*['\"]({_KEY_NAME})['\"]"
)
_KEY_ASSIGNED = re.compile(
    r"(?:^|[\s;(,])(?:const\s+|let\s+|var\s+|local\s+|export\s+)?(\w+)\s*=\s*(?:\w+\.)*$",
    re.MULTILINE,
)
# Handing a key to the service it is for, as an auth header (`-H "Authorization: Bearer $K"`,
# `headers={"x-api-key": key}`, `curl -u user:$K`): a use, as `ssh -i KEY` is.
_HEADER_BEFORE = re.compile(
    r"(?:authorization|x-api-key|\bapi-key|x-auth-token|private-token|x-goog-api-key"
    r"|--oauth2-bearer)[\"'\s:=]*(?:f?[\"'`])?\s*(?:bearer\s+|token\s+|basic\s+)?[\"'{(\s$]*(?:\w+\.)*$"
    r"|(?:^|\s)(?:-u|--user)\s*[\"']?[^\s\"':]*:?$",
    re.IGNORECASE,
)
# A provider's key in its auth header goes to its own hosts; to another literal host it is sent.
_KEY_HOSTS = {
    "OPENAI_API_KEY": ("openai.com",),
    "ANTHROPIC_API_KEY": ("anthropic.com",),
    "OPENROUTER_API_KEY": ("openrouter.ai",),
    "GITHUB_TOKEN": ("github.com", "githubusercontent.com"),
    "GH_TOKEN": ("github.com", "githubusercontent.com"),
    "GITLAB_TOKEN": ("gitlab.com",),
    "HF_TOKEN": ("huggingface.co",),
    "GEMINI_API_KEY": ("googleapis.com",),
    "GOOGLE_API_KEY": ("googleapis.com",),
    "MISTRAL_API_KEY": ("mistral.ai",),
    "GROQ_API_KEY": ("groq.com",),
    "NPM_TOKEN": ("npmjs.org", "npmjs.com"),
}
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
_URL_HOST = re.compile(r"\bhttps?://([^/\s'\"`?#:]+)")
MAX_REGION = 2_000  # characters of one sending statement read for keys


def _sending_regions(text: str) -> Iterator[str]:
    """Each statement that sends (from the start of a line `_SENDS` matches in, to the end of
    the statement: brackets closed, a line not continued with a backslash)."""
    covered = 0  # regions do not overlap: each character is read once
    for found in _SENDS.finditer(text):
        if found.end() <= covered:
            continue
        back = max(covered, found.end() - 1 - MAX_REGION)
        start = max(text.rfind("\n", back, found.end() - 1) + 1, back)  # may begin at a newline
        depth, end = 0, start
        while end < len(text) and end - start < MAX_REGION:
            char = text[end]
            depth += char in "([{"
            depth -= char in ")]}"
            if char == "\n" and depth <= 0 and text[end - 1] != "\\":
                break
            end += 1
        covered = end
        yield text[start:end]


def _key_uses(text: str) -> dict[str, str]:
    """A pattern for each credential variable read (`$OPENAI_API_KEY`, `os.environ["GH_TOKEN"]`)
    and each plain variable assigned one (`key = os.environ["OPENAI_API_KEY"]`), with the
    credential's name."""
    found: dict[str, str] = {}
    for match in _KEY_REFERENCE.finditer(text):
        name = next(group for group in match.groups() if group)
        found[re.escape(match.group())] = name
        back = max(0, match.start() - 80)
        line_start = max(text.rfind("\n", back, match.start()) + 1, back)
        if (assigned := _KEY_ASSIGNED.search(text, line_start, match.start())) is not None:
            found.setdefault(rf"(?<![\w.$]){assigned.group(1)}\b(?!\s*=[^=])", name)
    return found


def sends_key_variable(text: str) -> str | None:
    """The credential variable a statement that sends carries in its data, URL or body (or, for
    a provider's key, in an auth header to a host not the provider's), or None."""
    for reading in (text, expand_shell_variables(text)):
        uses = _key_uses(reading)
        if not uses:
            continue
        for region in _sending_regions(reading):
            hosts = [h.lower() for h in _URL_HOST.findall(region)]
            for pattern, name in uses.items():
                for use in re.finditer(pattern, region):
                    line_start = region.rfind("\n", 0, use.start()) + 1
                    before = region[max(line_start, use.start() - 80) : use.start()]
                    if _HEADER_BEFORE.search(before) and not _foreign(name, hosts):
                        continue
                    return f"${name}"
    return None


def _foreign(name: str, hosts: list[str]) -> bool:
    own = _KEY_HOSTS.get(name)
    if own is None:
        return False
    return any(
        host not in _LOCAL_HOSTS and not any(host == d or host.endswith("." + d) for d in own)
        for host in hosts
    )


def sends_off_machine(text: str) -> str | None:
    found = _SENDS.search(text) or _SENDS.search(expand_shell_variables(text))
    return found.group().strip(" \t\n;&|(`$\"'") if found else None


def units(text: str, file: str) -> Iterator[tuple[int, str]]:
    """(first line, text) of each unit judged alone: a script whole; a Markdown file's fenced
    blocks each, and outside them each line's code spans (its prose mentions ssh keys and
    servers without sending anything), or the whole line when it pipes or names a URL."""
    if not file.lower().endswith((".md", ".markdown", ".mdx", ".txt")):
        yield 1, text
        return
    end = 0
    for block in _FENCE.finditer(text):
        yield from _lines(text, end, block.start())
        yield text.count("\n", 0, block.start(2)) + 1, block.group(2)
        end = block.end()
    yield from _lines(text, end, len(text))


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    first = text.count("\n", 0, start) + 1
    for offset, line in enumerate(text[start:end].splitlines()):
        if _PROSE_ORDER.search(line):  # an order in prose: `… | curl …`, `… to https://…`
            yield first + offset, line
            continue
        for span in _CODE_SPAN.finditer(line):
            yield first + offset, span.group(2)


def exfiltration(text: str, file: str) -> list[tuple[int, str, str]]:
    """(line, id, description) for each unit of `text` that reads credentials or dumps the
    environment AND sends something off the machine."""
    found: list[tuple[int, str, str]] = []
    for line, unit in units(text, file):
        sender = sends_off_machine(unit)
        if sender is None:
            continue
        if (what := reads_credentials(unit)) is not None:
            found.append(
                (
                    line,
                    "credentials_exfil",
                    f"reads {what} and sends data off the machine ({sender})",
                )
            )
        elif (dump := dumps_environment(unit)) is not None:
            found.append(
                (
                    line,
                    "environment_exfil",
                    f"dumps the environment ({dump}) and sends it ({sender})",
                )
            )
        elif (key := sends_key_variable(unit)) is not None:
            found.append(
                (
                    line,
                    "credentials_exfil",
                    f"sends {key} (a credential from the environment) off the machine ({sender})",
                )
            )
    return found


def split_exfiltration(files: dict[str, str]) -> str | None:
    """When a skill's files, each harmless alone, together read credentials (or dump the
    environment) in one place and send data off the machine in another (`a.sh` tars ~/.ssh to
    /tmp, `b.sh` curls it; two fenced blocks of SKILL.md: attack6's A6-4): what and where, for
    the write gate to hold (a split is ordinary in real skills too, so the user decides)."""
    reads: tuple[str, str] | None = None
    sends: tuple[str, str] | None = None
    for file, text in files.items():
        for _line, unit in units(text, file):
            what = reads_credentials(unit) or dumps_environment(unit)
            how = sends_off_machine(unit)
            if what and how:
                return None  # one unit does both: the guard refuses it (dangerous)
            reads = reads or ((file, what) if what else None)
            sends = sends or ((file, how) if how else None)
    if reads and sends:
        return (
            f"the skill's files read {reads[1]} ({reads[0]}) and send data off the "
            f"machine ({sends[1]}, {sends[0]})"
        )
    return None
