"""What a sandboxed command sees outside the user's home: the system, and the work.

The home is emptied (home_view.py), but a project's place is not always the home: GitHub
Codespaces and dev containers put every repository under `/workspaces`, servers keep theirs
under `/srv` or `/var/www`, WSL puts the Windows home (its own `.aws`, `.ssh`, `.azure`,
browser profiles) under `/mnt/c/Users/<name>`, a machine keeps many checkouts in `/work` or
`/data` (attack9's A9-14: another project's `.env` there reached the provider). So every folder
at the top of `/` that is not the system's (SYSTEM: programs, libraries, settings, the kernel's
and the sandbox's own file systems) is emptied the way the home is, an empty tmpfs made
read-only once everything is mounted in it, and so are the places inside the system where
sites and removable drives live (EMPTIED_IN_SYSTEM); a readable file at the top of `/` (a
container image's `/.env`) is hidden too, /dev/null over it. Bound back read-only into them,
with home_view's own rules (`home_view.shown` and `home_view.view_args`: a `.env` at the top
of a folder bound back stays hidden, a link is never followed into a hidden place):
- the folders the programs a command runs live in: the running Python's prefixes and import
  path (the app's venv and checkout), PATH's folders and the prefix a program there lives in
  (a venv in `/srv/venvs/x`, a toolchain in `/data/tools`; never one that looks like a home,
  HOME_MARKS: `/mnt/c/Users/me/bin` on PATH is no reason to show the Windows home), the Python
  that installs the socket filter and socat, and `terminal.allow_read`;
- the repositories' git folders (a linked worktree's `.git` file leads to the main checkout's
  `.git/worktrees/<name>` and its common folder), the user's external skills folders and the
  files the MCP servers start from (`Profile.locked`);
- the repository the working directory lies in, when it is not its top (`enclosing`: started
  in a monorepo's `packages/api`, git and the hoisted `node_modules` are above it);
- the user's home when it lies there and is not emptied itself (a system folder, or the work).
The working directory, the writable roots and the cache are bound after, writable, so the way
down to them shows their parents as empty folders: `ls ..` lists nothing of the other checkouts.
Not emptied: a folder that is a writable place or lies inside one (started in `/` or `/work`:
it is the work), nor one the user cannot read (`/root` to others: it shows nothing anyway).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from hermes_tui.core.records import datarecord
from hermes_tui.core.tools import gitdirs, home_parts, home_view
from hermes_tui.core.tools.gitdirs import GitDirs

# Top-level folders of `/` kept as they are: the system's programs, libraries and settings
# (`/opt` too: `/usr/bin` links and ld.so.conf lead into it, `/opt/google/chrome`, ROCm's
# libraries; an app deployed in `/opt/<app>` stays readable: terminal.deny_read), package
# stores (`/nix`, `/gnu`, `/snap`), the kernel's file systems and those the sandbox makes
# itself (`/dev`, `/proc`, `/tmp`: private; `/run`: its sockets hidden by sandbox.py).
SYSTEM = frozenset(
    {
        "bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt", "var", "boot",
        "dev", "proc", "sys", "run", "tmp", "nix", "gnu", "snap", "selinux", "efi", "sysroot",
        "ostree",
    }
)  # fmt: skip
# Inside the system's folders, where projects and other people's files live: emptied as well
# (`/var/home`: the homes of Fedora's atomic desktops, `/home` being a link to it).
EMPTIED_IN_SYSTEM = ("/var/www", "/var/home", "/run/media")


# What a home holds and a program's prefix does not.
HOME_MARKS = (".ssh", ".aws", ".bashrc", ".profile", ".gitconfig", ".config", "AppData",
              "NTUSER.DAT", "Desktop")  # fmt: skip


class Viewed(home_view.Viewed, Protocol):
    """What `view` reads of a sandbox.Profile: home_view.Viewed, and what lies beyond it."""

    @property
    def workdir(self) -> Path: ...
    @property
    def repositories(self) -> tuple[GitDirs, ...]: ...
    @property
    def locked(self) -> tuple[Path, ...]: ...
    @property
    def python(self) -> str | None: ...
    @property
    def socat(self) -> str | None: ...


@datarecord
class View:
    """The mounts that empty what lies outside the system and the home (`args`, before the
    home's and the writable places'), those that make each emptied folder read-only once
    everything is mounted in it (`remount`, last), and whether a path is in sight after them."""

    args: list[str]
    remount: list[str]
    in_sight: Callable[[Path], bool]


_listed: dict[int, tuple[list[str], list[str]]] = {}


def outside_system() -> tuple[list[str], list[str]]:
    """(the folders to empty, the readable files at the top of `/` to hide), as real paths:
    every real folder at the top of `/` not in SYSTEM and EMPTIED_IN_SYSTEM's that exist, each
    one the user can read. Kept while `/` is unchanged (its mtime)."""
    try:
        stamp = os.stat(os.sep).st_mtime_ns
    except OSError:
        return [], []
    if stamp in _listed:
        return _listed[stamp]
    folders: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(os.sep) as entries:
            found = sorted(entries, key=lambda entry: entry.name)
    except OSError:
        found = []
    for entry in found:
        if entry.name in SYSTEM or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False) and os.access(entry.path, os.R_OK | os.X_OK):
            folders.append(entry.path)
        elif _readable_file(entry):
            files.append(entry.path)
    for path in EMPTIED_IN_SYSTEM:
        if os.path.isdir(path) and not os.path.islink(path) and os.access(path, os.R_OK):
            folders.append(path)
    _listed.clear()
    _listed[stamp] = (folders, files)
    return folders, files


def emptied(user_home: Path, places: Iterable[Path]) -> list[str]:
    """The folders `outside_system` names that are emptied for commands working in `places`:
    all but the user's home (home_view's) and one a place is or lies in (the work)."""
    real = [os.path.realpath(place) for place in places]
    home = os.path.realpath(user_home)
    return [
        root
        for root in outside_system()[0]
        if root != home and not any(_within(root, place) for place in real)
    ]


def enclosing(workdir: Path) -> list[Path]:
    """The repository the working directory lies in, below its top (started in a monorepo's
    `packages/api`: git, the hoisted `node_modules`, the workspace's venv are above it), and
    its git folders; none when the working directory is a repository's top itself."""
    real = Path(os.path.realpath(workdir))
    if os.path.lexists(real / ".git"):
        return []
    for folder in real.parents:
        if folder.parent == folder:
            return []
        if os.path.lexists(folder / ".git"):
            if _home_like(folder):  # a home kept in git (dotfiles): not the work's
                return []
            dirs = gitdirs.resolve(folder)
            return [folder, *(dirs.folders() if dirs is not None else [])]
    return []


def view(
    profile: Viewed, places: Iterable[Path], hidden: list[Path], exists: Callable[[Path], bool]
) -> View:
    """The mounts that empty every folder `outside_system` names but those a writable place is
    or lies in, binding back read-only what commands need there (the module's list)."""
    places = list(places)
    real_places = [os.path.realpath(place) for place in places]
    home = os.path.realpath(profile.user_home)
    roots, files = emptied(profile.user_home, places), outside_system()[1]
    if not roots:
        return View([], [], lambda _path: True)
    programs = _absolute([*profile.programs, *profile.search_path])
    extra = [Path(p) for p in (profile.python, profile.socat) if p]
    extra += [folder for dirs in profile.repositories for folder in dirs.folders()]
    extra += [*profile.locked, *profile.allow_read, *enclosing(profile.workdir)]
    if not home_view.inverted(profile.user_home, ()):
        extra.append(profile.user_home)  # a system folder's home stays as it was
    others = _absolute(extra)
    args: list[str] = []
    shown: list[str] = []
    left: list[str] = []  # what a folder bound back leaves out (home_parts.py): hidden there
    for root in roots:
        # As `home_view.shown` finds them, less the home's own (toolchains, user site, git's
        # files): PATH's and the Python's folders there and their prefixes; then the rest.
        inside = [path for text, path in programs if _within(text, root)]
        # A prefix is never a home (`/mnt/c/Users/me/bin` on PATH: the Windows home is not).
        prefixes = (
            [p for p in home_view.prefixes(Path(root), inside, places) if not _home_like(p)]
            if inside
            else []
        )
        found = [*inside, *prefixes, *(path for text, path in others if _within(text, root))]
        wanted = [path for path in dict.fromkeys(found) if os.path.realpath(path) != root]
        kinds = home_parts.kinds(inside, prefixes)  # what each leaves out (A9-1)
        mounts, real, out = home_view.view_args(Path(root), wanted, hidden, exists, kinds)
        args += mounts
        shown += real
        left += out
    for path in files:
        if not any(_within(path, place) for place in real_places):
            args += ["--ro-bind", "/dev/null", path]
    kept = [*real_places, os.path.realpath(profile.hermes_home), home]

    def in_sight(path: Path) -> bool:
        real = os.path.realpath(path)
        if not any(_within(real, root) for root in roots) or any(_within(real, p) for p in kept):
            return True
        seen = any(_within(real, root) for root in shown)
        return seen and not any(_within(real, out) for out in left)

    remount = [arg for root in roots for arg in ("--remount-ro", root)]
    return View(args, remount, in_sight)


def _home_like(folder: Path) -> bool:
    """Whether `folder` looks like someone's home (a Linux one, WSL's Windows one)."""
    return any(os.path.lexists(folder / name) for name in HOME_MARKS)


def _absolute(paths: Iterable[Path]) -> list[tuple[str, Path]]:
    return [(os.path.abspath(path), path) for path in dict.fromkeys(paths)]


def _readable_file(entry: os.DirEntry[str]) -> bool:
    """A regular file the user can read that holds something and is no program: an empty one
    (`/.dockerenv`: scripts test that it is a file) stays, and so does WSL's `/init` (Windows
    programs run through it)."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    plain = stat.S_ISREG(info.st_mode) and not info.st_mode & 0o111
    return plain and info.st_size > 0 and os.access(entry.path, os.R_OK)


def _within(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip(os.sep) + os.sep)
