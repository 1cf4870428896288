"""Where the files tool may read and write: a pure verdict over resolved paths, with a reason.

`decide(access, facts, rules)` is pure (no I/O): a path inside the working directory or
`files.allowed_roots` is allowed; elsewhere it asks; a well-known secret file asks wherever it
is (by its requested or resolved name, or because it is the same inode as one); and the hermes
home's own stores are never written (the reason names the tool to use). `gather()` does the
I/O that feeds it: `~` expansion, the working directory, `os.path.realpath` (symlinks, `..`,
`/proc/self/root/...`) and one `stat` for the inode. Reasons are verb phrases ("reads
~/.ssh/id_rsa, a secret file (SSH keys)") so the approval dialog and the refusal read alike.

A write to what runs later outside the sandbox asks too, the reason naming what runs it: the
list the sandbox holds read-only for commands (run_later.py: git's hooks, config and info of
every repository in the workspace, `.vscode`, `.idea`, `.envrc`, `.hermes`, a new top-level
`hermes_tui` package, the home's dot entries when the working directory holds the home, the
folders of the user's PATH inside the writable places but the project's own venv),
anything in a git directory (`.git`, or a folder git's discovery takes for one) and the hermes
home.
"""

from __future__ import annotations

import dataclasses
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from hermes_tui.core.tools import load_paths, own_code, run_later
from hermes_tui.core.tools.gitdirs import GIT_DIR_MARKS
from hermes_tui.core.tools.secret_paths import HOME_SECRETS, globbed_kind

Access = Literal["read", "write"]
Action = Literal["allow", "ask", "deny"]
FileId = tuple[int, int]  # (st_dev, st_ino)

# Secret files under the user's home, by path relative to it (casefolded): what they hold
# (secret_paths.py: the one list the sandbox hides too).
# Secret files anywhere, by name (casefolded).
PRIVATE_KEY_NAME = re.compile(r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?")
KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk")
# .env templates are committed to repositories and hold placeholders, not secrets.
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
# The hermes home's own stores: never written through the files tool, and what to use instead.
PROTECTED_IN_HOME: tuple[tuple[str, str], ...] = (
    (".env", "the API keys; the user sets them (the app's provider setup, or an editor)"),
    ("config.yaml", "the user's settings; ask the user to change them"),
    ("SOUL.md", "the persona loaded into every system prompt; only the user edits it"),
    ("sessions.db", "the conversation store, written by the app only"),
    ("memories", "memory; use the memory tool (its writes are scanned and archived)"),
    ("skills", "skills; use skill_manage (its writes are scanned and versioned)"),
    ("pending", "writes waiting for the user's approval; the user decides them"),
    ("logs", "the audit trail, written by the app only"),
    ("cache", "the scanner's remembered verdicts, written by the app only"),
)


@dataclass(frozen=True)
class PathRules:
    """What a conversation's file access is judged against; every path already resolved."""

    workdir: Path
    allowed_roots: tuple[Path, ...] = ()
    read_roots: tuple[Path, ...] = ()  # readable without asking too (the session's scratch)
    hermes_home: Path | None = None
    user_home: Path | None = None
    # Inodes of the well-known secret files that exist, for hard links to them.
    secret_ids: frozenset[FileId] = frozenset()
    # What runs later outside the sandbox (run_later.protected: the sandbox's read-only list),
    # resolved; filled for writes only (it scans the workspace for repositories).
    run_later: tuple[tuple[PurePosixPath, str], ...] = ()
    # hermes_tui entries at the top of the working directory before the write (a checkout's).
    own_package: frozenset[str] = frozenset()
    # The folders of PATH that stay writable, with the system programs' names they come ahead
    # of (run_later.shadowing_folders): `git` written there is run by the user's shell.
    shadowing: tuple[tuple[PurePosixPath, frozenset[str]], ...] = ()
    # The writable folders of LD_LIBRARY_PATH, PYTHONPATH, … (load_paths.folders): the variable
    # and the system's names a file left there comes ahead of (`json.py`, `libc.so.6`).
    loading: tuple[tuple[PurePosixPath, str, frozenset[str]], ...] = ()


@dataclass(frozen=True)
class PathFacts:
    """What a requested path turned out to be, read once."""

    requested: str  # as the model wrote it
    lexical: PurePosixPath  # absolute, `..` folded, symlinks not followed
    resolved: PurePosixPath  # what the kernel would open
    file_id: FileId | None = None  # None when the file does not exist (yet)
    links: int = 1  # hard links to it: above 1 it may be a secret file under another name
    # The nearest folder holding it that git takes for a git directory, counting what a write
    # would create there (`gather(..., write=True)` only).
    git_dir: PurePosixPath | None = None


@dataclass(frozen=True)
class PathVerdict:
    """Whether a file tool may touch a path, and why."""

    action: Action
    reason: str  # a verb phrase ("reads X, outside ..."); empty when allowed
    path: Path  # the resolved path: the one to open, so a later symlink swap cannot redirect
    runs_later: bool = False  # asked because the file runs later outside the sandbox


def _fold(path: PurePosixPath) -> tuple[str, ...]:
    # Case and Unicode form differ on some filesystems (macOS: ~/.SSH is ~/.ssh), never trust them.
    return tuple(unicodedata.normalize("NFC", part).casefold() for part in path.parts)


def _within(path: PurePosixPath, root: PurePosixPath, *, folded: bool = False) -> bool:
    if folded:
        parts, base = _fold(path), _fold(root)
    else:
        parts, base = path.parts, root.parts
    return parts[: len(base)] == base


def _shown(path: PurePosixPath, user_home: Path | None) -> str:
    if user_home is not None and _within(path, PurePosixPath(user_home)):
        rest = path.relative_to(PurePosixPath(user_home))
        return "~" if not rest.parts else f"~/{rest}"
    return str(path)


def secret_kind(path: PurePosixPath, user_home: Path | None) -> str | None:
    """What secret the file at `path` holds, judged by its name and place, or None."""
    name = unicodedata.normalize("NFC", path.name).casefold()
    if user_home is not None:
        home = PurePosixPath(user_home)
        for relative, what in HOME_SECRETS:
            if _within(path, home / relative, folded=True):
                return what
        if _within(path, home) and (kind := globbed_kind(str(path.relative_to(home)))):
            return kind
    if name == ".env" or (name.startswith(".env.") and name not in ENV_TEMPLATES):
        return "environment secrets"
    if name.endswith(".env") and len(name) > 4:  # production.env, app.env
        return "environment secrets"
    if PRIVATE_KEY_NAME.fullmatch(name) or name.endswith(KEY_SUFFIXES):
        return "a private key"
    parts = _fold(path)
    if len(parts) > 2 and parts[1] == "proc" and parts[-1] in ("environ", "mem"):
        return "a process's environment or memory, API keys included"
    return None


def _protected(path: PurePosixPath, home: Path | None) -> tuple[str, str] | None:
    if home is None:
        return None
    root = PurePosixPath(home)
    if not _within(path, root, folded=True):
        return None
    inside = _fold(path)[len(root.parts) :]
    if not inside:
        return None
    for name, what in PROTECTED_IN_HOME:
        first = inside[0]
        if first == name.casefold() or (name == "sessions.db" and first.startswith("sessions.db")):
            return name, what
    return None


def decide(access: Access, facts: PathFacts, rules: PathRules) -> PathVerdict:
    """allow, ask or deny `access` to the path in `facts`, with the reason."""
    path = facts.resolved
    shown = _shown(path, rules.user_home)
    verb = "reads" if access == "read" else "writes"
    if access == "write":
        for candidate in (path, facts.lexical):
            protected = _protected(candidate, rules.hermes_home)
            if protected is not None:
                name, what = protected
                return PathVerdict(
                    "deny",
                    f"writes {shown} in the hermes home's {name}: {what}; the files tool never "
                    "writes there",
                    Path(path),
                )
        runs = runs_later(facts, rules)
        if runs is not None:
            reason = f"writes {shown}, which runs later outside the sandbox: {runs}"
            return PathVerdict("ask", reason, Path(path), runs_later=True)
    for candidate in (path, facts.lexical, PurePosixPath(facts.requested)):
        kind = secret_kind(candidate, rules.user_home)
        if kind is not None:
            return PathVerdict("ask", f"{verb} {shown}, a secret file ({kind})", Path(path))
    if facts.file_id is not None and facts.file_id in rules.secret_ids:
        return PathVerdict(
            "ask", f"{verb} {shown}, which is a hard link to a secret file", Path(path)
        )
    roots = (rules.workdir, *rules.allowed_roots)
    if access == "read":
        roots = (*roots, *rules.read_roots)
    if any(_within(path, PurePosixPath(root)) for root in roots):
        return PathVerdict("allow", "", Path(path))
    where = "outside the working directory " + _shown(PurePosixPath(rules.workdir), rules.user_home)
    if rules.allowed_roots:
        where += " and files.allowed_roots"
    return PathVerdict("ask", f"{verb} {shown}, {where}", Path(path))


def runs_later(facts: PathFacts, rules: PathRules) -> str | None:
    """What would run the file a write to `facts` leaves, outside the sandbox, or None: the
    sandbox's read-only list, a git directory, a new hermes_tui package, the hermes home."""
    candidates = (facts.resolved, facts.lexical)
    for protected, why in rules.run_later:
        if any(_within(candidate, protected, folded=True) for candidate in candidates):
            return why
    if facts.git_dir is not None or any(".git" in _fold(c) for c in candidates):
        return run_later.GIT_DIR
    for folder, names in rules.shadowing:
        if any(c.parent == folder and c.name in names for c in candidates):
            return run_later.SHADOWS_PROGRAM
    for folder, variable, names in rules.loading:
        if any(load_paths.shadows(variable, folder, c, names) for c in candidates):
            return load_paths.reason(variable)
    workdir = PurePosixPath(rules.workdir)
    for candidate in candidates:
        if _within(candidate, workdir) and candidate != workdir:
            top, *below = candidate.relative_to(workdir).parts
            if run_later.is_own_name(top) and top not in rules.own_package:
                return run_later.SHADOW
            if any(part in (run_later.OWN_NAME, run_later.OWN_NAME + ".py") for part in below):
                return run_later.SHADOW  # `python -m hermes_tui` started in a sub-folder (A9-7)
            if run_later.PROJECT_DIR in below[:-1]:  # a session started in a sub-folder (A9-15)
                return run_later.PROJECT_COMMANDS
            if (why := run_later.top_pattern_reason(top)) is not None:
                return why
    # Where a writable place holds them (elsewhere a write asks anyway, as outside): the home's
    # dot entries and ~/bin, as the sandbox locks them (`home_view.lock_home`), and the hermes home.
    writable = [PurePosixPath(root) for root in (rules.workdir, *rules.allowed_roots)]
    home = rules.user_home
    if (
        home is not None
        and any(_within(PurePosixPath(home), root) for root in writable)
        and any(run_later.in_home(Path(candidate), home) for candidate in candidates)
    ):
        return run_later.IN_HOME
    hermes = PurePosixPath(rules.hermes_home) if rules.hermes_home is not None else None
    if (
        hermes is not None
        and any(_within(hermes, root) for root in writable)
        and any(_within(candidate, hermes, folded=True) for candidate in candidates)
    ):
        return run_later.HERMES_HOME
    return None


# ---- the I/O half ------------------------------------------------------------------------


def judge_write(path: Path, workdir: Path, hermes_home: Path | None = None) -> PathVerdict:
    """The files tools' own verdict on writing `path` (for a rewind putting a file back): one
    that runs later outside the sandbox, lies outside the working directory or is a secret
    file asks; the hermes home's stores are denied."""
    rules = resolve_rules(workdir, hermes_home=hermes_home, write=True)
    facts = gather(str(path), workdir, rules, write=True)
    if facts.links > 1:
        rules = dataclasses.replace(rules, secret_ids=secret_file_ids(rules.user_home, hermes_home))
    return decide("write", facts, rules)


def gather(requested: str, cwd: Path, rules: PathRules, *, write: bool = False) -> PathFacts:
    """Resolve `requested` as the kernel would: `~`, the working directory, `..`, symlinks
    (for a write, also find the git directory holding it)."""
    expanded = os.path.expanduser(requested)
    absolute = expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded)
    lexical = PurePosixPath(os.path.normpath(absolute))
    resolved = PurePosixPath(os.path.realpath(absolute))
    git_dir = git_dir_holding(resolved) if write else None
    try:
        info = os.stat(resolved)
    except OSError:
        return PathFacts(requested, lexical, resolved, git_dir=git_dir)
    file_id = (info.st_dev, info.st_ino)
    return PathFacts(requested, lexical, resolved, file_id, info.st_nlink, git_dir)


def git_dir_holding(path: PurePosixPath) -> PurePosixPath | None:
    """The nearest folder above `path` that git's discovery takes for a git directory (HEAD,
    objects and refs in it, `safe.bareRepository` defaults to all), counting the entry a write
    to `path` would create: its config and hooks run when the user runs git there."""
    child = path.name
    for folder in path.parents:
        marks = {mark for mark in GIT_DIR_MARKS if os.path.lexists(folder / mark)}
        if marks | ({child} & GIT_DIR_MARKS) >= GIT_DIR_MARKS:
            return folder
        child = folder.name
    return None


def secret_file_ids(user_home: Path | None, hermes_home: Path | None) -> frozenset[FileId]:
    """Inodes of the well-known secret files that exist (to catch hard links to them)."""
    candidates: list[Path] = []
    if user_home is not None:
        for relative, _what in HOME_SECRETS:
            path = user_home / relative
            candidates.extend(_files_under(path))
    if hermes_home is not None:
        candidates.append(hermes_home / ".env")
    ids: set[FileId] = set()
    for path in candidates:
        try:
            info = os.stat(path)
        except OSError:
            continue
        ids.add((info.st_dev, info.st_ino))
    return frozenset(ids)


def _files_under(path: Path, limit: int = 200) -> Iterable[Path]:
    """The file itself, or the files directly inside a secret folder (~/.ssh/*), bounded."""
    if not path.is_dir():
        return [path]
    try:
        return [child for _, child in zip(range(limit), path.iterdir(), strict=False)]
    except OSError:
        return []


def resolve_rules(
    workdir: Path,
    *,
    allowed_roots: Iterable[str | Path] = (),
    read_roots: Iterable[Path] = (),
    hermes_home: Path | None = None,
    user_home: Path | None = None,
    with_secret_ids: bool = False,
    write: bool = False,
    skill_dirs: Iterable[Path] = (),
    server_paths: Iterable[Path] = (),
) -> PathRules:
    def real(path: str | Path) -> Path:
        return Path(os.path.realpath(os.path.expanduser(str(path))))

    home = real(user_home) if user_home is not None else real(Path.home())
    hermes = real(hermes_home) if hermes_home is not None else None
    work = real(workdir)
    later: tuple[tuple[PurePosixPath, str], ...] = ()
    own: frozenset[str] = frozenset()
    shadowing: tuple[tuple[PurePosixPath, frozenset[str]], ...] = ()
    loading: tuple[tuple[PurePosixPath, str, frozenset[str]], ...] = ()
    if write:  # the workspace's repositories are scanned for each write (a few ms)
        from hermes_tui.core.tools import gitdirs, home_links
        from hermes_tui.core.tools.sandbox_probe import search_path_entries

        repositories = gitdirs.repositories(work)
        found = run_later.protected(work, repositories)
        later = tuple((PurePosixPath(item.path), item.reason) for item in found)
        # The folders of PATH where writes are not asked about (a project's `tools/bin`; its
        # own virtual environment's `bin` is project code).
        entries = search_path_entries(os.environ.get("PATH", ""))
        places = [work, *(real(root) for root in allowed_roots)]
        bins = run_later.project_bins(work, home)
        on_path = run_later.on_search_path(entries, places, bins, work)
        later += tuple((PurePosixPath(path), run_later.ON_PATH) for path in on_path)
        trees = [work, *(dirs.tree for dirs in repositories)]
        held = home_links.held(home, places, hermes, trees=trees)  # dotfiles, git's globals
        later += tuple((PurePosixPath(item.path), item.reason) for item in held)
        skills = run_later.inside_places([real(d) for d in skill_dirs], places)
        later += tuple((PurePosixPath(path), run_later.SKILL_FOLDER) for path in skills)
        servers = run_later.inside_places([real(p) for p in server_paths], places)
        later += tuple((PurePosixPath(path), run_later.MCP_SERVER) for path in servers)
        app = run_later.inside_places([real(p) for p in own_code.locked_paths()], places)
        later += tuple((PurePosixPath(path), own_code.REASON) for path in app)
        shadowing = tuple(
            (PurePosixPath(folder), names)
            for folder, names in run_later.shadowing_folders(entries, places, bins, work)
        )
        own = frozenset(path.name for path in run_later.own_name_shadows(work))
        loads = load_paths.folders(load_paths.entries(os.environ), places, work)
        loads += load_paths.folders({load_paths.APP_PATH: own_code.import_folders()}, places, work)
        loading = tuple((PurePosixPath(f.folder), f.variable, f.names) for f in loads)
    return PathRules(
        workdir=work,
        allowed_roots=tuple(real(root) for root in allowed_roots),
        read_roots=tuple(real(root) for root in read_roots),
        hermes_home=hermes,
        user_home=home,
        secret_ids=secret_file_ids(home, hermes) if with_secret_ids else frozenset(),
        run_later=later,
        own_package=own,
        shadowing=shadowing,
        loading=loading,
    )
