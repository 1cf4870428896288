"""The wall around terminal commands: a bubblewrap profile, and the environment children get.

The shell policy explains and asks; this decides what anything that runs can touch, however the
command is spelt and whatever program it starts. With `bwrap` on PATH (terminal.sandbox: auto or
on) a command sees:
- the whole filesystem read-only, whether a path exists or not (a read-only mount refuses to
  create files too), but the user's home and what is not the system's EMPTY (`/work`, `/srv`,
  `/mnt`: root_view.py): what commands need is bound back (home_view.py: toolchains, PATH's
  folders, git's settings without credentials, terminal.allow_read), then the places below;
  writable only the working directory, `terminal.writable_roots`, a private cache folder of the
  working directory's own (for tools' caches, never on PATH), a private tmpfs /tmp and /var/tmp;
- inside the working directory, read-only: what runs later outside the sandbox (run_later.py,
  the list the files tools ask about too: `.git/hooks`, `.git/config`, `.git/info`, `.vscode`,
  `.idea`, `.devcontainer`, `.envrc`, `.hermes` (the project's slash commands), …) when they
  exist, and the hermes home's skills (the rest is out of sight: home_view) (bind mounts;
  `.git` itself is bound onto itself, so it cannot be renamed away and replaced); the same
  for every repository nested in the workspace, and wherever a worktree's or submodule's
  `.git` file leads (gitdirs.py), and the user's own files (a dotfile link's target, what the
  global git config includes or names: home_links.py); when the working directory (or a
  writable root) is the user's home or holds it, the home's top level and every dot folder in
  it (startup files, tool configs, credentials, existing or not: home_view.lock_home), its
  other folders writable;
  such a path the command *creates* is moved aside after it ends (`sweep_created`: every process
  of the command is gone by then, its pid namespace dies with it, so the sweep cannot be raced);
- read-only too, wherever they lie in a writable place: the folders of the user's PATH as read
  at start, links resolved (`~/miniconda3/bin`, `~/go/bin` started in ~, a project's
  `tools/bin`: the user's shell runs what lies there by name), but for the `bin` of the
  project's own venv (`pyvenv.cfg` at the top of the working directory: project code, which
  `pip install` writes) and `node_modules/.bin` (run_later.project_bins; relative entries
  resolved against the working directory); one a command creates or replaces (by
  renaming a folder above it) is moved aside, and a protected path that was a link is put
  back as it was (the sweep judges by identity: sweep.py);
- unreadable: credential files and folders (`CREDENTIALS`, `terminal.deny_read`), other hermes
  homes (an empty read-only tmpfs over a folder, /dev/null over a file);
- no network (its own network namespace, where abstract Unix sockets are out of reach too) unless
  `terminal.network` is `allowlist` (egress only through the filtering proxy, netproxy.py,
  bridged in by `socat`: in a namespace held for the conversation, netns.py, or per command
  without `nsenter`) or `on`;
- no privileges: a user namespace with every capability dropped (also as root), no_new_privs,
  its own session (no keystrokes into the user's terminal), dies with hermes-tui; no Unix
  socket can be made at all (a seccomp filter, unix_wall.py), so no socket of the host is
  reached wherever it lies (a tmux server's under ~, docker's, a database's); the runtime
  folder (/run/user/<uid>, and $XDG_RUNTIME_DIR), container engine and multiplexer sockets
  are hidden besides and their variables scrubbed; whatever the working directory (`/` brings the host's /tmp, /proc and /run back when bound:
  `_private_again` mounts the sandbox's over them), and /tmp itself is never a writable place
  (`unwalled_place`: commands are refused there).

The private /tmp hides what lies under the real one. The programs a command needs that live
there (the Python running hermes-tui, its venv and import path, the folders on PATH: a project
cloned into /tmp with its .venv) are mounted back read-only, under the writable places. What to
mount back is read once, when hermes-tui starts (`interpreter_paths`: real folders only, no
path through a symbolic link), and a path inside a writable place is never mounted back (that
place shows it already): a command can change what lies there, so a later command's mounts
must not follow it (a `.venv/bin` turned into a link to the user's tmux socket folder).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.redaction.recognise import scrubbed
from hermes_tui.core.tools import (
    home_links,
    home_view,
    root_view,
    run_later,
    secret_paths,
    unix_wall,
)
from hermes_tui.core.tools.gitdirs import GitDirs

# What runs later outside the sandbox, one list with the files tools' (run_later.py); re-exported.
from hermes_tui.core.tools.run_later import (  # noqa: F401
    PROTECTED_IN_WORKDIR,
    own_name_shadows,
)

# What the sandbox is here, read at start without this module (sandbox_probe.py); re-exported.
from hermes_tui.core.tools.sandbox_probe import (  # noqa: F401
    DEFAULT_NETWORK_ALLOW,
    NETWORK_MODES,
    PRIVATE_TMP,
    SANDBOX_MODES,
    NetworkMode,
    SandboxMode,
    SandboxStatus,
    _isolation,
    _real_folder,
    current_programs,
    interpreter_paths,
    probe,
    search_path_entries,
    unwalled_place,
    wall_refusal,
)
from hermes_tui.core.tools.secret_paths import HOME_SECRETS

PROVIDER_KEYS = frozenset({"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"})
# Ways out of the sandbox through a process outside it: agents, buses, multiplexers, displays.
SCRUBBED_VARIABLES = frozenset({
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "TMUX",
    "TMUX_PANE", "STY", "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY", "DOCKER_HOST",
    "KRB5CCNAME",
})  # fmt: skip
# Under the user's home: credentials no command needs to read (terminal.deny_read adds more).
# Whole folders and files of credentials, plus every secret file the files tools ask about
# (secret_paths.HOME_SECRETS: one list, so nothing is secret to one wall and readable through
# another); each once, none inside another already hidden.
_HIDDEN_FOLDERS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/git/credentials",
    ".kube",
    ".docker",
    ".config/gh",
    ".config/op",
    ".yarnrc.yml",
    ".terraform.d",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
)
CREDENTIALS = tuple(
    name
    for name in dict.fromkeys([*_HIDDEN_FOLDERS, *(path for path, _ in HOME_SECRETS)])
    if not any(name.startswith(folder + "/") for folder in _HIDDEN_FOLDERS)
)
# In the hermes home: what no command may read, when it is in sight (it is emptied but for
# its skills, home_view.hermes_home_view, unless a writable place lies in it: read-only then).
UNREADABLE_IN_HOME = (
    ".env",
    "sessions.db",
    "sessions.db-wal",
    "sessions.db-shm",
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "config.yaml",  # MCP servers' tokens and keys in their args, env and URLs
    "cache",
    "pending",
    "logs",
    "checkpoints",  # every session's files as they were, across projects
    "scratch",  # every session's cut tool outputs (the model pages them with read_file)
    "evals",  # the eval runs: each arm's home holds copies of .env and config.yaml (A7-5)
    # A Hermes Agent home's (--home ~/.hermes): its OAuth credential pool, messaging gateways'
    # pairing and sessions, its JSON transcripts, cron jobs and hooks, its prompt history.
    *("auth.json", "auth.lock", "whatsapp", "pairing", "sessions", "cron", "hooks"),
    ".hermes_history",
)
# ... and every other entry whose name starts as one of these does (a `.env~` or `.env.bak`
# an editor left, a `sessions.db.corrupt-<time>` set aside), found when a command starts.
UNREADABLE_PREFIXES_IN_HOME = (".env", "sessions.db", "state.db", "config.yaml", "auth.json",
                               "gateway")  # fmt: skip
# Sockets of processes outside the sandbox that would run what they are told.
HIDDEN_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman",
    "/var/run/podman",
    "/run/containerd",
    "/var/run/containerd",
    "/run/screen",
    "/var/run/screen",
    "/run/dbus",
    "/var/run/dbus",
)
# Where tools keep caches, pointed into the private cache folder (none is on PATH).
CACHE_VARIABLES = {
    "XDG_CACHE_HOME": "xdg",
    "PIP_CACHE_DIR": "pip",
    "npm_config_cache": "npm",
    "YARN_CACHE_FOLDER": "yarn",
    "CARGO_HOME": "cargo",
    "GOPATH": "go",
    "GOCACHE": "go-build",
    "GOMODCACHE": "go/pkg/mod",
    "GRADLE_USER_HOME": "gradle",
    "UV_CACHE_DIR": "uv",
    "POETRY_CACHE_DIR": "poetry",
    "PYTHONPYCACHEPREFIX": "pycache",
}
PROXY_PORT = 3128
PROXY_SOCKET_INSIDE = "/tmp/.hermes-proxy/proxy.sock"


def scrubbed_env(environ: Mapping[str, str], passthrough: Iterable[str] = ()) -> dict[str, str]:
    """`environ` without provider keys, the variables that lead to a process outside the
    sandbox and those the redaction's recogniser calls secret (core/redaction/recognise.py: a
    secret-looking name, or a value carrying a credential: DATABASE_URL's password, a webhook
    URL, a key shape), except those passed through (still redacted: they stay known). git's
    GIT_CONFIG_COUNT/KEY_<n>/VALUE_<n> go together: one of them gone, git refuses every command."""
    keep = set(passthrough)
    kept = {
        name: value
        for name, value in environ.items()
        if name in keep
        or not (name in PROVIDER_KEYS or name in SCRUBBED_VARIABLES or scrubbed(name, value))
    }
    git = [name for name in environ if _GIT_CONFIG.fullmatch(name)]
    if any(name not in kept for name in git):
        kept = {name: value for name, value in kept.items() if name not in git}
    return kept


_GIT_CONFIG = re.compile(r"GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+)")


class SandboxUnavailable(RuntimeError):
    """terminal.sandbox is on, and bubblewrap cannot run here."""


def unreadable_paths(
    user_home: Path, hermes_home: Path, deny_read: Iterable[Path], keep: Iterable[Path] = ()
) -> list[Path]:
    """What no command may read: credentials, the hermes home's secrets and stores (and where
    its `.env` leads through a link: kept in a checkout, A9-20), every other hermes home the
    app knows (home_view.known_homes: its secrets only when it holds a `keep` place) and
    terminal.deny_read (strict mode's proof counts them as outside too)."""
    paths = [user_home / name for name in CREDENTIALS] + secret_paths.globbed(user_home)
    paths += [hermes_home / name for name in UNREADABLE_IN_HOME]
    paths += home_view.other_homes_hidden(user_home, hermes_home, UNREADABLE_IN_HOME, keep)
    try:
        names = sorted(os.listdir(hermes_home))
    except OSError:
        names = []
    paths += [
        hermes_home / name
        for name in names
        if name.startswith(UNREADABLE_PREFIXES_IN_HOME) and name not in UNREADABLE_IN_HOME
    ]
    # (its secrets only: a linked config.yaml stays readable, its tokens redacted, so a command's
    # `git commit -a` in the checkout never commits it emptied)
    own = [n for n in (*UNREADABLE_IN_HOME, *names) if n.startswith((".env", "auth.json"))]
    paths += [
        Path(os.path.realpath(hermes_home / n)) for n in own if (hermes_home / n).is_symlink()
    ]
    return [*paths, *deny_read]


@dataclass(frozen=True)
class Profile:
    """What one command may touch."""

    bwrap: str
    workdir: Path
    cwd: Path
    hermes_home: Path
    user_home: Path
    cache_dir: Path  # private, writable, never on PATH
    network: NetworkMode = "allowlist"
    writable_roots: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()
    proxy_socket: Path | None = None  # the filtering proxy's socket on the host (allowlist)
    socat: str | None = None
    runtime_dir: Path | None = None  # $XDG_RUNTIME_DIR, hidden
    # Joins a network namespace held for the conversation (netns.py: `nsenter ... --`), whose
    # loopback has the proxy's bridge on it in allowlist; empty: one namespace per command.
    held_network: tuple[str, ...] = ()
    # The workspace's repository and those nested in it (gitdirs.repositories): each one's
    # configs, hooks and info are read-only too, wherever its `.git` file leads.
    repositories: tuple[GitDirs, ...] = ()
    # Where the interpreter and the programs on PATH live (`interpreter_paths`, read at start):
    # those under the private /tmp and outside the writable places are mounted back read-only.
    programs: tuple[Path, ...] = ()
    # The folders of the user's PATH, as written and where they led at start
    # (`search_path_entries`): those inside a writable place are read-only (run_later).
    search_path: tuple[Path, ...] = ()
    # What stays read-only wherever it lies (the user's external skills folders, the files an
    # MCP server starts from): those inside a writable place are (run_later.inside_places).
    locked: tuple[Path, ...] = ()
    # The app's own git reading the workspace (workspace_git.py): nothing writable at all.
    read_only: bool = False
    # Under the home, shown read-only besides what commands need (terminal.allow_read).
    allow_read: tuple[Path, ...] = ()
    # No Unix socket made inside (unix_wall.py): bubblewrap gets the filter on a descriptor
    # (the argv is then a `Wrapped`, whose `fds` the caller passes down and closes), or, with
    # the proxy's bridge inside the sandbox, `python` starts the bridge and then installs it.
    socket_filter: bool = False
    python: str | None = None
    # PYTHONPYCACHEPREFIX given: not when the environment says PYTHONDONTWRITEBYTECODE, where
    # the prefix would only stay empty and hide every __pycache__ (each python compiling all it
    # imports, every run: 0.4 s of CPU for a mid-sized program).
    bytecode_cache: bool = True

    def unreadable(self) -> list[Path]:
        places = (self.workdir, *self.writable_roots)
        return unreadable_paths(self.user_home, self.hermes_home, self.deny_read, places)

    def protected(self) -> list[Path]:
        """Read-only inside the writable places: what runs later (run_later.protected), the
        folders of PATH there, where they lead, and the user's own files (home_links.held)."""
        places = [self.workdir, *self.writable_roots]
        bins = run_later.project_bins(self.workdir, self.user_home)
        on_path = run_later.on_search_path(self.search_path, places, bins, self.workdir)
        on_path += run_later.inside_places(self.locked, places)
        # Where each leads, when that is inside a writable place too (bound onto itself, so
        # a link a command made cannot bring a hidden folder back into sight).
        real_places = [os.path.realpath(place) for place in places]
        real = [os.path.realpath(path) for path in on_path]
        inside = [p for p in real if any(_within(p, place) for place in real_places)]
        trees = [self.workdir, *(dirs.tree for dirs in self.repositories)]
        return [
            *(item.path for item in run_later.protected(self.workdir, self.repositories)),
            *dict.fromkeys(map(Path, inside)),
            *(
                i.path
                for i in home_links.held(self.user_home, places, self.hermes_home, trees=trees)
            ),
        ]


class Wrapped(list[str]):
    """An argv, and the descriptors its process must inherit (`pass_fds`; the caller closes
    its own copies once the process started, or when it could not start)."""

    fds: tuple[int, ...] = ()


def inherited(argv: list[str]) -> tuple[int, ...]:
    """The descriptors `argv` needs passed down (a `Wrapped`'s), none for a plain list."""
    return argv.fds if isinstance(argv, Wrapped) else ()


def bwrap_argv(profile: Profile, argv: list[str], exists: Callable[[Path], bool]) -> list[str]:
    """`argv` wrapped in bubblewrap as `profile` says; `exists` tells which paths to mount over.

    Order matters: each mount lies over the ones before it, so the private /tmp comes first, the
    writable places next, then what must stay read-only inside them, then what must not be read
    at all.
    """
    unwalled = unwalled_place(profile.workdir, profile.writable_roots)
    if unwalled is not None:
        raise SandboxUnavailable(f"{unwalled} cannot be a writable place (unwalled_place)")
    args = [profile.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for tmp in PRIVATE_TMP:
        args += ["--tmpfs", tmp]
    cache = workspace_cache(profile.cache_dir, profile.workdir)
    if exists(profile.cache_dir):
        cache.mkdir(mode=0o700, exist_ok=True)
    writable = [profile.workdir, *profile.writable_roots, cache]
    for path in _under_private_tmp(profile.programs, writable, exists):
        args += ["--ro-bind", str(path), str(path)]
    places = [p for p in dict.fromkeys([*writable]) if exists(p)]
    home = Path(os.path.realpath(profile.user_home))
    holders = [p for p in places if _within(str(home), os.path.realpath(p))]
    bind = "--ro-bind" if profile.read_only else "--bind"
    # The home emptied, what commands need bound back (home_view.py); the places come after.
    unreadable, in_sight = profile.unreadable(), None
    around = root_view.view(profile, places, unreadable, exists)  # what is not the system's
    args += around.args
    if home_view.inverted(home, holders):
        in_sight = home_view.mounts(profile, places, unreadable, exists)
        args += in_sight[0]
    for path in holders:  # the home lies inside: it is locked before the other places are bound
        args += [bind, str(path), str(path)]
    if holders:
        args += home_view.lock_home(home, holders)
        args += home_view.git_binds(profile.user_home, profile.cache_dir / ".git-settings")
    for path in places:
        if path not in holders:
            args += [bind, str(path), str(path)]
    args += _private_again(places, profile, exists)
    # A mount point cannot be renamed or removed: `.git` stays where git looks for it, so a
    # `.git` file pointing at a folder of the command's making cannot take its place.
    # What lies in the private /tmp outside every writable place is out of sight already (a
    # repository under /tmp found from `/`): nothing to keep, and no mount point to make.
    seen = _outside_private_tmp(places)
    trees = [profile.workdir, *(dirs.tree for dirs in profile.repositories)]
    for tree in dict.fromkeys(trees):
        git_dir = tree / ".git"
        if exists(git_dir) and git_dir.is_dir() and not git_dir.is_symlink() and seen(git_dir):
            args += [bind, str(git_dir), str(git_dir)]
    if profile.read_only:  # a worktree's git folders elsewhere under /tmp are read too
        for folder in dict.fromkeys(d for r in profile.repositories for d in r.folders()):
            args += ["--ro-bind", str(folder), str(folder)] if exists(folder) else []
    # The hermes home emptied but for its skills (read-only), or read-only whole (home_view).
    hermes, hermes_hidden = home_view.hermes_home_view(profile.hermes_home, places, exists)
    args += hermes
    # Most protected names do not exist: asked first, it spares each its real path (`seen`).
    for path in dict.fromkeys(p for p in profile.protected() if exists(p) and seen(p)):
        # A link is bound where it leads, when that exists (bubblewrap refuses a dangling
        # source); the link itself stays replaceable, and the sweep puts it back (sweep.py).
        if not path.is_symlink() or os.path.exists(path):
            args += ["--ro-bind", str(path), str(path)]
    for path in dict.fromkeys(unreadable):
        if not exists(path) or hermes_hidden(path):
            continue
        if (in_sight is None or in_sight[1](path)) and around.in_sight(path):
            args += _hide(path, exists)
    # Every mount point in the emptied homes is made: no command writes there.
    args += ["--remount-ro", str(home)] if in_sight is not None else []
    args += around.remount
    args += ["--remount-ro", str(profile.hermes_home)] if hermes[:1] == ["--tmpfs"] else []
    env: list[str] = []
    for name, sub in CACHE_VARIABLES.items():
        if name != "PYTHONPYCACHEPREFIX" or profile.bytecode_cache:
            env += ["--setenv", name, str(cache / sub)]
    network = profile.network
    held = bool(profile.held_network) and network != "on"
    if (
        network == "allowlist"
        and not held
        and (profile.proxy_socket is None or profile.socat is None)
    ):
        network = "off"  # no bridge: no network at all, never an open one
    # A held namespace is the command's own network: it is joined, not made.
    args += _isolation("on" if held else network)
    filtered = profile.socket_filter and unix_wall.supported()
    bridged = network == "allowlist" and not held  # socat inside: it makes Unix sockets
    if filtered and bridged and profile.python is None:
        raise SandboxUnavailable("the socket filter needs a Python to install it after the bridge")
    if network == "allowlist":
        if not held:
            assert profile.proxy_socket is not None and profile.socat is not None
            args += ["--bind", str(profile.proxy_socket), PROXY_SOCKET_INSIDE]
            if filtered:  # the launcher bridges, out of the command's reach (unix_wall.py)
                assert profile.python is not None
                # No init of bubblewrap's without the filter for the command to attach to:
                # the launcher is pid 1, and so is the command it becomes.
                args.append("--as-pid-1")
                bridge = {"proxy": PROXY_SOCKET_INSIDE, "port": PROXY_PORT}
                argv = [*unix_wall.launcher(profile.python, **bridge), *argv]
            else:
                argv = _with_bridge(profile.socat, argv)
        proxy = f"http://127.0.0.1:{PROXY_PORT}"
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            env += ["--setenv", name, proxy]
        env += ["--setenv", "all_proxy", proxy, "--setenv", "npm_config_proxy", proxy]
        env += ["--setenv", "npm_config_https_proxy", proxy, "--setenv", "PIP_PROXY", proxy]
        env += ["--setenv", "NO_PROXY", "", "--setenv", "no_proxy", ""]
    args += env
    fds: tuple[int, ...] = ()
    if filtered and not bridged:
        fds = (unix_wall.filter_fd(),)
        args += ["--seccomp", str(fds[0])]
    args += ["--chdir", str(profile.cwd), "--", *argv]
    wrapped = Wrapped([*profile.held_network, *args] if held else args)
    wrapped.fds = fds
    return wrapped


def workspace_cache(cache_dir: Path, workdir: Path) -> Path:
    """The private cache of one working directory, keyed by its real path: what a command of
    one project leaves there (a compiled module under PYTHONPYCACHEPREFIX, a wheel in pip's
    cache) is never loaded by another project's commands."""
    real = os.path.realpath(workdir)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_dir / f"{re.sub(r'[^A-Za-z0-9._-]', '_', Path(real).name)[:40]}-{digest}"


def _private_again(
    places: list[Path], profile: Profile, exists: Callable[[Path], bool]
) -> list[str]:
    """Mounts, after the writable places, that take back what a place holding the host's own
    copy brought back when bound (hermes-tui started in `/`, a writable root `/var` or
    `/run`): the sandbox's /proc and /dev, its private /tmp and /var/tmp (and what was mounted
    into them: the programs, a writable place inside), the hidden sockets and runtime folder."""
    real = [os.path.realpath(place) for place in places]

    def covered(path: str) -> bool:
        return any(_within(path, place) for place in real)

    def covered_by(paths: list[str], place: str) -> bool:
        return any(_within(path, place) for path in paths)

    args = ["--proc", "/proc"] if covered("/proc") else []
    if covered("/dev"):
        args += ["--dev", "/dev"]
    roots = [tmp for tmp in PRIVATE_TMP if covered(os.path.realpath(tmp))]
    for tmp in roots:
        args += ["--tmpfs", tmp]
    if roots:
        real_roots = [os.path.realpath(tmp) for tmp in roots]
        narrow = [p for p, r in zip(places, real, strict=True) if not covered_by(real_roots, r)]
        for path in _under_private_tmp(profile.programs, narrow, exists):
            args += ["--ro-bind", str(path), str(path)]
        bind = "--ro-bind" if profile.read_only else "--bind"
        for path in narrow:
            if any(_within(os.path.realpath(path), root) for root in real_roots):
                args += [bind, str(path), str(path)]
    # The user's runtime folder (their systemd manager's bus, podman's and pipewire's sockets,
    # gnupg, keyrings) whether or not hermes-tui's own environment names it, and wherever
    # $XDG_RUNTIME_DIR points.
    hidden = [Path(p) for p in HIDDEN_SOCKETS] + [Path("/run/user") / str(os.getuid())]
    if profile.runtime_dir is not None:
        hidden.append(profile.runtime_dir)
    # /var/run is usually a link to /run: mount over the real place, once.
    for path in dict.fromkeys(Path(os.path.realpath(p)) for p in hidden):
        args += _hide(path, exists)
    return args


def _outside_private_tmp(places: list[Path]) -> Callable[[Path], bool]:
    """Whether a path is in sight in the sandbox as far as its private /tmp goes: outside it,
    or inside a writable place that lies in it (mounted back)."""
    roots = [os.path.realpath(tmp) for tmp in PRIVATE_TMP]
    shown = [
        real
        for real in (os.path.realpath(place) for place in places)
        if any(_within(real, root) and real != root for root in roots)
    ]

    def seen(path: Path) -> bool:
        real = os.path.realpath(path)
        hidden = any(_within(real, root) for root in roots)
        return not hidden or any(_within(real, place) for place in shown)

    return seen


def _under_private_tmp(
    paths: Iterable[Path], writable: Iterable[Path], exists: Callable[[Path], bool]
) -> list[Path]:
    """The `paths` inside a private /tmp (not the whole of it) and outside every `writable`
    place, still real folders, each once and none inside another."""
    roots = [os.path.realpath(tmp) for tmp in PRIVATE_TMP]
    places = [os.path.realpath(place) for place in writable]
    inside = sorted(
        {
            str(path)
            for path in paths
            if any(str(path).startswith(root + os.sep) for root in roots)
            and not any(_within(str(path), place) for place in places)
            and exists(path)
            and _real_folder(path)
        }
    )
    kept: list[str] = []
    for path in inside:  # sorted: a folder comes before what lies in it
        if not any(path.startswith(outer + os.sep) for outer in kept):
            kept.append(path)
    return [Path(path) for path in kept]


def _within(path: str, place: str) -> bool:
    return path == place or path.startswith(place + os.sep) or place == os.sep


def _hide(path: Path, exists: Callable[[Path], bool]) -> list[str]:
    """Mounts that make `path` empty and unreadable: a read-only tmpfs over a folder, /dev/null
    over anything else. Nothing when it does not exist (and it cannot be created: / is
    read-only, and a writable place that could hold it is handled by the sweep)."""
    if not exists(path):
        return []
    if path.is_dir() and not path.is_symlink():
        return ["--tmpfs", str(path), "--remount-ro", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def _with_bridge(socat: str, argv: list[str]) -> list[str]:
    """Start the bridge from 127.0.0.1:PROXY_PORT to the proxy's socket, wait until it listens,
    then run the command. The wait reads /proc/net/tcp with bash builtins only (no `grep`, no
    `sleep`: a process per poll cost more than the bridge itself) and gives up after 20,000
    reads; the command then finds no proxy, never an open network."""
    local = f"0100007F:{PROXY_PORT:04X}"
    script = (
        f"{socat} TCP-LISTEN:{PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "
        f"UNIX-CONNECT:{PROXY_SOCKET_INSIDE} 2>/dev/null &\n"
        "for ((i = 0; i < 20000; i++)); do\n"
        "  while read -r _ a _ st _; do\n"
        f"    [[ $a == {local} && $st == 0A ]] && break 3\n"
        "  done < /proc/net/tcp\n"
        "done\n"
        'exec "$@"\n'
    )
    return ["/bin/bash", "-c", script, "hermes-bridge", *argv]
