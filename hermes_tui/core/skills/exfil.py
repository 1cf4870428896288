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
