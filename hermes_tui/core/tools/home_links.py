"""What the user's shell, git and editor load from a writable place, named from outside it.

A command may write anywhere in the working directory and the writable roots. Some files
there are not the project's but the user's own, loaded outside the sandbox wherever they work
(attack9's A9-3): a dotfiles checkout the home links into (`~/.gitconfig -> ~/dotfiles/
gitconfig`, `~/.config/nvim -> ~/dotfiles/nvim`: one `core.fsmonitor` appended, and the user's
next `git status` in any repository runs it), and the files the user's global git config
names (`[includeIf "gitdir:~/work/"] path = ~/work/.gitconfig-work`, `core.hooksPath =
~/work/hooks`). Found here, they join the sandbox's read-only list (sandbox.Profile.protected:
bound onto themselves), the files tools ask before writing them (path_policy), and one a
command creates or replaces is moved aside (terminal's sweep):
- `dotfile_targets`: where each link at the home's top (dot entries and `bin`) and in its dot
  folders leads (`~/.config` three levels deep, `~/.local/share` two, the others one: stow
  links at the deepest level not there yet), when that lies in a writable place;
- `hermes_loaded`: where the hermes home's loaded files (outside_writes.HOME_LOADED) lead, and
  the links in its `skills/`, `memories/` and `commands/` (attack9's A9-20: `config.yaml` kept
  in the checkout worked in, a team's skills collection linked in);
- `relative_hooks`: the folder a relative global core.hooksPath (`.githooks`) names in each
  repository of the workspace (git resolves it against each work tree's top);
- `git_named`: the config files git reads for the user's global and system settings (their
  includes followed, an `includeIf` whose condition git cannot judge outside a repository
  read too) and every absolute or `~/` path a setting that git loads or runs names (a hooks
  folder, an attributes file, a template folder, a filter's, alias's or fsmonitor's script; not
  `safe.directory` nor `maintenance.repo`, which name repositories), asked of the host git
  (gitconfig.listing), never parsed by hand.
A path that is a writable place or holds one is left out (it cannot be read-only without
taking the whole place). Kept per process while the files read keep their mtime.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermes_tui.core.tools.gitconfig import Setting
from hermes_tui.core.tools.home_view import GIT_CONFIGS
from hermes_tui.core.tools.run_later import RunLater

# The home's dot folders looked into this deep for links (the others one level: `~/.vim`).
DEEP = {".config": 3, ".local/share": 2, ".local/bin": 1, ".local/state": 1}
# Dot folders of caches and toolchains: no link there is a file the user's tools load.
NOT_LOOKED_INTO = frozenset({".cache", ".local", ".npm", ".m2", ".gradle", ".cargo", ".rustup",
                             ".pyenv", ".nvm", ".volta", ".asdf", ".sdkman", ".conda", ".bun",
                             ".deno", ".mozilla", ".vscode", ".vscode-server", ".git"})  # fmt: skip
MAX_ENTRIES = 5000  # looked at in all
MAX_CONFIGS = 16  # git config files read, includes counted
DOTFILE = "your home's {link} leads to it: your shell, git or editor loads it outside the sandbox"
GIT_NAMED = (
    "your global git config names it ({key}): git reads or runs it in every repository, "
    "outside the sandbox"
)
HERMES = (
    "the hermes home's {link} leads to it: hermes-tui loads it at its next start (settings, MCP "
    "servers it starts, instructions, skills)"
)
RELATIVE_HOOKS = (
    "your global git config's core.hooksPath ({value}) names it in this repository: git runs "
    "the hooks in it (on commit, checkout, merge, push)"
)
LOADED_FOLDERS = ("memories", "skills", "commands")  # looked into for links, two levels
# Keys naming a file git reads for what it does (with every key that makes git run a program:
# gitconfig.git_config_risk). Not `safe.directory` nor `maintenance.repo`: they name the
# user's repositories, which are the work, not what git loads.
PATH_KEYS = frozenset({"core.hookspath", "core.attributesfile", "core.excludesfile",
                       "init.templatedir", "commit.template", "mailmap.file"})  # fmt: skip
_PATH_WORD = re.compile(r"!?(~/|/)")


def held(
    user_home: Path,
    places: Iterable[Path],
    hermes_home: Path | None = None,
    environ: Mapping[str, str] | None = None,
    trees: Iterable[Path] = (),
) -> list[RunLater]:
    """The user's own files in a writable place (the module's kinds), each once; with the
    work trees of the workspace's repositories, the hooks folder a relative global
    core.hooksPath names in each (`relative_hooks`)."""
    real_places = [os.path.realpath(place) for place in places]
    environ = os.environ if environ is None else environ
    found = dotfile_targets(user_home, real_places)
    found += git_named(user_home, real_places, environ)
    if hermes_home is not None:
        found += hermes_loaded(hermes_home, real_places)
    for item in relative_hooks(user_home, trees, environ):
        if _in_place(os.path.realpath(item.path), real_places):
            found.append(item)
    seen: set[Path] = set()
    kept = []
    for item in found:
        if item.path not in seen:
            seen.add(item.path)
            kept.append(item)
    return kept


def _in_place(path: str, places: list[str]) -> bool:
    """Inside a writable place, and neither one of them nor holding one."""
    inside = any(_within(path, place) for place in places)
    return inside and not any(_within(place, path) for place in places)


def dotfile_targets(user_home: Path, places: list[str]) -> list[RunLater]:
    """Where the home's links lead, when that lies in a writable place (`places`: real)."""
    found: list[RunLater] = []
    for link in home_links_found(user_home):
        target = os.path.realpath(link)
        if _in_place(target, places):
            shown = "~/" + os.path.relpath(link, user_home)
            found.append(RunLater(Path(target), DOTFILE.format(link=shown)))
    return found


# home -> (the folders looked into and their mtime, the links found)
_links: dict[str, tuple[list[tuple[str, int]], list[str]]] = {}


def home_links_found(user_home: Path) -> list[str]:
    """The links at the home's top (its dot entries and `bin`), and in its dot folders: as
    deep as `DEEP` says (stow links at the deepest level not there yet: `~/.config/fish/
    config.fish`), one level in the others (`~/.vim/vimrc`) but `NOT_LOOKED_INTO`; at most
    MAX_ENTRIES entries in all. Kept while the folders looked into keep their mtime."""
    home = str(user_home)
    cached = _links.get(home)
    if cached is not None and all(_mtime(path) == mtime for path, mtime in cached[0]):
        return cached[1]
    looked: list[tuple[str, int]] = []
    links: list[str] = []
    budget = [MAX_ENTRIES]
    top = _entries(home, looked, budget)
    folders: list[tuple[str, int]] = [(os.path.join(home, sub), d) for sub, d in DEEP.items()]
    for entry in top:
        if not (entry.name.startswith(".") or entry.name == "bin"):
            continue
        if entry.is_symlink():
            links.append(entry.path)
        elif entry.is_dir() and entry.name not in NOT_LOOKED_INTO and entry.name not in DEEP:
            folders.append((entry.path, 1))
    while folders:
        folder, depth = folders.pop(0)
        for entry in _entries(folder, looked, budget):
            if entry.is_symlink():
                links.append(entry.path)
            elif depth > 1 and entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, depth - 1))
    _links[home] = (looked, links)
    return links


def _entries(folder: str, looked: list[tuple[str, int]], budget: list[int]) -> list[os.DirEntry]:
    if budget[0] <= 0 or os.path.islink(folder):
        return []
    mtime = _mtime(folder)
    try:
        with os.scandir(folder) as scan:
            entries = [e for _, e in zip(range(budget[0]), scan, strict=False)]
    except OSError:
        return []
    budget[0] -= len(entries)
    looked.append((folder, mtime))
    return entries


def hermes_loaded(hermes_home: Path, places: list[str]) -> list[RunLater]:
    """Where the hermes home's loaded files lead through links, when that lies in a writable
    place (`places`: real): `config.yaml`, `SOUL.md`, `.env` kept in a checkout, a skills
    collection linked in (`skills/team -> <work>/team-skills`), a linked memory or command."""
    from hermes_tui.core.tools.outside_writes import HOME_LOADED

    found: list[RunLater] = []
    budget = [MAX_ENTRIES]
    for name in HOME_LOADED:
        path = hermes_home / name
        links = [str(path)] if os.path.islink(path) else []
        if not links and name in LOADED_FOLDERS:
            pending = [(str(path), 2)]
            while pending:
                folder, depth = pending.pop()
                for entry in _entries(folder, [], budget):
                    if entry.is_symlink():
                        links.append(entry.path)
                    elif depth > 1 and entry.is_dir(follow_symlinks=False):
                        pending.append((entry.path, depth - 1))
        for link in links:
            target = os.path.realpath(link)
            if _in_place(target, places):
                shown = os.path.relpath(link, hermes_home)
                found.append(RunLater(Path(target), HERMES.format(link=shown)))
    return found


def git_named(user_home: Path, places: list[str], environ: Mapping[str, str]) -> list[RunLater]:
    """The files and folders the user's global and system git config reads or names, when
    they lie in a writable place (`places`: real): where they lead, or as named when only
    that lies there (a link the command could repoint)."""
    copies = {str(user_home / name) for name in GIT_CONFIGS}  # home_view.git_binds's there
    found = []
    for path, key in _git_paths(user_home, environ):
        real = os.path.realpath(path)
        if path in copies:  # the home's own: locked with the home (a link: dotfile_targets)
            continue
        held_at = real if _in_place(real, places) else path if _in_place(path, places) else None
        if held_at is not None:
            found.append(RunLater(Path(held_at), GIT_NAMED.format(key=key)))
    return found


def global_configs(user_home: Path, environ: Mapping[str, str]) -> list[Path]:
    """The config files git reads for every repository: the global ones ($GIT_CONFIG_GLOBAL,
    or ~/.gitconfig and $XDG_CONFIG_HOME/git/config) and the system one ($GIT_CONFIG_SYSTEM or
    /etc/gitconfig, unless $GIT_CONFIG_NOSYSTEM)."""
    if environ.get("GIT_CONFIG_GLOBAL"):
        found = [Path(_expand(environ["GIT_CONFIG_GLOBAL"], user_home))]
    else:
        xdg = environ.get("XDG_CONFIG_HOME") or str(user_home / ".config")
        found = [user_home / ".gitconfig", Path(xdg) / "git" / "config"]
    if environ.get("GIT_CONFIG_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        found.append(Path(environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    return found


# (the config files looked at) -> (every file read and its mtime, (path, why) found)
_named: dict[
    tuple[str, ...], tuple[list[tuple[str, int]], list[tuple[str, str]], list[Setting]]
] = {}


def global_settings(user_home: Path, environ: Mapping[str, str] | None = None) -> list[Setting]:
    """Every setting (gitconfig.Setting) of the user's global and system git config, as git
    reads it, includes followed, an `includeIf` file's too (whether its condition holds or
    not): one reader for whoever needs them. Kept like `git_named`'s reading."""
    environ = os.environ if environ is None else environ
    _git_paths(user_home, environ)
    return list(_named[tuple(str(p) for p in global_configs(user_home, environ))][2])


def relative_hooks(
    user_home: Path, trees: Iterable[Path], environ: Mapping[str, str]
) -> list[RunLater]:
    """A relative core.hooksPath of the global or system config (`.githooks`: every
    repository's own folder, resolved against its work tree's top by git) in each of `trees`
    (attack9's A9-9: a command's `.githooks/pre-commit` ran at the user's next commit)."""
    values = [
        s.value
        for s in global_settings(user_home, environ)
        if s.key.lower() == "core.hookspath" and s.value and not s.value.startswith(("/", "~"))
    ]
    return [
        RunLater(Path(os.path.normpath(Path(tree) / value)), RELATIVE_HOOKS.format(value=value))
        for value in dict.fromkeys(values)
        for tree in dict.fromkeys(trees)
    ]


def _git_paths(user_home: Path, environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, the key or include naming it) for every config file git reads of the global and
    system settings and every path a setting there names; kept while every file read (or
    looked for) is as it was (its mtime)."""
    from hermes_tui.core.tools import gitconfig

    configs = tuple(str(path) for path in global_configs(user_home, environ))
    cached = _named.get(configs)
    if cached is not None and all(_mtime(path) == mtime for path, mtime in cached[0]):
        return cached[1]
    found: list[tuple[str, str]] = []
    settings: list[Setting] = []
    files: list[tuple[str, int]] = []
    queue = [(path, "the config file itself") for path in configs]
    while queue and len(files) < MAX_CONFIGS:
        path, why = queue.pop(0)
        absolute = os.path.normpath(path)
        if any(absolute == seen for seen, _ in files):
            continue
        files.append((absolute, _mtime(absolute)))
        found.append((absolute, why))
        if not os.path.isfile(absolute):
            continue
        for setting in gitconfig.listing(Path(absolute)) or []:
            settings.append(setting)
            origin = os.path.normpath(setting.origin.removeprefix("file:"))
            if setting.origin.startswith("file:") and all(origin != f for f, _ in files):
                files.append((origin, _mtime(origin)))
                found.append((origin, f"included by {absolute}"))
            name = setting.key.lower()
            if not setting.value:
                continue
            if name == "include.path" or (name.startswith("includeif.") and name.endswith(".path")):
                named = os.path.join(os.path.dirname(origin), _expand(setting.value, user_home))
                queue.append((named, setting.key))
                continue
            if (
                name in PATH_KEYS
                or gitconfig.git_config_risk(name, setting.value)
                or (name.startswith("alias.") and setting.value.startswith("!"))
            ):
                found += [(word, setting.key) for word in _paths_in(setting.value, user_home)]
    _named[configs] = (files, found, settings)
    return found


def _paths_in(value: str, user_home: Path) -> list[str]:
    """The absolute and `~/` paths a setting's value names (a program and its arguments, or a
    path: `core.hooksPath`, `core.attributesFile`, `!~/bin/tool` of an alias)."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return [
        os.path.normpath(_expand(word.removeprefix("!"), user_home))
        for word in words
        if _PATH_WORD.match(word)
    ]


def _expand(path: str, user_home: Path) -> str:
    """`~/…` as git expands it, in the user's home."""
    return str(user_home) + path[1:] if path == "~" or path.startswith("~/") else path


def _mtime(path: str | Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def _within(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip(os.sep) + os.sep)
