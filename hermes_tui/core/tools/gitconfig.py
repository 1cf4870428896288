"""What a git config file sets, asked of git itself, and which of it makes git run a program.

A parser of our own reads a config differently from git as soon as it is spelt unusually: git
skips a UTF-8 byte-order mark, takes `[core] [include]` for two headers, ends a line at CR as
well as LF, and follows `include.path` / `includeIf.<condition>.path` to other files, which a
command can write. So the judgement asks git: `git config --file F --list --includes
--show-origin -z`, run with the host git found at start (core/host_programs.py), neither the
system's nor the user's config read, in `/` (no repository around it). A file git does not read
cleanly (a bad line, an included folder, a FIFO that blocks it, a timeout) counts as risky, and
so does every include (`include.*` and `includeIf.*` are risky keys, shell_policy/commands.py):
what it names is config too, and a command could write it.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core import host_programs

RISKY_GIT_KEY = re.compile(
    r"core\.(sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|pager\..*|include\..*|includeif\..*"
    r"|.*\.(command|cmd|driver|helper|textconv|program|clean|smudge|process|uploadpack)"
    r"|.*\.(receivepack|proxy|sshcommand|askpass|editor)|protocol\..*allow|credential\..*"
    r"|uploadpack\..*|remote\..*\.vcs|gpg\..*|(difftool|mergetool|man|browser)\..*\.path"
    r"|submodule\..*\.update|sendemail\..*|instaweb\..*|imap\.tunnel|uploadarchive\..*"
    r"|interactive\.difffilter|web\.browser",
    re.I,
)


def git_config_risk(key: str, value: str | None) -> str | None:
    """Why setting this git config key makes git run something, or None."""
    lowered = key.lower()
    if lowered.startswith("alias."):
        if value is None:
            return "a git alias whose value is only known when it runs"
        return None  # the caller analyses the alias itself
    if re.fullmatch(r"submodule\..*\.update", lowered) and (value or "").strip().lower() in (
        "checkout",
        "rebase",
        "merge",
        "none",
    ):
        return None  # `!command` runs one; the named modes do not
    if RISKY_GIT_KEY.fullmatch(lowered):
        return f"sets git's {key}, which makes git run a program"
    return None


UNREADABLE = "(a config git does not read cleanly)"
# Keys git writes into a repository it makes (init, clone, submodule add, worktree add,
# sparse-checkout) and others that change what git does, never what it runs. A config a command
# made or changed may add these; any other key counts as one that runs a program (`strict`): a
# list of the keys that run one always misses one (gpg.ssh.defaultKeyCommand, imap.tunnel ...).
INERT = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|symlinks"
    r"|precomposeunicode|autocrlf|eol|safecrlf|quotepath|sparsecheckout|sparsecheckoutcone"
    r"|worktree|sharedrepository|compression|checkstat|trustctime|splitindex|untrackedcache"
    r"|abbrev|commentchar|whitespace|preloadindex|multipackindex|commitgraph)"
    r"|extensions\.(objectformat|worktreeconfig|refstorage|preciousobjects|noop)"
    r"|remote\..+\.(url|fetch|pushurl|push|tagopt|prune|mirror|promisor|partialclonefilter)"
    r"|branch\..+\.(remote|merge|rebase|pushremote|description)"
    r"|submodule\..+\.(url|active|branch|fetchrecursesubmodules|ignore|shallow)"
    r"|(user|author|committer)\.(name|email)|init\.defaultbranch|pull\.(rebase|ff)"
    r"|push\.(default|autosetupremote)|fetch\.(prune|prunetags)|merge\.(ff|conflictstyle)"
    r"|rebase\.(autostash|autosquash)|index\.(version|skiphash)|(gc|pack|feature|advice)\.\w+"
    r"|status\.(showuntrackedfiles|branch|short|relativepaths)|color\..+|i18n\.\w+"
    r"|lfs\.repositoryformatversion|receive\.(denycurrentbranch|denynonfastforwards|denydeletes)",
)
SUBMODULE_UPDATE = re.compile(r"submodule\..+\.update")
UPDATE_MODES = frozenset({"checkout", "rebase", "merge", "none"})
TIMEOUT = 5.0


@dataclass(frozen=True)
class Setting:
    key: str  # as git lists it: section and key lowercased
    value: str | None  # None: a key without `=` (true)
    origin: str  # "file:<path>", or "standard input:"


def quiet_env(path: str) -> dict[str, str]:
    """An environment for the app's own git: no system or user config, no prompt, no git
    variable of the caller's (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF ...)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        PATH=path,
        LC_ALL="C",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
    )
    return env


def _parse(out: bytes) -> list[Setting]:
    fields = out.split(b"\0")
    found: list[Setting] = []
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, newline, value = entry.decode("utf-8", "replace").partition("\n")
        found.append(Setting(key, value if newline else None, origin.decode("utf-8", "replace")))
    return found


def listing(path: Path | None, data: bytes | None = None) -> list[Setting] | None:
    """Every setting git reads from the config file `path`, its includes followed; or, with
    `data`, from those bytes (includes not followed: they are listed, not read). None when git
    does not read it cleanly."""
    programs = host_programs.programs()
    try:
        git = programs.require("git")
    except host_programs.ProgramRefused:
        return None
    if data is not None:
        source = ["--file", "-", "--no-includes"]
    else:
        source = ["--file", os.path.abspath(str(path)), "--includes"]
    try:
        done = subprocess.run(
            [git, "config", *source, "--list", "--show-origin", "-z"],
            input=data or b"",
            capture_output=True,
            cwd="/",
            env=quiet_env(programs.env_path()),
            timeout=TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or done.stderr.strip():
        return None
    return _parse(done.stdout)


def _inert(key: str, value: str | None) -> bool:
    if SUBMODULE_UPDATE.fullmatch(key):
        return (value or "").strip().lower() in UPDATE_MODES  # not `!command`
    return INERT.fullmatch(key) is not None


def risks(settings: list[Setting] | None, strict: bool = False) -> set[tuple[str, str]]:
    """(key, value) of the settings that make git run a program (`strict`: every key not
    INERT); one UNREADABLE pair when git could not read the config."""
    if settings is None:
        return {(UNREADABLE, "")}
    found: set[tuple[str, str]] = set()
    for setting in settings:
        key, value = setting.key.lower(), setting.value
        alias = key.startswith("alias.") and (value or "").lstrip('"').startswith("!")
        named = git_config_risk(key, value if value is not None else "true")
        if alias or named or (strict and not _inert(key, value)):
            found.add((key, value or ""))
    return found


def file_risks(path: Path, strict: bool = False) -> set[tuple[str, str]]:
    """`risks` of the config file at `path` as git reads it (a missing one sets nothing; one
    that is not a regular file is never handed to git, which would block on a FIFO)."""
    if not os.path.lexists(path):
        return set()
    if not path.is_file():
        return {(UNREADABLE, "")}
    return risks(listing(path), strict)


def bytes_risks(data: bytes | None, strict: bool = False) -> set[tuple[str, str]]:
    """`risks` of a config's content as it was (includes listed, not followed)."""
    return risks(listing(None, data), strict) if data else set()


def included_files(path: Path) -> list[Path]:
    """The files other than `path` that its includes name, followed (whether they exist or
    not: one a command creates later is read by git then)."""
    found = listing(path) if path.is_file() else None
    files: set[Path] = set()
    for setting in found or []:
        if not setting.origin.startswith("file:"):
            continue
        origin = Path(setting.origin[len("file:") :])
        files.add(origin)
        key = setting.key.lower()
        if setting.value and (
            key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))
        ):
            named = os.path.expanduser(setting.value)
            files.add(Path(os.path.normpath(origin.parent / named)))
    own = os.path.realpath(path)
    return sorted(p for p in files if os.path.realpath(p) != own)
