"""What a sandboxed command sees of the user's home: an empty place, and what commands need.

A list of hidden credential files never ends (attack7: 26 everyday ones no list named, another
Hermes home's `.env`, other projects' `.env`, the eval runner's copies of the home's secrets).
So the home is inverted: an empty read-only tmpfs lies over it, and only this is bound back
(sandbox.bwrap_argv adds the writable places, the hermes home and the hidden paths after it):
- the folders the programs a command runs live in (`Profile.programs`: the interpreter's
  prefixes and import path, PATH's folders, read at start) and PATH's folders as written;
- toolchain roots those programs need beside their `bin` (TOOLCHAINS: a rustup proxy in
  `~/.cargo/bin` runs what `~/.rustup` holds, a pyenv shim what `~/.pyenv` holds, ...) and the
  user's site-packages (`~/.local/lib/python*`);
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
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

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


def other_homes_hidden(
    user_home: Path, hermes_home: Path, unreadable_in_home: Iterable[str]
) -> list[Path]:
    """What to hide of the other hermes homes: one apart from the current home whole; one
    holding it (an eval arm's home lies in `<home>/evals/`) its secrets and stores, but for
    the way down to the current one."""
    current = os.path.realpath(hermes_home)
    hidden: list[Path] = []
    for home in known_homes(user_home):
        real = os.path.realpath(home)
        if real == current:
            continue
        if not _within(current, real):
            hidden.append(home)
            continue
        names = [name for name in unreadable_in_home if not _within(current, f"{real}/{name}")]
        hidden += [home / name for name in names]
    return hidden


def shown(
    user_home: Path,
    programs: Iterable[Path],
    search_path: Iterable[Path],
    allow_read: Iterable[Path],
) -> list[Path]:
    """The paths under the home bound back read-only, as written (links are the caller's)."""
    home = Path(os.path.abspath(user_home))
    wanted = [*programs, *search_path, *(home / name for name in TOOLCHAINS)]
    wanted += [Path(p) for p in sorted(glob.glob(str(home / USER_SITE)))]
    wanted += [home / name for name in GIT_SIDE_FILES]
    wanted += [Path(os.path.abspath(os.path.expanduser(p))) for p in allow_read]
    real = os.path.realpath(home)
    return [
        p
        for p in dict.fromkeys(wanted)
        if (_within(str(p), str(home)) or _within(os.path.realpath(p), real))
        and os.path.realpath(p) != real
    ]


def mounts(
    user_home: Path,
    programs: Iterable[Path],
    allow_read: Iterable[Path],
    copies_in: Path,
    places: Iterable[Path],
    hidden: list[Path],
    exists: Callable[[Path], bool],
) -> tuple[list[str], Callable[[Path], bool]]:
    """The mounts that empty the home and bind back what commands need (`shown`, the git
    copies made in `copies_in`), and whether a path is in sight after them and the `places`
    (the caller hides only those: a hidden path's mount point would show as an empty folder
    in the empty home)."""
    wanted = shown(user_home, programs, (), allow_read)
    args, real = view_args(user_home, wanted, hidden, exists)
    args += git_binds(user_home, copies_in)
    roots = [*real, *(os.path.realpath(place) for place in places)]
    inside = os.path.realpath(user_home)

    def in_sight(path: Path) -> bool:
        real = os.path.realpath(path)
        return not _within(real, inside) or any(_within(real, root) for root in roots)

    return args, in_sight


def view_args(
    user_home: Path,
    paths: Iterable[Path],
    hidden: Iterable[Path],
    exists: Callable[[Path], bool],
) -> tuple[list[str], list[str]]:
    """(bubblewrap mounts that empty the home and bind `paths` back read-only, each once and
    none inside another; the real paths they show). A path reached through a link is bound
    where it is written (and where it leads, when that is in the home), but never one that
    leads into or around a `hidden` place: what is hidden there would show through the other
    name."""
    home = os.path.realpath(user_home)
    args = ["--tmpfs", home]
    hidden_real = [os.path.realpath(p) for p in hidden]
    pairs: list[tuple[str, str]] = []
    for path in paths:
        if not exists(path):
            continue
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue
        written = os.path.abspath(path)
        if written != real and any(_within(h, real) or _within(real, h) for h in hidden_real):
            continue
        pairs.append((real, written))
        if written != real and _within(real, home):
            pairs.append((real, real))
    bound: list[str] = []
    for source, target in sorted(set(pairs), key=lambda pair: pair[1]):
        if any(_within(target, outer) for outer in bound):
            continue
        bound.append(target)
        args += ["--ro-bind", source, target]
    return args, [real for real, _ in pairs]


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
    no extra header or cookie file, no user or password in a URL (key or value), no
    secret-looking name or value (the redaction's recogniser)."""
    from hermes_tui.core.redaction.recognise import scrubbed

    if _CREDENTIAL_KEY.fullmatch(key) or _USERINFO_URL.search(key):
        return False
    if value is None:
        return True
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
    of them is such a place) and `bin` (on PATH at the next login). A dot file that is a link
    to a file in a writable folder (a dotfiles checkout) keeps that file read-only too."""
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
    for entry in entries:
        if entry.name.startswith(".") and entry.is_symlink():
            target = os.path.realpath(entry.path)
            held = any(_within(target, os.path.realpath(place)) for place in holders)
            if held and os.path.exists(target):
                args += ["--ro-bind-try", target, target]
    return args


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _within(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip(os.sep) + os.sep)
