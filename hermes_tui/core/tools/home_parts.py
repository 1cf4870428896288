"""Which parts of a folder the emptied home binds back for commands, and what stays out of it.

A folder bound back whole brings whatever the user keeps beside the programs (attack9's A9-1:
`~/.pulumi/credentials.json` beside `~/.pulumi/bin`, `~/.cargo/config.toml`'s registry token,
an nvm node's global `etc/npmrc`, another project's `.envrc`, `backend/.env` and `.git/config`
under a PYTHONPATH folder). So home_view.py binds such a folder with what
stays out of it hidden (an empty read-only tmpfs over a folder, /dev/null over a file):
- of a *prefix* (a folder holding `bin/`, no project's checkout: `~/.cargo`, an nvm node, a
  venv, a JDK): `etc` and `config`, dot entries, credential-looking names, and every top-level
  file but those an interpreter reads there (`PREFIX_FILES`); its other sub-folders are what
  its programs load (Java's `conf`, Go's `src` and `pkg`, conda's `ssl`, pulumi's `plugins`);
- of a toolchain's root (`~/.nvm`, `~/.rustup`, `~/.pyenv`): credential-looking names, and
  the same for each prefix found in it down to `MAX_DEPTH` (`versions/node/<v>`), never looking
  into a prefix's payload (`lib`, `share`: `PAYLOAD`);
- of an import-path or PATH folder that is no prefix and no site-packages (PYTHONPATH, an
  editable install's checkout, `~/src/tool`): every `.git`, `.env*`, `.envrc` and
  credential-looking entry at any depth, found by a bounded walk (`code_hidden`); one too big
  to walk is not bound at all (terminal.allow_read binds it as it is).
Each walk is kept per process while the folders it looked into keep their mtime.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

# Top-level files of a prefix its programs read: a venv's python finds its site-packages by
# pyvenv.cfg; pyenv's global version; Go's settings and version; a JDK's `release`.
PREFIX_FILES = frozenset({"pyvenv.cfg", "version", "go.env", "VERSION", "release"})
# Sub-folders of a prefix left out: settings, where a global npmrc, pip.conf or gitconfig lies.
PREFIX_LEFT_OUT = frozenset({"etc", "config"})
# Folders whose content is standard prefix payload: bound whole, never looked into.
PAYLOAD = re.compile(
    r"bin|sbin|lib\w*|libexec|share|include|man|node_modules|site-packages|repository"
)
# A name no command needs to read in a folder bound for its programs: version control (remote
# URLs with tokens), dotenv and direnv files, package managers' and clouds' credential files;
# a file named for a secret only without an extension or with a data file's (`token.py`,
# `secrets.py` are the standard library's modules).
_DATA = r"(\.(json|ya?ml|toml|ini|txt|cfg|conf|env|properties|xml|csv))?"
CREDENTIAL_NAME = re.compile(
    r"\.git|\.env(\..*)?|\.envrc|\.?npmrc|\.yarnrc(\.yml)?|\.netrc|\.pypirc|pip\.(conf|ini)"
    r"|\.?condarc|\.pgpass|\.git-credentials|\.dockercfg|auth\.json|id_(rsa|dsa|ecdsa|ed25519)"
    r"|.*\.(pem|key|p12|pfx|jks|keystore|tfvars)|.*\.tfstate(\..*)?|service[-_]account.*\.json"
    rf"|.*(credential|secret|token|password)s?{_DATA}",
    re.I,
)
# A folder of that kind (`tokens/`, `secrets/` may be packages: only dot folders count).
CREDENTIAL_FOLDER = re.compile(
    r"\.git|\.env(\..*)?|\.(secrets?|credentials|ssh|aws|gnupg|docker|kube|azure|gcloud)", re.I
)
# Beside a `bin`, these make a folder a project's checkout, not an installation prefix.
PROJECT_MARKS = frozenset({".git", "pyproject.toml", "setup.py", "package.json", "Cargo.toml"})
# Code folders: not walked into (big, and what they hold is packages, not the user's secrets).
NOT_WALKED = frozenset({"node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", ".cache", "site-packages"})  # fmt: skip
MAX_DEPTH = 4  # of a toolchain, below its root (`.volta/tools/image/node/<version>`)
MAX_TOOLCHAIN_ENTRIES = 4000
MAX_CODE_ENTRIES = 20000  # of an import-path folder: one with more is not bound
MAX_CODE_DEPTH = 12


def credential_name(name: str, folder: bool = False) -> bool:
    """Whether an entry called `name` (a `folder` or not) stays out of a folder bound for its
    programs."""
    return (CREDENTIAL_FOLDER if folder else CREDENTIAL_NAME).fullmatch(name) is not None


def is_prefix(folder: Path) -> bool:
    """Whether `folder` is an installation prefix (`~/.cargo`, a node of nvm's, a venv, a
    JDK): it holds a `bin` folder, and is no project's checkout (`PROJECT_MARKS`)."""
    if not os.path.isdir(folder / "bin"):
        return False
    return not any(os.path.lexists(folder / mark) for mark in PROJECT_MARKS)


def _prefix(names: list[str], has_bin: bool) -> bool:
    return has_bin and not PROJECT_MARKS.intersection(names)


def is_site_packages(path: Path) -> bool:
    """Whether `path` lies in an interpreter's library (site-packages, a stdlib folder)."""
    return (
        re.search(r"/(site|dist)-packages(/|$)|/lib(64)?/python[\d.]+(/|$)", str(path)) is not None
    )


def kinds(programs: list[Path], prefixes: list[Path]) -> dict[str, str]:
    """How what stays out of each folder bound back is found (home_view.view_args): "parts"
    for a prefix (`is_prefix`, and the `prefixes` of PATH's programs), "code" for another
    folder of programs or imports; none for site-packages."""
    found: dict[str, str] = {}
    for folder in programs:
        if not is_site_packages(folder) and os.path.isdir(folder):
            found[str(folder)] = "parts" if is_prefix(folder) else "code"
    for prefix in prefixes:
        found.setdefault(str(prefix), "parts")
    return found


_walks: dict[str, tuple[tuple[tuple[str, int], ...], list[Path] | None]] = {}


def _kept(key: str) -> tuple[bool, list[Path] | None]:
    """(whether a walk is kept for `key` and every folder it looked into is unchanged, its
    result)."""
    cached = _walks.get(key)
    if cached is None:
        return False, None
    stat = os.stat
    try:  # each command checks every folder looked into: kept tight
        if [stat(folder).st_mtime_ns for folder, _ in cached[0]] != [m for _, m in cached[0]]:
            return False, None
    except OSError:
        return False, None
    return True, cached[1]


def left_out(root: Path) -> list[Path]:
    """What stays out of `root` (a prefix, a toolchain's root) bound back whole: its entries
    the module's rules leave out, as paths relative to it, found to MAX_DEPTH."""
    if PAYLOAD.fullmatch(root.name) and not is_prefix(root):  # `~/.cargo/bin`, `~/go/bin`
        return []
    kept, found = _kept(str(root))
    if kept and found is not None:
        return found
    looked: list[tuple[str, int]] = []
    found = []
    _walk(root, Path(), looked, [MAX_TOOLCHAIN_ENTRIES], found)
    _walks[str(root)] = (tuple(looked), found)
    return found


def _walk(
    root: Path, rel: Path, looked: list[tuple[str, int]], budget: list[int], out: list[Path]
) -> None:
    """Add to `out` what stays out of the folder `root/rel`, and of the folders below it."""
    folder = root / rel
    mtime = _mtime(str(folder))
    try:
        with os.scandir(folder) as scan:
            entries = list(itertools.islice(scan, max(budget[0], 0)))
    except OSError:
        return
    budget[0] -= len(entries)
    looked.append((str(folder), mtime))
    has_bin = any(e.name == "bin" and e.is_dir() for e in entries)
    prefix = _prefix([e.name for e in entries], has_bin)
    for entry in sorted(entries, key=lambda e: e.name):
        name = entry.name
        is_dir = entry.is_dir()  # a link to a folder (sdkman's `current`) counts
        if credential_name(name, is_dir) or (
            prefix
            and (
                name.startswith(".")
                or (is_dir and name in PREFIX_LEFT_OUT)
                or (not is_dir and name not in PREFIX_FILES)
            )
        ):
            out.append(rel / name)
        elif not (
            not is_dir
            or entry.is_symlink()
            or PAYLOAD.fullmatch(name)
            or len(rel.parts) >= MAX_DEPTH
            or budget[0] <= 0
        ):
            _walk(root, rel / name, looked, budget, out)


def code_hidden(folder: Path) -> list[Path] | None:
    """The `.git`, `.env*`, `.envrc` and credential-looking entries at any depth of an
    import-path folder (relative to it), not looking into venvs and caches; None when it holds
    more than MAX_CODE_ENTRIES entries (not bound: what lies beyond was never looked at)."""
    key = "code:" + str(folder)
    kept, hidden_before = _kept(key)
    if kept:
        return hidden_before
    looked: list[tuple[str, int]] = []
    hidden: list[Path] = []
    budget = MAX_CODE_ENTRIES
    pending = [(folder, 0)]
    while pending:
        current, depth = pending.pop()
        mtime = _mtime(str(current))
        try:
            with os.scandir(current) as scan:
                entries = list(scan)
        except OSError:
            continue
        looked.append((str(current), mtime))
        budget -= len(entries)
        if budget < 0:
            _walks[key] = (tuple(looked), None)
            return None
        for entry in entries:
            if credential_name(entry.name, entry.is_dir()):
                hidden.append(Path(entry.path).relative_to(folder))
            elif (
                entry.is_dir(follow_symlinks=False)
                and entry.name not in NOT_WALKED
                and depth < MAX_CODE_DEPTH
                and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
            ):
                pending.append((Path(entry.path), depth + 1))
    hidden.sort()
    _walks[key] = (tuple(looked), hidden)
    return hidden


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1
