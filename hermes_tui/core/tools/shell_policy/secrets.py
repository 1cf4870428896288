"""Which words of a command name a secret file, or a place that outlives the sandbox.

Plain functions over already-resolved words (analyze.py calls them for every simple command
and redirect). A word is judged as the path it would be in each directory the shell may be
in: `~` and $HOME are already expanded, relative paths are joined to the walk's cwds, globs
are matched component by component (a `*` never matches a leading dot, as in bash), and a
word only known at run time is judged by its literal tail (`"$X/.ssh/id_rsa"`).

Secret: what `path_policy.secret_kind` calls secret (so the files tool and the terminal agree),
and for programs that read whole trees (`grep -r`, `tar`, `cp -r`, `rsync`, `zip -r`, ...)
also any folder that holds one (`~`, `~/.aws`, `~/.config/gh`). Programs that only look at
names and metadata (`ls`, `stat`, `find` without -exec, `chmod`, ...) or use a key without
showing it (`ssh -i`, `ssh-add`) are not reading it.

Persistence: files that make a program run later, outside the sandbox and this terminal:
git hooks and the repository's config, shell start-up files, folders on PATH.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

from hermes_tui.core.tools.path_policy import HOME_SECRETS, secret_kind
from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.model import Finding, git_without_globals
from hermes_tui.core.tools.shell_policy.words import Word

# Programs that look at names and metadata only, or use a key for what it is for without
# printing it. Their path arguments are not reads of the file's content.
METADATA_ONLY = frozenset(
    {"ls", "ll", "la", "l", "dir", "exa", "eza", "lsd", "tree", "stat", "test", "[", "du"}
    | {"realpath", "readlink", "dirname", "basename", "mkdir", "touch", "chmod", "chown"}
    | {"chgrp", "cd", "pushd", "popd", "which", "type", "file", "ssh", "ssh-add", "ssh-keygen"}
    | {"ssh-copy-id", "rm", "rmdir", "unlink", "shred", "namei", "getfacl", "lsattr"}
)
# Options whose value is a key file the program uses to log in (scp -i key, rsync -e is a
# script and judged as one).
KEY_OPTIONS = frozenset({"-i", "--identity", "--identity-file", "--key-file", "--ssh-key"})
# Programs that read every file under a folder they are given, with the options that make
# them do so (None: always).
TREE_READERS: dict[str, frozenset[str] | None] = {
    "grep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "egrep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "fgrep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "zgrep": frozenset({"-r", "-R", "--recursive"}),
    "ugrep": frozenset({"-r", "-R", "--recursive"}),
    "diff": frozenset({"-r", "--recursive"}),
    "cp": frozenset({"-r", "-R", "-a", "--recursive", "--archive"}),
    "scp": frozenset({"-r"}),
    "zip": frozenset({"-r", "-R", "--recurse-paths"}),
    "rg": None,
    "ag": None,
    "ack": None,
    "tar": None,
    "bsdtar": None,
    "rsync": None,
    "rclone": None,
    "7z": None,
    "7za": None,
    "rar": None,
    "cpio": None,
    "pax": None,
    "borg": None,
    "restic": None,
    "gsutil": None,
    "aws": None,
}
# Files a shell or session reads at start-up, folders on the usual PATH, and what else
# runs later by itself, relative to the home.
HOME_PERSISTENCE: tuple[tuple[str, str], ...] = (
    (".bashrc", "a shell start-up file"),
    (".bash_profile", "a shell start-up file"),
    (".bash_login", "a shell start-up file"),
    (".bash_logout", "a shell start-up file"),
    (".profile", "a shell start-up file"),
    (".zshrc", "a shell start-up file"),
    (".zshenv", "a shell start-up file"),
    (".zprofile", "a shell start-up file"),
    (".zlogin", "a shell start-up file"),
    (".config/fish", "a shell start-up file"),
    (".inputrc", "a shell start-up file"),
    (".pam_environment", "a session start-up file"),
    (".xprofile", "a session start-up file"),
    (".config/autostart", "programs started at login"),
    (".config/systemd/user", "services started by systemd"),
    (".config/environment.d", "a session start-up file"),
    (".local/bin", "a folder on PATH"),
    (".cargo/bin", "a folder on PATH"),
    (".cargo/env", "a file the shell start-up files source"),
    (".cargo/config.toml", "cargo's config, which can name programs for every build"),
    (".cargo/config", "cargo's config, which can name programs for every build"),
    ("go/bin", "a folder on PATH"),
    ("bin", "a folder on PATH"),
    (".gitconfig", "git's global config, which can name programs git runs"),
    (".config/git/config", "git's global config, which can name programs git runs"),
    (".gradle/init.d", "gradle init scripts, run by every build"),
    (".gradle/init.gradle", "gradle init scripts, run by every build"),
    (".m2/settings.xml", "maven's settings"),
    (".npmrc", "npm's config, which can name scripts npm runs"),
    (".ssh/rc", "a file ssh runs at every login"),
    (".ssh/authorized_keys", "the keys that may log in as you"),
    (".ssh/config", "ssh's config, which can name programs ssh runs"),
)
# Inside a git directory: what git runs, or reads to decide what to run.
GIT_PERSISTENCE = (
    ("hooks", "git hooks, which git runs later, outside the sandbox"),
    (
        "config",
        "the repository's git config, which can make git run programs later, outside the sandbox",
    ),
)
# Names a glob must not match for it to count as aimed at a secret: `*` or `.*` range over
# everything, `id_*` or `*.pem` pick keys out.
_ORDINARY_NAMES = ("README.md", "main.c", "x", ".gitignore", "data.json", "notes.txt")
_SECRET_NAMES = (".env", ".env.local", "prod.env", "id_rsa", "id_ed25519", "id_ecdsa", "a.pem")
_SECRET_NAMES += ("a.key", "a.p12", "a.pfx", ".netrc", ".pgpass", ".git-credentials", ".npmrc")
_UNKNOWN_PART = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_]\w*|\$\d|`[^`]*`")


@dataclass(frozen=True)
class PathHit:
    """A path a command names, and why it matters."""

    path: str  # absolute, as judged (a glob or an unknown part kept as written)
    what: str  # "SSH keys and config", "git hooks", ...
    tree: bool = False  # a folder that holds secrets, not a secret itself


@cache
def _home_secrets(home: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    return tuple(
        (tuple((home + "/" + rel).casefold().split("/")), what) for rel, what in HOME_SECRETS
    )


_NAME_HINT = re.compile(r"\.env|env$|^id_|\.(pem|key|p12|pfx|jks|keystore|ppk)$|^mem$|^environ$")


@cache
def _home_depth_and_firsts(home: str) -> tuple[int, frozenset[str]]:
    depth = len(home.casefold().split("/"))
    return depth, frozenset(parts[depth] for parts, _what in _home_secrets(home))


def _may_be_secret(parts: Sequence[str], home: str) -> bool:
    """A quick no for most words (src/app.py, origin, -la): neither near a home secret
    nor named like a secret. Only a yes goes on to the full checks."""
    depth, firsts = _home_depth_and_firsts(home)
    if _NAME_HINT.search(parts[-1]):
        return True
    if len(parts) <= depth:
        return True  # the home or above it: holds secrets
    return parts[depth] in firsts and parts[:depth] == home.casefold().split("/")


def shown(path: str, home: str) -> str:
    if path == home:
        return "~"
    if path.startswith(home.rstrip("/") + "/"):
        return "~/" + path[len(home.rstrip("/")) + 1 :]
    return path


def candidates(value: str, home: str) -> list[str]:
    """The paths a word may name, most specific first: what follows `@` (curl -d @file) or
    the first `=` (--file=PATH, if=PATH), then the word itself; each brace-expanded."""
    found = []
    rest = value
    if "=" in rest and not rest.startswith("/"):
        rest = rest.split("=", 1)[1]
        found.append(rest)
    if rest.startswith("@"):
        found.insert(0, rest[1:])
    # A program may expand ~ itself where bash does not (--file=~/x, @~/x): judge it as home.
    found = [home + text[1:] if text.startswith("~/") else text for text in found]
    found.append(value)
    out: list[str] = []
    for text in found:
        if not text or any(c.isspace() for c in text):
            continue
        out.extend(cmds.brace_expand(text) or [text])
    return out


def _part_matches(pattern: str, name: str) -> bool:
    if pattern == name:
        return True
    if not cmds_glob(pattern):
        return False
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def cmds_glob(text: str) -> bool:
    return bool(re.search(r"[*?\[]", text))


def secret_at(path: str, home: str, glob: bool) -> PathHit | None:
    """The secret `path` (absolute, normalised) names, or the secrets under it (tree=True)."""
    if cmds.FOUND in path:
        # "Some entry under D" (what find -exec is handed): a secret if D is, or holds one.
        folder = path.split("/" + cmds.FOUND, 1)[0] or "/"
        hit = secret_at(folder, home, False)
        return PathHit(folder + "/" + cmds.FOUND, hit.what) if hit else None
    parts = path.rstrip("/").casefold().split("/")
    if not glob and not _may_be_secret(parts, home):
        return None
    for secret_parts, what in _home_secrets(home):
        common = min(len(parts), len(secret_parts))
        if all(
            _part_matches(p, s) if glob else p == s
            for p, s in zip(parts[:common], secret_parts[:common], strict=False)
        ):
            if len(parts) >= len(secret_parts):
                if _public_key(parts, secret_parts):
                    continue
                return PathHit(path, what)
            return PathHit(path, _holds(path, home), tree=True)
    if len(parts) < 2 or parts[-1] == "":
        return None
    name = path.rsplit("/", 1)[-1]
    if glob and cmds_glob(name):
        if any(_part_matches(name.casefold(), n.casefold()) for n in _ORDINARY_NAMES):
            return None
        for example in _SECRET_NAMES:
            if _part_matches(name.casefold(), example.casefold()):
                kind = secret_kind(PurePosixPath("/" + example), None)
                return PathHit(path, kind or "secrets")
        return None
    kind = secret_kind(PurePosixPath(path), None)
    return PathHit(path, kind) if kind else None


def _public_key(parts: Sequence[str], secret_parts: Sequence[str]) -> bool:
    # A .pub file in ~/.ssh is a public key: meant to be pasted anywhere.
    return (
        secret_parts[-1] == ".ssh"
        and len(parts) == len(secret_parts) + 1
        and (parts[-1].endswith(".pub") and not cmds_glob(parts[-1]))
    )


def _holds(path: str, home: str) -> str:
    inside = [
        shown(home + "/" + rel, home)
        for rel, _what in HOME_SECRETS
        if (home + "/" + rel).startswith(path.rstrip("/") + "/")
    ]
    listed = ", ".join(inside[:3]) + (", …" if len(inside) > 3 else "")
    return f"it holds secret files: {listed}"


def _in_home_secret(path: str, home: str) -> bool:
    folded = path.casefold()
    return any(
        folded == (home + "/" + rel).casefold()
        or folded.startswith((home + "/" + rel + "/").casefold())
        for rel, _what in HOME_SECRETS
    )


def tail_secret(text: str) -> str | None:
    """What secret a word only known at run time names by its literal end, if any:
    `"$X/.ssh/id_rsa"`, `${HERMES_HOME}/.env`."""
    tail = _UNKNOWN_PART.split(text)[-1].replace('"', "").replace("'", "")
    if "/" not in tail or any(c.isspace() for c in tail):
        return None
    lowered = tail.casefold()
    for rel, what in HOME_SECRETS:
        marker = "/" + rel
        at = lowered.find(marker)
        if at >= 0 and lowered[at + len(marker) : at + len(marker) + 1] in ("", "/"):
            return what
    return secret_kind(PurePosixPath("/" + tail.strip("/")), None)


def persistence_at(path: str, home: str) -> PathHit | None:
    """Why writing `path` would make something run later, outside the sandbox, or None."""
    parts = path.split("/")
    for i, part in enumerate(parts):
        if part == ".git" and i + 1 < len(parts):
            for name, what in GIT_PERSISTENCE:
                if parts[i + 1] == name:
                    return PathHit(path, what)
    if not path.startswith(home.rstrip("/") + "/"):
        return None
    rel = path[len(home.rstrip("/")) + 1 :]
    for place, what in HOME_PERSISTENCE:
        if rel == place or rel.startswith(place + "/"):
            return PathHit(path, f"{what}: what it holds runs later, outside the sandbox")
    return None


def reads_trees(base: str, args: Sequence[Word]) -> bool:
    """Whether `base` with `args` reads every file under a folder it is given."""
    if base not in TREE_READERS:
        return False
    flags = TREE_READERS[base]
    if flags is None:
        return True
    for arg in args:
        text = arg.value or ""
        if text in flags or text.startswith("--directories=rec") or text == "--archive":
            return True
        if re.fullmatch(r"-[A-Za-z0-9]+", text) and any("-" + c in flags for c in text[1:]):
            return True
    return False


def key_option_values(args: Sequence[Word]) -> set[int]:
    """Indexes of the words that are the value of a key option (`scp -i KEY`)."""
    skip: set[int] = set()
    for i, arg in enumerate(args):
        if arg.value in KEY_OPTIONS and i + 1 < len(args):
            skip.add(i + 1)
    return skip


def joined(value: str, cwds: Iterable[str]) -> list[str]:
    if value.startswith("/"):
        return [posixpath.normpath(value)]
    return [posixpath.normpath(posixpath.join(cwd, value)) for cwd in cwds]


# Commands that print a stored credential without naming its file: words they start with,
# an option that must be among the rest (None: any), and what they print.
SECRET_PRINTERS: tuple[tuple[tuple[str, ...], str | None, str], ...] = (
    (("gh", "auth", "token"), None, "the GitHub CLI token"),
    (("gh", "auth", "status"), "--show-token", "the GitHub CLI token"),
    (("gh", "auth", "status"), "-t", "the GitHub CLI token"),
    (("git", "credential", "fill"), None, "a stored git password"),
    (("git", "credential-store"), None, "stored git passwords"),
    (("aws", "configure", "get"), None, "AWS settings and keys"),
    (("aws", "configure", "export-credentials"), None, "AWS keys"),
    (("kubectl", "config", "view"), "--raw", "Kubernetes credentials"),
    (("gcloud", "auth", "print-access-token"), None, "a Google Cloud token"),
    (("gcloud", "auth", "print-identity-token"), None, "a Google Cloud token"),
    (("az", "account", "get-access-token"), None, "an Azure token"),
    (("secret-tool", "lookup"), None, "a desktop keyring secret"),
    (("pass", "show"), None, "a password-store entry"),
    (("op", "read"), None, "a 1Password secret"),
    (("gpg", "--export-secret-keys"), None, "GnuPG private keys"),
    (("docker-credential-secretservice", "get"), None, "registry passwords"),
    (("docker-credential-pass", "get"), None, "registry passwords"),
)
COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})
FIND_PATTERNS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex"})
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"})
# Programs that only read what they are given; naming a git hook or a start-up file is fine.
READERS = frozenset(
    {"cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "wc", "diff"}
    | {"cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "bat", "batcat", "nl", "od", "xxd"}
    | {"hexdump", "strings", "sort", "uniq", "cut", "jq", "yq", "source", "_", "echo", "printf"}
    | {"git", "ls", "stat", "test", "[", "du", "file", "tree", "realpath", "readlink", "find"}
    | {"for"}
)


LISTERS = frozenset({"find", "ls", "fd", "fdfind", "tree", "du"})
_CODE_SECRET = re.compile(
    r"(?:^|[^\w.])(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|\.env|\.netrc|\.pgpass|"
    r"\.git-credentials|\.npmrc|\.pypirc|\.vault-token|environ)(?![\w.-])"
    r"|/\.(?:ssh|gnupg|aws|azure|kube|docker|password-store|config/gh|config/gcloud)(?:[/'\"\s)]|$)"
)


def code_secret(code: str) -> str | None:
    """What secret file a one-line program's text names, if any (`open('~/.netrc')`)."""
    match = _CODE_SECRET.search(code)
    if match is None:
        return None
    return f"{match.group().strip(' /(=' + chr(34) + chr(39))}"


def listed_secrets(args: Sequence[Word], cwds: tuple[str, ...] | None, home: str) -> str | None:
    """The folder holding secrets whose entries a lister (`find ~/.aws`) prints, if any."""
    where = cwds if cwds is not None else (home,)
    for word in args:
        for value in word.values or ():
            if value.startswith("-") and value != "-":
                continue
            for path in joined(value, where):
                hit = secret_at(path, home, word.glob)
                if hit is not None:
                    return shown(path, home)
    return None


def printed_secret(base: str, args: Sequence[Word]) -> str | None:
    words = [base, *(a.value or "" for a in args)]
    if base == "git":
        plain = git_without_globals(words)
        words = plain if plain is not None else words
    for head, flag, what in SECRET_PRINTERS:
        if tuple(words[: len(head)]) == head and (flag is None or flag in words[len(head) :]):
            return what
    return None


def judge_words(
    base: str,
    args: Sequence[Word],
    cwds: tuple[str, ...] | None,
    home: str,
    prefix: str,
) -> list[Finding]:
    """Findings for the paths one program's arguments name (it is not a wrapper: the
    command a wrapper runs is judged on its own)."""
    findings: list[Finding] = []
    printed = printed_secret(base, args)
    if printed is not None:
        findings.append(Finding("secret", f"prints {printed} ({base})", prefix, "printed"))
    finds = base == "find" and any(a.value in FIND_ACTIONS for a in args)
    reads = base not in METADATA_ONLY and (base != "find" or finds)
    trees = reads_trees(base, args)
    writes = base not in READERS and base not in METADATA_ONLY - {"chmod", "chown", "chgrp"}
    if not reads and not writes:
        return findings
    skip = key_option_values(args) if base in ("scp", "sftp", "rsync", "git") else set()
    where = cwds if cwds is not None else (home,)
    seen: set[str] = set()
    destination = -1
    if base in COPIERS:
        operands = [i for i, a in enumerate(args) if not (a.value or "-").startswith("-")]
        if len(operands) >= 2 and not any(a.value in ("-t", "--target-directory") for a in args):
            destination = operands[-1]
    for i, word in enumerate(args):
        if i in skip:
            continue
        if word.values is None:
            what = tail_secret(word.text) if reads else None
            if what is not None:
                findings.append(
                    Finding("secret", f"reads {word.text}, a secret file ({what})", prefix, "?")
                )
            continue
        if finds and i > 0 and args[i - 1].value in FIND_PATTERNS:
            finding = _find_pattern(word, prefix)
            if finding is not None:
                findings.append(finding)
            continue
        how = (reads, trees, writes)
        if i == destination:
            # Written, not read (cp .env.example .env); into a home secret it still asks.
            how = (any(_in_home_secret(p, home) for p in _paths(word, where, home)), False, True)
        finding = _judge_word(word, where, home, seen, how, prefix)
        if finding is not None:
            findings.append(finding)
    return findings


def _paths(word: Word, where: tuple[str, ...], home: str) -> list[str]:
    return [
        path
        for value in word.values or ()
        for candidate in candidates(value, home)
        for path in joined(candidate, where)
    ]


def _judge_word(
    word: Word,
    where: tuple[str, ...],
    home: str,
    seen: set[str],
    how: tuple[bool, bool, bool],
    prefix: str | None,
) -> Finding | None:
    for value in word.values or ():
        for candidate in candidates(value, home):
            for path in joined(candidate, where):
                if path in seen:
                    continue
                seen.add(path)
                finding = _judge_path(path, home, word.glob, *how, prefix)
                if finding is not None:
                    return finding
    return None


def _find_pattern(word: Word, prefix: str | None) -> Finding | None:
    """`find … -name id_rsa -exec cat {} +`: the pattern picks secret files by name."""
    for value in word.values or ():
        hit = secret_at("/x/" + value.rsplit("/", 1)[-1], "/nonexistent", True)
        if hit is not None:
            return Finding(
                "secret",
                f"runs a command on the files named {value} it finds, secret files ({hit.what})",
                prefix,
                "?" + value,
            )
    return None


def _judge_path(
    path: str, home: str, glob: bool, reads: bool, trees: bool, writes: bool, prefix: str | None
) -> Finding | None:
    if reads:
        hit = secret_at(path, home, glob)
        if hit is not None and (trees or not hit.tree):
            place = shown(hit.path, home)
            if hit.tree:
                return Finding(
                    "secret", f"reads everything under {place}; {hit.what}", prefix, hit.path
                )
            return Finding("secret", f"reads {place}, a secret file ({hit.what})", prefix, hit.path)
    if writes:
        hit = persistence_at(path, home)
        if hit is not None:
            return Finding(
                "persistence", f"writes {shown(path, home)}: {hit.what}", prefix, hit.path
            )
    return None


def judge_redirect(
    word: Word, operator: str, cwds: tuple[str, ...] | None, home: str
) -> list[Finding]:
    """Findings for a redirect's file: reading a secret (`< ~/.netrc`), writing into one or
    into a place that runs later (`>> ~/.bashrc`, `> .git/hooks/pre-commit`)."""
    if word.values is None:
        what = tail_secret(word.text)
        if what is None:
            return []
        return [Finding("secret", f"redirects {word.text}, a secret file ({what})", None)]
    where = cwds if cwds is not None else (home,)
    writing = ">" in operator
    findings: list[Finding] = []
    for value in word.values:
        for path in joined(value, where):
            hit = secret_at(path, home, word.glob)
            place = shown(path, home)
            if hit is not None and not hit.tree and (not writing or _in_home_secret(path, home)):
                verb = "writes" if writing else "reads"
                what = f"{verb} {place}, a secret file ({hit.what})"
                findings.append(Finding("secret", what, None, path))
            if writing and (hit := persistence_at(path, home)) is not None:
                findings.append(Finding("persistence", f"writes {place}: {hit.what}", None, path))
    return findings
