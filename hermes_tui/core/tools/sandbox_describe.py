"""What a sandboxed command gets, in words: the `doctor` lines (sandbox.py builds the wall)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hermes_tui.core.tools import home_view, root_view, unix_wall
from hermes_tui.core.tools.run_later import COMMIT_HOOK_CONFIGS, PROTECTED_IN_WORKDIR
from hermes_tui.core.tools.sandbox import (
    CREDENTIALS,
    DEFAULT_NETWORK_ALLOW,
    UNREADABLE_IN_HOME,
    NetworkMode,
)


def describe_profile(
    *,
    user_home: Path,
    hermes_home: Path,
    cache_dir: Path,
    writable_roots: Iterable[Path],
    deny_read: Iterable[Path],
    network: NetworkMode,
    allow_read: Iterable[Path] = (),
    network_allow: Iterable[str],
    socat: str | None,
    workdir: Path | None = None,
) -> list[tuple[str, str]]:
    """(what, detail) lines for `doctor`: what a sandboxed command may write, what it sees
    of the home, what stays read-only, what it cannot read, and where its network goes."""

    def short(path: Path) -> str:
        try:
            return "~/" + str(path.relative_to(user_home))
        except ValueError:
            return str(path)

    writable = ["the working directory", *map(short, writable_roots), "a private /tmp and /var/tmp"]
    writable.append(f"tools' caches in {short(cache_dir)} (a folder per working directory)")
    credentials = [short(user_home / name) for name in CREDENTIALS]
    present = [name for name, path in zip(credentials, CREDENTIALS, strict=True)
               if os.path.lexists(user_home / path)]  # fmt: skip
    in_home = ", ".join(UNREADABLE_IN_HOME)
    unreadable = f"{', '.join(credentials)} (here: {', '.join(present) or 'none of them'})"
    unreadable += "; other hermes homes (~/.hermes, the platform default, $HERMES_HOME)"
    unreadable += (
        f"; in a hermes home holding the work (else only its skills are in sight) {in_home}"
    )
    extra = [short(Path(p)) for p in deny_read]
    if extra:
        unreadable += f"; terminal.deny_read: {', '.join(extra)}"
    allow = list(dict.fromkeys([*DEFAULT_NETWORK_ALLOW, *network_allow]))
    if network == "allowlist" and socat is None:
        net = "off: terminal.network is allowlist, but socat (its bridge) is not on PATH"
    elif network == "allowlist":
        net = (
            "allowlist: only through the filtering proxy, to "
            + ", ".join(allow)
            + "; any other host asks (refused in chat -q without --yolo)"
        )
    elif network == "on":
        net = "on: any host, and the host's abstract sockets (terminal.network: on)"
    else:
        net = "off: no network at all (terminal.network: off)"
    return [
        ("writable", ", ".join(writable)),
        ("home", _home(user_home, [short(Path(p)) for p in allow_read])),
        (
            "outside the home",
            _outside(user_home, [*([workdir] if workdir else []), *writable_roots]),
        ),
        (
            "read-only",
            "everything else in sight (existing or not); in the working directory "
            + ", ".join(name for name in PROTECTED_IN_WORKDIR if name not in _HOOK_CONFIGS)
            + ", the configs of lefthook, lint-staged, simple-git-hooks, overcommit and"
            + " commitlint, the folders of your PATH there (but the project's own venv)"
            + " and .git itself, the same in every repository nested in it, and a worktree's"
            + " or submodule's git config, hooks and info; the skills of the hermes home"
            + f" {short(hermes_home)} (nothing else of it is in sight);"
            + " started in the home (or above it), its top level and dot folders, existing or not;"
            + _own_files(
                user_home, hermes_home, [*([workdir] if workdir else []), *writable_roots]
            ),
        ),
        ("unreadable", unreadable),
        ("network", net),
        ("sockets", _sockets()),
    ]


_HOOK_CONFIGS = frozenset(name for name, _ in COMMIT_HOOK_CONFIGS)


def _own_files(user_home: Path, hermes_home: Path, places: list[Path]) -> str:
    """Your own files in a writable place, held wherever hermes-tui started (home_links.py)."""
    from hermes_tui.core.tools import home_links

    held = [str(item.path) for item in home_links.held(user_home, places, hermes_home)]
    here = ", ".join(held[:6]) + (f" and {len(held) - 6} more" if len(held) > 6 else "")
    return (
        " and your own files in the working directory or a writable root, wherever it started"
        " (where a dotfile link or the hermes home's config.yaml, SOUL.md, skills lead, what"
        f" your global git config includes or names; here: {here or 'none'})"
    )


def _home(user_home: Path, allow_read: list[str]) -> str:
    """What a command sees of the user's home (home_view.py)."""
    if not home_view.inverted(user_home, ()):
        return f"{user_home} is a system folder: not emptied, only its credentials hidden"
    opted = ", ".join(allow_read) or "none"
    return (
        "empty (a read-only tmpfs) but for the working directory and writable roots in it, "
        "the folders of your PATH and of the running Python there, toolchains ("
        + ", ".join("~/" + name for name in home_view.TOOLCHAINS)
        + f", ~/{home_view.USER_SITE}; of a prefix or toolchain its programs and libraries,"
        " not its settings or credential files; of an import-path folder all but its .git,"
        " .env and credential files), git's settings as a copy without credential helpers,"
        " extra headers or passwords in URLs (~/.gitconfig, ~/.config/git/config) and its"
        " ignore and attributes files, the hermes home's skills/ (read-only: the rest of it is"
        " out of sight), and what you opt in with"
        f" terminal.allow_read: {opted}; other hermes homes (~/.hermes, the platform default,"
        " $HERMES_HOME: hidden wherever they lie), other projects and every other file of the"
        " home are out of sight;"
        " started in the home (or above it) the home is the work: all of it is in sight,"
        " git's settings the same copy, the credentials and other hermes homes hidden"
    )


def _outside(user_home: Path, places: list[Path]) -> str:
    """What a command sees outside the home and the system (root_view.py), here."""
    folders, files = root_view.outside_system()
    emptied = root_view.emptied(user_home, places)
    home = os.path.realpath(user_home)
    work = [folder for folder in folders if folder != home and folder not in emptied]
    return (
        "empty (a read-only tmpfs each) but for the working directory, writable roots and the"
        " way down to them, your PATH's folders and the running Python there (with the prefix"
        " a program lives in), git's folders of the workspace's repositories, the repository"
        " the working directory lies in (started in a sub-folder of it), the folders of"
        " skills.external_dirs, what MCP servers start from and terminal.allow_read: every"
        " folder at the top of / that is not the system's (kept: /"
        + ", /".join(sorted(root_view.SYSTEM))
        + ") and "
        + ", ".join(root_view.EMPTIED_IN_SYSTEM)
        + "; here: "
        + (", ".join(emptied) or "none")
        + (f" (not {', '.join(work)}: the work is there)" if work else "")
        + (f"; top-level files hidden: {', '.join(files)}" if files else "")
        + "; other projects there (/workspaces, /srv, /work, WSL's /mnt/c/Users/<you>) are out"
        " of sight"
    )


def _sockets() -> str:
    """What a command can do with Unix sockets (unix_wall.py)."""
    if not unix_wall.supported():
        return (
            "no socket filter for this machine's architecture: only the runtime folder "
            "(/run/user/<uid>, $XDG_RUNTIME_DIR), docker, podman, containerd, screen and D-Bus "
            "sockets are hidden; a Unix socket anywhere else (a tmux server's under ~) is "
            "reachable"
        )
    return (
        "none of the host's reachable, wherever it lies: making a Unix socket is refused "
        "(seccomp: socket(AF_UNIX) and io_uring fail with 'Operation not permitted'; pairs of "
        "connected sockets, TCP and UDP kept), and the runtime folder (/run/user/<uid>, "
        "$XDG_RUNTIME_DIR) is hidden besides; what needs a socket of its own fails at once "
        "(multiprocessing's forkserver, Manager, gpg, docker, ssh ControlMaster)"
    )
