"""What a sandboxed command sees of the user's home: an empty place, and what commands need.

A list of hidden credential files never ends (attack7: 26 everyday ones no list named, another
Hermes home's `.env`, other projects' `.env`, the eval runner's copies of the home's secrets).
So the home is inverted: an empty read-only tmpfs lies over it, and only this is bound back
(sandbox.bwrap_argv adds the writable places, the hermes home and the hidden paths after it):
- the folders the programs a command runs live in (`Profile.programs`: the interpreter's
  prefixes and import path, PATH's folders, read at start), PATH's folders as written, and
  the prefix a program there lives in (`prefixes`: above a `bin`, where a link leads);
- toolchain roots those programs need beside their `bin` (TOOLCHAINS: a rustup proxy in
  `~/.cargo/bin` runs what `~/.rustup` holds, a pyenv shim what `~/.pyenv` holds, ...) and the
  user's site-packages (`~/.local/lib/python*`);
- of a prefix or a toolchain its parts, never what lies beside its programs (their settings
  and credential files: `~/.pulumi/credentials.json`, a node's `etc/npmrc`), and of an
  import-path folder all but its `.git`, `.env*` and credential files (home_parts.py, A9-1);
- git's settings as a filtered copy (GIT_CONFIGS): every key but those that carry or fetch a
  credential (`credential.*`, `http.*.extraHeader`, a URL with a user or password in it,
  a secret-looking name or value: core/redaction/recognise.py) and includes (they name files
  the command cannot see); git's global ignore and attributes files as they are;
- `terminal.allow_read`: what the user opts in (the credential files stay hidden within).
Not at all when a writable place holds the home (hermes-tui started in ~ or /: the home is the
work, `lock_home`) or when the home is a system folder (HOME=/, /usr, /var, ...).
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Protocol

from hermes_tui.core.tools import home_parts
from hermes_tui.core.tools.run_later import LOCKED_IN_HOME

# Beside a program's `bin` on PATH, what it runs (each bound read-only when it exists).
TOOLCHAINS = (
    ".rustup",  # rustup's toolchains and settings: ~/.cargo/bin/cargo is a proxy into them
    ".cargo/bin",
    ".pyenv",  # pyenv's shims run its versions/
    ".nvm",
    ".volta",
    ".asdf",
    ".local/share/mise",
    ".rbenv",
    ".goenv",
    ".sdkman",  # Java, Gradle, Maven, Kotlin installed by SDKMAN!
    ".jdks",  # JDKs an IDE downloaded
    ".deno",
    ".bun",
    ".local/share/pnpm",
    ".juliaup",
    ".ghcup",
    ".elan",
    ".nix-profile",
    "go/bin",
    "sdk",  # Go's own versions (golang.org/dl)
    ".local/go",
    ".local/share/pipx",  # ~/.local/bin's pipx programs are links into it
    ".local/pipx",
    ".local/share/uv/tools",  # uv's tools, linked from ~/.local/bin
    ".local/share/uv/python",  # uv's Pythons (a project venv's interpreter)
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    ".conda/envs",
    ".m2/repository",  # Maven's downloaded artifacts (settings.xml stays hidden)
)
USER_SITE = ".local/lib/python*"  # pip install --user
# Of the hermes home, all a command sees (read-only): a skill's scripts run from there.
IN_HERMES_HOME = ("skills",)
# Never bound whole as the prefix of a program on PATH (`prefixes`): they hold much else.
BROAD = ("", ".local", ".local/share", ".local/state", ".config", ".cache", "opt")
MAX_LINKS = 2000  # entries looked at per PATH folder
# git's own settings (filtered copies) and the side files it reads (as they are).
GIT_CONFIGS = (".gitconfig", ".config/git/config")
GIT_SIDE_FILES = (".config/git/ignore", ".config/git/attributes")
# A home that is one of these, or holds one, is not emptied (HOME=/ in a service account).
SYSTEM = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/var", "/nix", "/snap",
          "/proc", "/dev", "/sys", "/run", "/boot", "/srv")  # fmt: skip
# Keys whose setting carries a credential or hands git one, whatever the value looks like.
_CREDENTIAL_KEY = re.compile(
    r"credential\..*|include\..*|includeif\..*|http\..*\.(extraheader|cookiefile)"
    r"|http\.(extraheader|cookiefile)|.*(password|passwd|token|secret|pass)",
    re.I,
)
# A URL with a user (and maybe a password) in it: `https://me:pw@host`, `https://ghp_…@host`.
_USERINFO_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s]+@", re.I)
# A credential in a URL's query (`url."https://host/?private_token=…".insteadOf`), and one a
# command line carries (an alias's `curl -u admin:pw`, `sshpass -p pw`, a header): A9-19.
_QUERY_SECRET = re.compile(
    r"[?&;](private_|access_|auth_|api_)?(token|key|password|passwd|secret|sig)=", re.I
)
_CREDENTIAL_ARGUMENT = re.compile(
    r"(^|\s)(-u|--user)[\s=]*[^\s:]+:\S|\bsshpass\b|(^|\s)--pass(word)?[\s=]"
    r"|authorization:|[\w-]*token:\s*\S",
    re.I,
)
_MAX_CONFIG = 1 << 20


def inverted(user_home: Path, holders: Iterable[Path]) -> bool:
    """Whether the home is emptied: it exists, is not a system folder, and no writable place
    holds it."""
    home = os.path.realpath(user_home)
    if home == os.sep or any(_within(s, home) or _within(home, s) for s in SYSTEM):
        return False
    return os.path.isdir(home) and not list(holders)


def known_homes(user_home: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every hermes home the app knows of: Hermes Agent's `~/.hermes`, hermes-tui's platform
    default and $HERMES_HOME (config_files.resolve_home's choices)."""
    environ = os.environ if environ is None else environ
    homes = [user_home / ".hermes"]
    data = environ.get("XDG_DATA_HOME", "")
    base = Path(data) if os.path.isabs(data) else user_home / ".local" / "share"
    homes.append(base / "hermes-tui")
    if environ.get("HERMES_HOME"):
        homes.append(Path(os.path.expanduser(environ["HERMES_HOME"])))
    return list(dict.fromkeys(Path(os.path.abspath(h)) for h in homes))


def hermes_home_view(
    hermes_home: Path, places: Iterable[Path], exists: Callable[[Path], bool]
) -> tuple[list[str], Callable[[Path], bool]]:
    """(mounts that empty the hermes home but for IN_HERMES_HOME, bound back read-only;
    whether a path lies out of sight in it, so needs no hiding). The caller remounts the
    emptied home read-only once its mounts are made. Its files are the app's: the stores, the
    secrets, a Hermes Agent home's credential pool and gateways' state, whatever a later
    version or another program adds there (A7-15: a list of them never ends either). A home
    that holds a writable place (a demo's work) or is no folder stays bound read-only whole."""
    home = os.path.realpath(hermes_home)
    if not exists(hermes_home) or not os.path.isdir(home):
        return [], lambda _path: False
    if any(_within(os.path.realpath(place), home) for place in places):
        return ["--ro-bind", str(hermes_home), str(hermes_home)], lambda _path: False
    args = ["--tmpfs", str(hermes_home)]
    shown_in = [os.path.join(home, name) for name in IN_HERMES_HOME]
    for name in IN_HERMES_HOME:
        if exists(hermes_home / name) and os.path.exists(hermes_home / name):
            args += ["--ro-bind-try", str(hermes_home / name), str(hermes_home / name)]
            # A skill's own `.env` beside its scripts (attack9's A9-1 addendum: the habit of
            # many published skills) and other credential-looking files stay out of sight.
            real = os.path.realpath(hermes_home / name)
            walked = home_parts.code_hidden(Path(real)) or []
            args += _hidden_in(real, str(hermes_home / name), [str(p) for p in walked])

    def out_of_sight(path: Path) -> bool:
        real = os.path.realpath(path)
        return _within(real, home) and not any(_within(real, shown) for shown in shown_in)

    return args, out_of_sight


def other_homes_hidden(
    user_home: Path, hermes_home: Path, unreadable_in_home: Iterable[str], keep: Iterable[Path]
) -> list[Path]:
    """What to hide of the other hermes homes: one apart from the current home and the `keep`
    places (the working directory, writable roots) whole; one holding any of them (an eval
    arm's home and work lie in `<home>/evals/`, a session started in `~/.hermes/skills`) its
    secrets and stores, but for the way down to them."""
    current = os.path.realpath(hermes_home)
    kept = [current, *(os.path.realpath(place) for place in keep)]
    hidden: list[Path] = []
    for home in known_homes(user_home):
        real = os.path.realpath(home)
        if real == current:
            continue
        if not any(_within(place, real) for place in kept):
            hidden.append(home)
            continue
        for name in unreadable_in_home:
            if not any(_within(place, f"{real}/{name}") for place in kept):
                hidden.append(home / name)
    return hidden


def shown(
    user_home: Path,
    programs: Iterable[Path],
    places: Iterable[Path],
    allow_read: Iterable[Path],
) -> tuple[list[Path], dict[str, str]]:
    """(the paths under the home bound back read-only, as written (links are the caller's):
    what exists of `programs` (and PATH), their `prefixes`, the toolchains, user site-packages,
    git's side files and `allow_read`; how what stays out of a folder among them is found:
    "code" (an import-path folder) or "parts" (a prefix, a toolchain: home_parts.py))."""
    home = Path(os.path.abspath(user_home))
    real = os.path.realpath(home)
    folders = [*programs]
    split = [*prefixes(home, folders, places), *(home / n for n in TOOLCHAINS)]
    wanted: list[Path] = []
    kinds: dict[str, str] = {}
    for folder in folders:
        if not _inside(folder, home, real):
            continue
        if home_parts.is_site_packages(folder) or not os.path.isdir(folder):
            wanted.append(folder)
        elif home_parts.is_prefix(folder):
            split.append(folder)
        else:  # PYTHONPATH, an editable install's checkout, a folder of scripts on PATH
            wanted.append(folder)
            kinds[str(folder)] = "code"
    for root in split:
        wanted.append(root)
        kinds.setdefault(str(root), "parts")
    wanted += [Path(p) for p in sorted(glob.glob(str(home / USER_SITE)))]
    wanted += [home / name for name in GIT_SIDE_FILES]
    wanted += [Path(os.path.abspath(os.path.expanduser(p))) for p in allow_read]
    found = []
    for path in dict.fromkeys(wanted):  # PATH's folders come as written and resolved both
        if _inside(path, home, real) and os.path.lexists(path) and os.path.realpath(path) != real:
            found.append(path)
    return found, kinds


def _inside(path: Path, home: Path, real: str) -> bool:
    return _within(str(path), str(home)) or _within(str(path), real)


_prefixes: dict[tuple, list[Path]] = {}


def prefixes(home: Path, folders: Iterable[Path], places: Iterable[Path]) -> list[Path]:
    """What a program on PATH under the home runs besides its `bin`: the prefix above a PATH
    folder named `bin` (`~/.npm-global/bin` -> `~/.npm-global`, whose `lib/node_modules` its
    scripts load), and where a link in such a folder leads: the prefix above the `bin` it
    leads into (`~/.local/bin/black` -> pipx's or uv's venv of its own), else that file alone.
    Never the home itself or a folder as broad as `~/.local` (BROAD), nor one in a repository
    or below a `.env` (a project's `bin` on PATH shows that folder only); and no PATH folder
    inside a writable `place` is looked into (a command could plant a link there to choose
    what the next one sees). Kept while the folders are unchanged (their mtime)."""
    real_home = os.path.realpath(home)
    writable = [os.path.realpath(place) for place in places]
    scanned: list[tuple[Path, int]] = []
    for folder in dict.fromkeys(folders):  # as written and resolved both (search_path)
        if not (_within(str(folder), str(home)) or _within(str(folder), real_home)):
            continue
        real = os.path.realpath(folder)
        if _within(real, real_home) and not any(_within(real, w) for w in writable):
            try:
                scanned.append((folder, os.stat(folder).st_mtime_ns))
            except OSError:
                continue
    key = (str(home), tuple(scanned))
    if key in _prefixes:
        return _prefixes[key]
    found: list[Path] = []
    for folder, _mtime in scanned:
        if folder.name == "bin":
            found.append(folder.parent)
        try:
            with os.scandir(folder) as entries:
                links = [e.path for e in itertools.islice(entries, MAX_LINKS) if e.is_symlink()]
        except OSError:
            continue
        for link in links:
            target = Path(os.path.realpath(link))
            found.append(target.parent.parent if target.parent.name == "bin" else target)
    broad = {os.path.realpath(home / name) for name in BROAD}
    _prefixes[key] = [
        prefix
        for prefix in dict.fromkeys(found)
        if os.path.realpath(prefix) not in broad and not _in_project(prefix, real_home)
    ]
    return _prefixes[key]


def _in_project(path: Path, home: str) -> bool:
    """Whether `path`, or a folder above it below the home, is a repository or holds a `.env`."""
    for folder in [path, *path.parents]:
        if not _within(os.path.realpath(folder), home) or os.path.realpath(folder) == home:
            return False
        if os.path.lexists(folder / ".git") or os.path.lexists(folder / ".env"):
            return True
    return False


class Viewed(Protocol):
    """What `mounts` reads of a sandbox.Profile (frozen: read-only here too)."""

    @property
    def user_home(self) -> Path: ...
    @property
    def hermes_home(self) -> Path: ...
    @property
    def cache_dir(self) -> Path: ...
    @property
    def programs(self) -> tuple[Path, ...]: ...
    @property
    def search_path(self) -> tuple[Path, ...]: ...
    @property
    def allow_read(self) -> tuple[Path, ...]: ...


def mounts(
    profile: Viewed, places: list[Path], hidden: list[Path], exists: Callable[[Path], bool]
) -> tuple[list[str], Callable[[Path], bool]]:
    """The mounts that empty the home and bind back what commands need (`shown`, git's
    settings as copies made in the private cache folder, outside every writable place), and
    whether a path is in sight after them and the writable `places` (the caller hides only
    those: a hidden path's mount point would show as an empty folder in the empty home)."""
    user_home = profile.user_home
    programs = [*profile.programs, *profile.search_path]
    wanted, kinds = shown(user_home, programs, places, profile.allow_read)
    # The git folders the workspace's repositories use in the home (a linked worktree's main
    # `.git` in a checkout on the import path): in sight, never hidden with that checkout's.
    home = os.path.abspath(user_home)
    repositories = getattr(profile, "repositories", ())
    git = [f for dirs in repositories for f in dirs.folders() if _within(os.path.abspath(f), home)]
    args, roots, left = view_args(user_home, [*wanted, *git], hidden, exists, kinds)
    args += git_binds(user_home, profile.cache_dir / ".git-settings")
    writable = [os.path.realpath(place) for place in [*places, profile.hermes_home]]
    inside = os.path.realpath(user_home)

    def in_sight(path: Path) -> bool:  # what is left out of a folder bound back is not
        real = os.path.realpath(path)
        if not _within(real, inside) or any(_within(real, root) for root in writable):
            return True
        shown = any(_within(real, root) for root in roots)
        return shown and not any(_within(real, out) for out in left)

    return args, in_sight


def view_args(
    user_home: Path,
    paths: Iterable[Path],
    hidden: Iterable[Path],
    exists: Callable[[Path], bool],
    kinds: Mapping[str, str] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """(bubblewrap mounts that empty the home and bind `paths` back read-only, each once and
    none inside another; the real paths they show; the real paths hidden in them). A path reached through a link is bound
    where it is written (and where it leads, when that is in the home), but never one that
    leads into or around a `hidden` place: what is hidden there would show through the other
    name. What stays out of a folder is hidden: by its kind (`shown`), in a "code" folder every
    credential-looking entry (home_parts.code_hidden; one too big to look through is not
    bound), in a "parts" one what home_parts.left_out says; elsewhere the `.env` files at the
    top."""
    kinds = kinds or {}
    home = os.path.realpath(user_home)
    args = ["--tmpfs", home]
    hidden_real: list[str] = []
    pairs: list[tuple[str, str]] = []
    inner: dict[str, list[str]] = {}
    for path in paths:
        if not exists(path):
            continue
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue
        written = os.path.abspath(path)
        if written != real and not hidden_real:
            hidden_real = [os.path.realpath(p) for p in hidden]
        if written != real and any(_within(h, real) or _within(real, h) for h in hidden_real):
            continue
        kind = kinds.get(written) or kinds.get(real)
        if kind == "code":
            walked = home_parts.code_hidden(Path(real))
            if walked is None:
                continue
            inner[real] = [str(p) for p in walked]
        elif kind == "parts" and os.path.isdir(real):
            inner[real] = [str(p) for p in home_parts.left_out(Path(real))]
        pairs.append((real, written))
        if written != real and _within(real, home):
            pairs.append((real, real))
    bound: list[str] = []
    left: list[str] = []
    wanted = {real for real, _ in pairs}
    for source, target in sorted(set(pairs), key=lambda pair: pair[1]):
        if any(_within(target, outer) for outer in bound):
            continue
        bound.append(target)
        # -try: another process may remove it before bubblewrap starts (a toolchain's update)
        names = inner[source] if source in inner else _dotenv_names(source)
        # Never what another wanted path lies in: a checkout on the import path holding the
        # workspace's repository's git folder (a linked worktree's `.git` of the main one).
        names = [
            name
            for name in names
            if not any(_within(w, os.path.join(source, name)) for w in wanted if w != source)
        ]
        args += ["--ro-bind-try", source, target, *_hidden_in(source, target, names)]
        left += [os.path.join(source, name) for name in names]  # `source` is a real path
    return args, [real for real, _ in pairs], left


def _dotenv_names(source: str) -> list[str]:
    """The `.env` files at the top of a folder bound back."""
    try:
        with os.scandir(source) as entries:
            return [e.name for e in itertools.islice(entries, MAX_LINKS) if _dotenv(e.name)]
    except OSError:  # not a folder
        return []


def _hidden_in(source: str, target: str, names: list[str]) -> list[str]:
    """Mounts hiding `names` (relative paths) in a folder bound back: empty and unreadable.
    A link is hidden where it leads in the folder (a mount over it would land there), and not
    at all when that is outside: what lies there is in sight or not on its own."""
    args: list[str] = []
    for name in sorted(names):
        if os.path.islink(os.path.join(source, name)):
            real = os.path.realpath(os.path.join(source, name))
            if not _within(real, os.path.realpath(source)) or not os.path.exists(real):
                continue
            name = os.path.relpath(real, os.path.realpath(source))
        path = os.path.join(target, name)
        if os.path.isdir(os.path.join(source, name)):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


def _dotenv(name: str) -> bool:
    return name == ".env" or name.startswith(".env.")


def git_binds(user_home: Path, copies_in: Path) -> list[str]:
    """git's settings files of the home as their filtered copies (`git_copies`), bound where
    git looks for them: in the emptied home, and over the real ones in a home in sight (the
    work, when hermes-tui started in ~ or /)."""
    args: list[str] = []
    for name, copy in git_copies(user_home, copies_in).items():
        args += ["--ro-bind", str(copy), str(name)]
    return args


def git_copies(user_home: Path, out_dir: Path) -> dict[Path, Path]:
    """The home's git settings files, each as a filtered copy in `out_dir` (outside every
    place a command sees), by where git looks for them; one git cannot read is left out."""
    copies: dict[Path, Path] = {}
    for name in GIT_CONFIGS:
        path = user_home / name
        if not path.is_file():
            continue
        copy = filtered_git_config(path, out_dir)
        if copy is not None:
            copies[path] = copy
    return copies


_made: dict[tuple[str, int, int, int], Path] = {}


def filtered_git_config(path: Path, out_dir: Path) -> Path | None:
    """A copy of the git config at `path` without a credential (`credential_free`), made once
    per version of the file (its identity, size and time); None when git cannot read it."""
    from hermes_tui.core import storage
    from hermes_tui.core.tools import gitconfig

    try:
        info = path.stat()
        if info.st_size > _MAX_CONFIG:
            return None
        key = (str(path), info.st_ino, info.st_size, info.st_mtime_ns)
        if key in _made and _made[key].exists():
            return _made[key]
        data = path.read_bytes()
    except OSError:
        return None
    settings = gitconfig.listing(None, data) if data.strip() else []
    if settings is None:
        return None
    text = render([(s.key, s.value) for s in settings if credential_free(s.key, s.value)])
    digest = hashlib.sha256(f"{path}\0{text}".encode("utf-8", "surrogateescape")).hexdigest()
    copy = out_dir / f"gitconfig-{digest[:20]}"
    if not copy.exists():
        out_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        storage.atomic_write_text(copy, text)
    _made[key] = copy
    return copy


def credential_free(key: str, value: str | None) -> bool:
    """Whether a git setting carries no credential: not a credential helper's or an include's,
    no extra header or cookie file, no user or password in a URL (key or value) nor a token in
    its query, none on a command line (`-u user:pw`, `sshpass`, `--password`, a header), no
    secret-looking name or value (the redaction's recogniser)."""
    from hermes_tui.core.redaction.recognise import scrubbed

    if _CREDENTIAL_KEY.fullmatch(key) or _USERINFO_URL.search(key) or _QUERY_SECRET.search(key):
        return False
    if value is None:
        return True
    if _QUERY_SECRET.search(value) or _CREDENTIAL_ARGUMENT.search(value):
        return False
    name = re.sub(r"[^A-Za-z0-9]+", "_", key).upper()
    return not (_USERINFO_URL.search(value) or scrubbed(name, value))


def render(settings: Iterable[tuple[str, str | None]]) -> str:
    """A git config file setting exactly these (key as `git config --list` names it)."""
    lines: list[str] = []
    section = None
    for key, value in settings:
        head, _, name = key.rpartition(".")
        first, dot, sub = head.partition(".")
        header = f'[{first} "{_escape(sub)}"]' if dot else f"[{first}]"
        if header != section:
            lines.append(header)
            section = header
        lines.append(f"\t{name}" if value is None else f'\t{name} = "{_escape(value)}"')
    return "".join(line + "\n" for line in lines)


def lock_home(home: Path, holders: list[Path]) -> list[str]:
    """Mounts for a writable place that is the user's home or holds it (hermes-tui started in ~
    or /): the home's top level read-only, so no command creates, replaces or edits a startup
    file, tool config or credential there, existing or not (`.profile`, `.bashrc`, `.gitconfig`,
    `.config/autostart`, `.local/bin`, `.ssh/authorized_keys`, …: they run or are trusted later,
    outside the sandbox); its real sub-folders stay writable, but for the dot folders (every one
    of them is such a place) and `bin` (on PATH at the next login). Where a dot file's link
    leads in a writable folder (a dotfiles checkout) is read-only wherever hermes-tui started
    (home_links.py, sandbox.Profile.protected)."""
    try:
        entries = sorted(os.scandir(home), key=lambda entry: entry.name)
    except OSError:
        return []
    args = ["--ro-bind", str(home), str(home)]
    for entry in entries:
        if entry.name.startswith(".") or entry.name in LOCKED_IN_HOME:
            continue
        if entry.is_dir(follow_symlinks=False):  # -try: another process may remove it first
            args += ["--bind-try", entry.path, entry.path]
    return args


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _within(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip(os.sep) + os.sep)
