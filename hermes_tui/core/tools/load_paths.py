"""The user's library and module search paths that lead into a writable place, and what a
command must not leave there: PATH's `.` rule (run_later.shadowing_folders) for the loaders.

`LD_LIBRARY_PATH`, `PYTHONPATH`, `NODE_PATH`, `PERL5LIB`/`PERLLIB`, `RUBYLIB` (and RUBYOPT's
`-I`) and `GEM_PATH` are searched before the system's own folders. An empty entry is the folder
a program starts in, and so is `.` or a relative one (`export PYTHONPATH=$PYTHONPATH:/x` with
it unset gives `:/x`): started in the project, every program the user runs there later loads
what lies there first, outside the sandbox (attack8's A8-4: a command's `libselinux.so.1` ran
in the user's next `ls`, its `json.py` in any Python tool). An absolute entry inside the
working directory or a writable root does the same wherever the user is.

Each such folder is looked at before and after every command: an entry the command left
there, where none was, under a name the loader would otherwise find in a later place (a
soname under /lib and /usr/lib, also in ld.so's hardware sub-folders; a top-level module of
the standard library or site-packages, `sitecustomize`, `hermes_tui`; a Perl, Ruby or Node
module of the system's; GEM_PATH's `specifications/`; what the variable's later entries hold)
is moved aside and said, and so is the `__init__` that makes a user's plain folder a package.
What was there before stays, edited or not (project code). The same rule covers the folders
of hermes-tui's own import path (`APP_PATH`, own_code.py). CLASSPATH is only warned about
(Java's classes of the system come first; `.` is its default). Relative entries are resolved
against the working directory (in a sub-folder they name another place: not covered). The
names are listed once per process, only for a variable that has such an entry.
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from hermes_tui.core.records import datarecord
from hermes_tui.core.tools.folder_rights import writable_again
from hermes_tui.core.tools.own_code import PACKAGE

if TYPE_CHECKING:  # the sweep's modules: not imported by a start that only warns
    from hermes_tui.core.tools.sweep import Identity

APP_PATH = "hermes-tui's import path"
# What each variable's loader is, for what the user is told.
LOADERS = {
    "LD_LIBRARY_PATH": "every program's libraries (ld.so)",
    "PYTHONPATH": "Python's modules",
    "NODE_PATH": "Node's modules",
    "PERL5LIB": "Perl's modules",
    "PERLLIB": "Perl's modules",
    "RUBYLIB": "Ruby's libraries",
    "RUBYOPT": "Ruby's libraries (-I)",
    "GEM_PATH": "RubyGems' gems",
    "CLASSPATH": "Java's classes",
    # Not a variable: the folders of hermes-tui's own import path (own_code.import_folders).
    APP_PATH: "hermes-tui's own imports, at its next start",
}
PYTHON = ("PYTHONPATH", APP_PATH)
# ld.so also looks in these sub-folders of each LD_LIBRARY_PATH entry (`LD_DEBUG=libs`):
# glibc-hwcaps/<level>/ and, before glibc 2.37, the legacy hardware-capability folders.
HWCAPS = ("glibc-hwcaps", "tls", "haswell", "avx512_1", "x86_64", "i686", "sse2", "xeon_phi")
# Top-level names of badly packaged wheels (a `tests/` in site-packages) that no program
# imports: a project's own `tests/` is not a shadow.
NOT_IMPORTED = frozenset(
    {"test", "tests", "testing", "docs", "doc", "examples", "example", "scripts", "benchmarks"}
)
PYTHON_SUFFIXES = (".py", ".pyc", ".abi3.so", ".so")
NODE_SUFFIXES = (".js", ".json", ".node", ".cjs", ".mjs")
GEM_FOLDERS = frozenset({"specifications", "gems", "extensions"})


@datarecord
class LoadFolder:
    """A folder a loader searches before the system's, which commands may write, and the
    names it would be found under there (`names` empty: whatever lies in it)."""

    variable: str
    folder: Path
    names: frozenset[str]


def entries(environ: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Each variable's entries as written (an empty one kept: it is the current folder), read
    once when hermes-tui starts, as the user's shell has them."""
    found: dict[str, tuple[str, ...]] = {}
    for name in LOADERS:
        if name == APP_PATH:
            continue
        value = environ.get(name)
        if name == "RUBYOPT":
            found[name] = tuple(_ruby_includes(value or ""))
        elif value is not None and value != "":
            # (ld.so's `$ORIGIN`, `$LIB`, `$PLATFORM` name the program's own places, not cwd)
            found[name] = tuple(e for e in value.split(os.pathsep) if "$" not in e)
    return {name: written for name, written in found.items() if written}


def _ruby_includes(options: str) -> list[str]:
    words, found = options.split(), []
    for index, word in enumerate(words):
        if word == "-I" and index + 1 < len(words):
            found += words[index + 1].split(os.pathsep)
        elif word.startswith("-I") and word != "-I":
            found += word[2:].split(os.pathsep)
    return found


def _resolved(entry: str, workdir: Path) -> str:
    """An entry as a real folder: an empty one or a relative one against the working
    directory, where the user's programs start."""
    return os.path.realpath(entry if os.path.isabs(entry) else os.path.join(workdir, entry))


def exposed(
    written: Mapping[str, tuple[str, ...]], places: Iterable[Path], workdir: Path
) -> list[tuple[str, str, str]]:
    """(variable, entry as written, the folder it leads to) for each entry that lies in a
    writable place (the working directory itself, for an empty or `.` entry)."""
    real_places = [os.path.realpath(place) for place in places]
    found = []
    for variable, items in written.items():
        for entry in items:
            real = _resolved(entry, workdir)
            if any(real == place or _inside(real, place) for place in real_places):
                found.append((variable, entry, real))
    return found


def folders(
    written: Mapping[str, tuple[str, ...]], places: Iterable[Path], workdir: Path
) -> list[LoadFolder]:
    """The writable folders of the search paths, each with the names a command must not leave
    there: the loader's system names and those found in the variable's later entries outside
    the writable places. CLASSPATH is not among them (warned about only)."""
    places = list(places)
    real_places = [os.path.realpath(place) for place in places]
    found: list[LoadFolder] = []
    for variable, items in written.items():
        if variable == "CLASSPATH":
            continue
        order = [_resolved(entry, workdir) for entry in items]
        for index, real in enumerate(order):
            if not any(real == place or _inside(real, place) for place in real_places):
                continue
            if any(f.variable == variable and str(f.folder) == real for f in found):
                continue
            later = [
                folder
                for folder in order[index + 1 :]
                if not any(folder == p or _inside(folder, p) for p in real_places)
            ]
            names = system_names(variable) | _names_in(variable, tuple(later))
            found.append(LoadFolder(variable, Path(real), frozenset(names)))
    return found


# ---- the names each loader finds in the system's places ----------------------------------


@cache
def system_names(variable: str) -> frozenset[str]:
    """What the loader behind `variable` finds after the user's entries: listed once."""
    if variable == APP_PATH:
        return system_names("PYTHONPATH")
    if variable == "LD_LIBRARY_PATH":
        return _names_in(variable, tuple(_library_folders()))
    if variable in PYTHON:
        # hermes-tui's own package too: an editable install's is not in site-packages, and a
        # `src/hermes_tui/` on PYTHONPATH would be the app at its next start (attack9's A9-16).
        names = set(sys.stdlib_module_names) | {"sitecustomize", "usercustomize", "hermes_tui"}
        names |= _names_in(variable, tuple(_site_folders()))
        return frozenset(names - NOT_IMPORTED)
    if variable == "NODE_PATH":
        home = os.path.expanduser("~")
        where = [os.path.join(home, ".node_modules"), os.path.join(home, ".node_libraries")]
        return _names_in(variable, (*where, "/usr/lib/node", "/usr/local/lib/node"))
    if variable in ("PERL5LIB", "PERLLIB"):
        patterns = ("/etc/perl", "/usr/share/perl5", "/usr/share/perl/*", "/usr/lib*/perl5")
        patterns += ("/usr/lib/*/perl*/*", "/usr/lib/*/perl-base", "/usr/local/*/perl/*")
        patterns += ("/usr/local/lib/*/perl/*", "/usr/share/perl5/*_perl", "/usr/lib64/perl5/*")
        return _names_in(variable, tuple(p for pat in patterns for p in glob.glob(pat)))
    if variable in ("RUBYLIB", "RUBYOPT"):
        patterns = ("/usr/lib/ruby/*", "/usr/lib/ruby/*/*", "/usr/lib/*/ruby/*", "/usr/share/ruby")
        patterns += ("/usr/local/lib/site_ruby/*", "/usr/lib64/ruby/*", "/usr/share/ruby/*")
        return _names_in(variable, tuple(p for pat in patterns for p in glob.glob(pat)))
    if variable == "GEM_PATH":
        return GEM_FOLDERS
    return frozenset()


def _library_folders() -> list[str]:
    folders = ["/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"]
    folders += glob.glob("/lib/*-linux-gnu*") + glob.glob("/usr/lib/*-linux-gnu*")
    for conf in glob.glob("/etc/ld.so.conf.d/*.conf"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            lines = Path(conf).read_text().splitlines()
            folders += [line.strip() for line in lines if line.strip().startswith("/")]
    return folders


def _site_folders() -> list[str]:
    import site

    folders = [*site.getsitepackages(), site.getusersitepackages()]
    for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages"):
        folders += glob.glob(pattern)
    return [*folders, "/usr/lib/python3/dist-packages"]


@cache  # per process: a later entry's or the system's listing (the cuda folder's libraries)
def _names_in(variable: str, folders: tuple[str, ...]) -> frozenset[str]:
    names: set[str] = set()
    for folder in folders:
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                with contextlib.suppress(OSError):
                    name = key(variable, entry.name, entry.is_dir())
                    if variable in PYTHON and entry.is_dir():
                        name = name if _python_inits(Path(entry.path)) else None
                    if name is not None:
                        names.add(name)
    return frozenset(names)


def key(variable: str, name: str, is_dir: bool) -> str | None:
    """The name under which the loader finds an entry `name` of a folder, or None when it
    finds nothing there (a Python folder counts once it has an `__init__`: without, it is a
    namespace portion, which a later module of that name wins over)."""
    if variable == "LD_LIBRARY_PATH":
        return name if not is_dir and ".so" in name else None
    if variable in PYTHON:
        if is_dir:
            return name
        return name.split(".")[0] if name.endswith(PYTHON_SUFFIXES) else None
    if variable == "NODE_PATH":
        return (
            name if is_dir else (name.rsplit(".", 1)[0] if name.endswith(NODE_SUFFIXES) else None)
        )
    if variable in ("PERL5LIB", "PERLLIB"):
        return name if is_dir else (name[:-3] if name.endswith(".pm") else None)
    if variable in ("RUBYLIB", "RUBYOPT"):
        return (
            name if is_dir else (name.rsplit(".", 1)[0] if name.endswith((".rb", ".so")) else None)
        )
    if variable == "GEM_PATH":
        return name if is_dir else None
    return None


def _python_inits(folder: Path) -> list[Path]:
    return [
        folder / f"__init__{suffix}"
        for suffix in PYTHON_SUFFIXES
        if (folder / f"__init__{suffix}").exists()
    ]


# ---- before and after a command --------------------------------------------------------------

# What lies under a loadable name: its identity, and (a Python package) its `__init__` files'.
Loaded = tuple["Identity | None", tuple["Identity | None", ...]]


def loadable(found: Iterable[LoadFolder]) -> dict[Path, Loaded]:
    """What lies in each folder under one of its names (ld.so's sub-folders searched too);
    each folder listed once, however many variables lead to it."""
    from hermes_tui.core.tools.sweep import identity

    seen: dict[Path, Loaded] = {}
    listings: dict[Path, list[tuple[str, bool]]] = {}
    for load in found:
        if load.folder not in listings:
            listings[load.folder] = _listing(load.folder)
        for path in _candidates(load, listings[load.folder]):
            inits = _python_inits(path) if load.variable in PYTHON and path.is_dir() else []
            seen[path] = (identity(path), tuple(identity(init) for init in inits))
    return seen


def _listing(folder: Path) -> list[tuple[str, bool]]:
    # A command may leave it unlistable (`chmod 311`: a loader opens a name with search
    # permission alone): the user's own folder gets its owner's rights back first (A9-10).
    writable_again(folder)
    try:
        with os.scandir(folder) as listed:
            return [(entry.name, _is_dir(entry)) for entry in listed]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()  # a link to a folder counts: the loader follows it
    except OSError:
        return False


def _candidates(load: LoadFolder, listing: list[tuple[str, bool]]) -> list[Path]:
    found = []
    for name, is_dir in listing:
        if load.variable == "LD_LIBRARY_PATH" and is_dir and name in HWCAPS:
            found += _libraries_below(load.folder / name, load.names, depth=3)
        elif key(load.variable, name, is_dir) in load.names:
            found.append(load.folder / name)
    return found


def _libraries_below(folder: Path, names: frozenset[str], depth: int) -> list[Path]:
    """The libraries under one of ld.so's sub-folders (`glibc-hwcaps/x86-64-v3/libc.so.6`)."""
    found = []
    writable_again(folder)
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name in names and not entry.is_dir():
                found.append(Path(entry.path))
            elif depth > 1 and entry.is_dir(follow_symlinks=False):
                found += _libraries_below(Path(entry.path), names, depth - 1)
    return found


def sweep(
    found: Iterable[LoadFolder], before: Mapping[Path, Loaded], quarantine: Path
) -> list[tuple[Path, Path]]:
    """After a command: each entry it left under a loadable name where none was (in a Python
    folder of the user's that was no package, the `__init__` it added), moved into
    `quarantine`. What lay there before stays, changed or not: the project's own module of
    that name shadowed the system's already, and editing it is editing project code (a
    `git checkout` or `sed -i` replaces the file)."""
    from hermes_tui.core.tools.sweep import move_aside

    moved: list[tuple[Path, Path]] = []
    for path, now in loadable(found).items():
        was = before.get(path)
        folder = now[0] is not None and now[0][2] == stat.S_IFDIR
        if was is None:
            if not folder or now[1]:  # (a Python folder without `__init__` imports nothing)
                moved.append((path, move_aside(path, quarantine)))
        elif folder and not was[1] and now[1]:
            for init in _python_inits(path):  # the folder is the user's: only what made it one
                moved.append((init, move_aside(init, quarantine)))
    return moved


def shadows(
    variable: str, folder: PurePosixPath, path: PurePosixPath, names: frozenset[str]
) -> bool:
    """Whether a file written at `path` would be loaded from `folder` under one of `names`
    (the files tools ask first): `json.py` there, or a package's `json/__init__.py`."""
    if path.parent == folder:
        return key(variable, path.name, False) in names
    return (
        variable in PYTHON
        and path.parent.parent == folder
        and path.parent.name in names
        and path.name.startswith("__init__.")
    )


def reason(variable: str) -> str:
    """What loads a file the files tools would write in a folder of `variable`."""
    where = (
        f"a folder of {variable}"
        if variable == APP_PATH
        else f"a folder {variable} leads to (an empty, `.` or relative entry is the folder a "
        "program starts in)"
    )
    return f"{where}: {LOADERS[variable]} would load it ahead of the system's, outside the sandbox"


def warning(written: Mapping[str, tuple[str, ...]], places: Iterable[Path], workdir: Path) -> str:
    """What to tell the user at start (and in doctor) when an entry leads into a writable
    place; empty when none does."""
    # The checkout hermes-tui itself runs from (PYTHONPATH=. in its own repository): doctor's
    # own-code check says what that means (own_code.py).
    checkout = os.path.realpath(PACKAGE.parent)
    found = [item for item in exposed(written, places, workdir) if item[2] != checkout]
    if not found:
        return ""
    said = ", ".join(
        dict.fromkeys(f"{v}={'(empty)' if e == '' else e} ({LOADERS[v]})" for v, e, _ in found)
    )
    return (
        f"{said}: an empty, `.` or relative entry is the folder a program starts in, so every "
        "program you run here loads what lies in the project first, outside the sandbox (an "
        "entry inside a writable place, wherever you are); what a command leaves there under a "
        "system library's or module's name is moved aside, but anything else there is project "
        "code your programs may load: drop the entry (`export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}/x`)"
    )


def _inside(path: str, place: str) -> bool:
    return path != place and path.startswith(place.rstrip(os.sep) + os.sep)
