"""The terminal toolset: run a shell command in a working directory that persists across calls.

Per call: the shell policy (shell_policy/) decides allow / ask / deny with a reason; the
conversation's approval mode decides what of that asks (sandboxed: the policy's dangerous
categories, destroying work in the workspace, leaving the sandbox; strict: anything not proven
read-only; plan: anything not read-only is refused; yolo: nothing), and in every mode a command
that reaches for hermes-tui itself asks. "ask" is an ApprovalRequest put to the conversation's
approvals (approvals.py: a grant it holds, else the face asks the human; `chat -q` refuses
unless --yolo). Then the command runs with a scrubbed environment inside the OS sandbox
(sandbox.py), its network through the filtering proxy (netproxy.py), and protected paths it
created are moved aside afterwards. The command itself runs in command_run.py (output through a
temp file, bounded: a command whose output passes 128 MB is stopped, and only its head and tail
are read back); the registry caps what the model sees.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core import host_programs
from hermes_tui.core.records import datarecord
from hermes_tui.core.tools import schemas
from hermes_tui.core.tools.approvals import (
    ApprovalRequest,
    CommandGrant,
    Decision,
    HostGrant,
    ShellGrants,
)

# The runner and its bounds on output (command_run.py); bench/ takes run_command from here.
from hermes_tui.core.tools.command_run import run_command
from hermes_tui.core.tools.registry import Tool, ToolContext
from hermes_tui.core.tools.sandbox_probe import (
    DEFAULT_NETWORK_ALLOW,
    NetworkMode,
    SandboxMode,
    SandboxStatus,
    current_programs,
    probe,
    search_path_entries,
)
from hermes_tui.core.tools.web import make_web_tools

# The wall itself (sandbox.py), the held network namespace (netns.py) and the proxy (with its
# socketserver) are imported by the first command that needs them.
if TYPE_CHECKING:
    from hermes_tui.core.tools.netns import NetworkHolder
    from hermes_tui.core.tools.netproxy import Connection, FilteringProxy

DEFAULT_TIMEOUT = schemas.DEFAULT_TIMEOUT
MAX_TIMEOUT = 600


@datarecord
class TerminalSettings:
    """terminal.* from config, plus where the hermes home is (its files stay read-only)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: SandboxMode = "auto"
    network: NetworkMode = "allowlist"
    network_allow: tuple[str, ...] = DEFAULT_NETWORK_ALLOW
    env_passthrough: tuple[str, ...] = ()
    writable_roots: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()
    allow_read: tuple[Path, ...] = ()  # under the home, shown to commands (home_view.py)
    hermes_home: Path | None = None
    # The sandbox's private cache, or what tells it on a command's first need (a platform
    # folder costs an import a start without commands should not pay); None: under the tmp dir.
    cache_dir: Path | Callable[[], Path] | None = None
    environ: Mapping[str, str] | None = field(default=None, repr=False)  # None: os.environ
    # Where the interpreter and PATH's programs live, read when hermes-tui started
    # (`current_programs`); None: read when the tools are made.
    programs: tuple[Path, ...] | None = None
    # The user's external skills folders (skills.external_dirs, absolute): read-only to
    # commands where a writable place holds them (run_later.inside_places).
    skill_dirs: tuple[Path, ...] = ()
    # The files and folders the MCP servers start from (mcp_config.server_paths): read-only to
    # commands where a writable place holds them, as the skills folders are.
    server_paths: tuple[Path, ...] = ()
    # hermes-tui's own code and Python (own_code.locked_paths), read-only to commands where a
    # writable place holds them; None: what this process runs on, read when the tools are made.
    own_code: tuple[Path, ...] | None = None


class Sandbox:
    """Probes bubblewrap once, on the first command, and wraps commands while active; owns the
    filtering proxy of the conversation's commands."""

    def __init__(self, settings: TerminalSettings) -> None:
        self.settings = settings
        # Read now, before any command could change what lies there (sandbox.py).
        self.programs = settings.programs if settings.programs is not None else current_programs()
        # PATH's folders as the user's shell has them (run_later.on_search_path).
        environ = os.environ if settings.environ is None else settings.environ
        self.search_path = search_path_entries(environ.get("PATH", ""))
        # LD_LIBRARY_PATH, PYTHONPATH and the other loaders' paths, the same way (load_paths).
        from hermes_tui.core.tools.load_paths import APP_PATH, entries

        self.load_entries = entries(environ)
        from hermes_tui.core.tools import own_code

        self.own_code = own_code.locked_paths() if settings.own_code is None else settings.own_code
        self.own_imports = {APP_PATH: own_code.import_folders()}
        # git, bwrap, socat, nsenter: found now, outside every place commands may write.
        self.host = host_programs.settle(settings.writable_roots)
        self._status: SandboxStatus | None = None
        self._proxy: FilteringProxy | None = None
        self._holder: NetworkHolder | None = None
        self._holder_failed = False

    @property
    def status(self) -> SandboxStatus:
        if self._status is None:
            self._status = probe(self.settings.sandbox)  # with host_programs: self.host
        return self._status

    @property
    def network(self) -> NetworkMode:
        """The network a sandboxed command really gets (allowlist needs socat for its bridge)."""
        if self.settings.network == "allowlist" and self.status.socat is None:
            return "off"
        return self.settings.network

    def read_only(self, workdir: Path) -> Callable[[list[str]], list[str]] | None:
        """Wraps the app's own git in the sandbox with everything read-only and no network;
        None when the sandbox is not active."""
        status = self.status
        if not status.active or status.bwrap is None:
            return None

        def wrap(argv: list[str]) -> list[str]:
            from hermes_tui.core.tools import gitdirs
            from hermes_tui.core.tools.sandbox import Profile, bwrap_argv

            dirs = gitdirs.resolve(workdir)
            profile = Profile(
                bwrap=status.bwrap or "bwrap",
                workdir=workdir,
                cwd=workdir,
                hermes_home=self.settings.hermes_home or Path("/nonexistent"),
                user_home=Path.home(),
                cache_dir=self.cache_dir(),
                network="off",
                writable_roots=self.settings.writable_roots,
                deny_read=self.settings.deny_read,
                allow_read=self.settings.allow_read,
                programs=self.programs,
                repositories=(dirs,) if dirs is not None else (),
                read_only=True,
                socket_filter=True,
            )
            return bwrap_argv(profile, argv, exists=os.path.lexists)

        return wrap

    def cache_dir(self) -> Path:
        chosen = self.settings.cache_dir
        if callable(chosen):
            return chosen()
        if chosen is not None:
            return chosen
        return Path(tempfile.gettempdir()) / f"hermes-tui-sandbox-cache-{os.getuid()}"

    def proxy(self, context: ToolContext, command: str) -> FilteringProxy:
        from hermes_tui.core.tools.netproxy import FilteringProxy

        if self._proxy is None:
            self._proxy = FilteringProxy(self.settings.network_allow)
        self._proxy.start()
        self._proxy.state.command = command
        self._proxy.state.ask = lambda host, cmd: _ask_network(host, cmd, context)
        return self._proxy

    def argv(
        self, argv: list[str], context: ToolContext, command: str, repositories: tuple = ()
    ) -> list[str]:
        from hermes_tui.core.tools.sandbox import Profile, bwrap_argv

        status = self.status
        if not status.active or status.bwrap is None:
            return argv
        cache = self.cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        network = self.network
        proxy = self.proxy(context, command) if network == "allowlist" else None
        runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
        environ = os.environ if self.settings.environ is None else self.settings.environ
        held = self._held_network(network, proxy)
        profile = Profile(
            bwrap=status.bwrap,
            workdir=context.workdir,
            cwd=context.cwd,
            hermes_home=self.settings.hermes_home or Path("/nonexistent"),
            user_home=Path.home(),
            cache_dir=cache,
            network=network,
            writable_roots=self.settings.writable_roots,
            deny_read=self.settings.deny_read,
            allow_read=self.settings.allow_read,
            proxy_socket=proxy.socket_path if proxy else None,
            socat=status.socat,
            runtime_dir=Path(runtime_dir) if runtime_dir else None,
            held_network=held,
            repositories=repositories,
            programs=self.programs,
            search_path=self.search_path,
            locked=(*self.settings.skill_dirs, *self.settings.server_paths, *self.own_code),
            socket_filter=True,
            python=self.host.which("python3"),  # the filter's installer behind a bridge
            bytecode_cache=not environ.get("PYTHONDONTWRITEBYTECODE"),
        )
        return bwrap_argv(profile, argv, exists=os.path.lexists)

    def decide(self, host: str, port: int, context: ToolContext, what: str) -> Connection:
        """The network policy's verdict on a connection the app makes for a tool (web_fetch):
        the same allowlist, session hosts and question as a sandboxed command's."""
        from hermes_tui.core.tools.netproxy import Connection, FilteringProxy

        network = self.settings.network
        if network == "off":
            return Connection(host, port, False, "terminal.network is off")
        if network == "on":
            return Connection(host, port, True, "terminal.network is on")
        if self._proxy is None:
            self._proxy = FilteringProxy(self.settings.network_allow)  # started by a command
        state = self._proxy.state
        state.command = what
        state.ask = lambda asked, cmd: _ask_network(asked, cmd, context)
        return state.decide(host, port, record=False)

    def _held_network(self, network: NetworkMode, proxy: FilteringProxy | None) -> tuple[str, ...]:
        """The prefix that joins the conversation's network namespace (netns.py), tried once
        with a trial command; () to make one per command instead (no nsenter, or it failed)."""
        from hermes_tui.core.tools.netns import HolderUnavailable, NetworkHolder
        from hermes_tui.core.tools.sandbox import PROXY_PORT

        status = self.status
        if network != "allowlist" or status.nsenter is None or status.bwrap is None:
            return ()
        if self._holder_failed:
            return ()
        first = self._holder is None
        if first:
            self._holder = NetworkHolder(
                status.bwrap,
                status.nsenter,
                PROXY_PORT,
                status.socat if proxy is not None else None,
                proxy.socket_path if proxy is not None else None,
            )
        assert self._holder is not None
        try:
            prefix = tuple(self._holder.prefix())
            if first:
                trial = [*prefix, status.bwrap, "--ro-bind", "/", "/", "--unshare-user"]
                subprocess.run([*trial, "--", "true"], check=True, capture_output=True, timeout=15)
        except (HolderUnavailable, OSError, subprocess.SubprocessError):
            self._holder_failed = True
            self._holder.close()
            return ()
        return prefix

    def connections(self) -> list[Connection]:
        return self._proxy.state.take_log() if self._proxy is not None else []

    def close(self) -> None:
        if self._holder is not None:
            self._holder.close()
            self._holder = None
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None


def _ask_network(host: str, command: str, context: ToolContext) -> Decision:
    """The proxy's question about an unlisted host, asked as a terminal approval."""
    if context.approval_mode == "yolo":
        return "once"
    request = ApprovalRequest(
        command,
        "network",
        (f"it connects to {host}, which is not on terminal.network_allow",),
        HostGrant(host.lower()),
    )
    if request.grant is not None and context.approvals.holds(request.grant):
        return "session"
    return "once" if context.approvals.ask(request) else "deny"


def _refusal(text: str) -> dict[str, Any]:
    return {"success": False, "denied": True, "error": text}


def make_terminal_tools(settings: TerminalSettings | None = None) -> list[Tool]:
    settings = settings or TerminalSettings()
    sandbox = Sandbox(settings)

    def questions(
        command: str, context: ToolContext, outside: bool
    ) -> tuple[ApprovalRequest | None, str | None]:
        """(what to ask the human about this command in the conversation's mode, or None;
        why it is refused outright, or None)."""
        from hermes_tui.core.tools import workspace_git
        from hermes_tui.core.tools.git_entered import prove_in_workspace
        from hermes_tui.core.tools.sandbox import unreadable_paths
        from hermes_tui.core.tools.shell_policy import PolicyConfig, decide
        from hermes_tui.core.tools.shell_policy.guards import destroys_work, reaches_hermes

        verdict = decide(
            command,
            context.cwd,
            context.workdir,
            Path.home(),
            PolicyConfig(settings.allow, settings.deny),
            context.approvals.shell_grants(),
            realpath=context.approvals.realpath,
        )
        if verdict.action == "deny":
            return None, f"not run: {verdict.reason}, so it is never run"
        mode = context.approval_mode
        reasons: list[str] = []
        # The category of the first reason; a session grant only when every reason has one.
        category, grant = "", None
        grantable = True
        if settings.hermes_home is not None and (
            why := reaches_hermes(command, str(settings.hermes_home), str(context.cwd))
        ):
            reasons.append(why)  # every mode, yolo included: self-approval is for a human
            category, grantable = "hermes home", False
        if mode in ("strict", "plan") or (mode == "sandboxed" and not sandbox.status.active):
            unreadable = unreadable_paths(  # what the proof counts as outside too
                Path.home(),
                settings.hermes_home or Path("/nonexistent"),
                settings.deny_read,
                (context.workdir, *settings.writable_roots),
            )
            proof = prove_in_workspace(command, context.cwd, context.workdir, unreadable)
            if not proof.proven or verdict.action == "ask":
                why_not = proof.reason or verdict.reason
                if mode == "plan":
                    return None, f"plan mode: only commands proven read-only run ({why_not})"
                label = "strict mode" if mode == "strict" else "no sandbox here (strict mode)"
                reasons.append(f"{label}: {why_not}")
                category = category or "strict mode"
                # Proven nothing: only this exact line, here, again.
                grant = CommandGrant(command, str(context.cwd))
        elif mode == "sandboxed":
            if verdict.action == "ask":
                reasons.append(verdict.reason)
                category = category or verdict.findings[0].category
                if verdict.grants:
                    grant = ShellGrants(verdict.grants)
                else:
                    grantable = False  # "cannot tell": nothing to name, so once only
            wrap = sandbox.read_only(context.workdir)  # active here: strict mode otherwise
            tracked, dirty = workspace_git.tracked_and_dirty(context.workdir, wrap)
            if why := destroys_work(
                command, str(context.cwd), str(context.workdir), tracked, dirty
            ):
                reasons.append(why)
                category, grantable = category or "destroys work", False
        if outside and mode != "yolo":
            reasons.append("it asks to run outside the sandbox")
            category, grantable = category or "outside the sandbox", False
        if not reasons:
            return None, None
        return ApprovalRequest(
            command, category, tuple(reasons), grant if grantable else None
        ), None

    def terminal(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        from hermes_tui.core.tools import gitdirs, gitguard, home_links, load_paths, package_hooks
        from hermes_tui.core.tools.run_later import (
            inside_places,
            named,
            on_search_path,
            project_bins,
            shadowing_folders,
        )
        from hermes_tui.core.tools.runs_named import Held
        from hermes_tui.core.tools.sandbox import scrubbed_env, wall_refusal
        from hermes_tui.core.tools.sweep import (
            identities,
            moved_to,
            shadow_programs,
            sweep_created,
            sweep_shadows,
            swept_paths,
        )

        command = str(args["command"])
        # A session's own working directory (an ACP editor's) is avoided too, from its start.
        sandbox.host = host_programs.settle([context.workdir, *settings.writable_roots])
        timeout = min(float(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
        outside = args.get("sandbox") is False
        if outside and not str(args.get("justification") or "").strip():
            return _refusal(
                "not run: sandbox: false needs a justification saying why the command cannot "
                "run in the sandbox; the user sees it when asked"
            )
        request, refused = questions(command, context, outside)
        if refused is not None:
            return _refusal(
                f"{refused}. Do it another way, or ask the user to run it themselves."
                if refused.startswith("not run")
                else f"{refused}. Propose the command to the user instead."
            )
        if request is not None:
            if outside:
                request = dataclasses.replace(
                    request, reasons=(*request.reasons, f"({args.get('justification')})")
                )
            if not context.approvals.ask(request):
                return _refusal(
                    f"not run: this command needs approval ({request.reason}) and it was not "
                    "approved. Find a safer way, or ask the user to run it themselves."
                )
        where = (context.workdir, settings.writable_roots)
        if refused := wall_refusal(settings.sandbox, sandbox.status, *where, outside=outside):
            return {"success": False, "error": f"not run: {refused}"}
        environ = os.environ if settings.environ is None else settings.environ
        env = scrubbed_env(environ, settings.env_passthrough)
        before = gitguard.snapshot_workspace(context.workdir)
        repositories = tuple(gitdirs.repositories(context.workdir, [*before.nested]))
        places = [context.workdir, *settings.writable_roots]
        bins = project_bins(context.workdir, Path.home())
        on_path = on_search_path(sandbox.search_path, places, bins, context.workdir)
        shadowing = shadowing_folders(sandbox.search_path, places, bins, context.workdir)
        locked = inside_places(
            (*settings.skill_dirs, *settings.server_paths, *sandbox.own_code), places
        )
        trees = [context.workdir, *(dirs.tree for dirs in repositories)]
        own = home_links.held(Path.home(), places, settings.hermes_home, trees=trees)
        own = [item.path for item in own]
        swept = [*swept_paths(context.workdir), *on_path, *locked, *own]
        before_sweep = identities(swept)
        before_shadows = shadow_programs(shadowing)
        loads = load_paths.folders(sandbox.load_entries, places, context.workdir)
        loads += load_paths.folders(sandbox.own_imports, places, context.workdir)
        before_loads = load_paths.loadable(loads)
        before_package = package_hooks.snapshot(context.workdir)
        before_nested = package_hooks.snapshot_nested(context.workdir)
        # What a hook, hook runner or .envrc runs by path (runs_named.py): swept like .envrc.
        held = Held.before(named(context.workdir, repositories))
        swept += held.swept
        before_sweep.update(identities(held.swept))
        wrap = None if outside else (lambda a: sandbox.argv(a, context, command, repositories))
        result = run_command(command, context, timeout, env=env, wrap=wrap)
        if wrap is not None and _setup_raced(result):
            # A path the profile listed vanished before bubblewrap mounted it (the user's
            # runtime folder at a logout, a folder another process removed): the command never
            # started, and the next profile is made from what is there now.
            result = run_command(command, context, timeout, env=env, wrap=wrap)
        undone = gitguard.restore_workspace(before, context.workdir)
        quarantine = _quarantine_dir(settings, context)
        swept += swept_paths(context.workdir)  # a new hermes_tui.py is one too
        moved = []
        if sandbox.status.active:
            moved = sweep_created(swept, before_sweep, quarantine)
            moved += sweep_shadows(shadowing, before_shadows, quarantine)
            moved += load_paths.sweep(loads, before_loads, quarantine)
            if hooks := package_hooks.restore(before_package, context.workdir, quarantine):
                undone.append(hooks)
            undone += package_hooks.restore_nested(before_nested, context.workdir, quarantine)
        # A hook link's target put back like a hook; the others named when changed, not moved.
        undone += held.after(context.workdir, repositories, {old for old, _ in moved})
        connections = sandbox.connections()
        if connections:
            result["network"] = [
                {"host": c.host, "port": c.port, "allowed": c.allowed, "how": c.how}
                for c in connections
            ]
        if moved:
            undone.append(
                "created or replaced "
                + ", ".join(dict.fromkeys(_shown(old, context.workdir) for old, _ in moved))
                + f", which run later outside the sandbox; {moved_to(moved, quarantine)}"
            )
        if undone:
            result["success"] = False
            result["error"] = (
                "the command " + "; and ".join(undone) + ". Do not change what runs later; "
                "ask the user to do it themselves."
            )
        return result

    def preview(result: dict[str, Any]) -> str:
        lines = len(result.get("output", "").splitlines())
        return f"exit {result.get('exit_code')} · {lines:,} line{'' if lines == 1 else 's'}"

    return [
        Tool(**schemas.TERMINAL, handler=terminal, preview=preview, close=sandbox.close),
        # web_fetch shares this sandbox's network policy: one allowlist, one set of hosts
        # allowed for the session.
        *make_web_tools(sandbox.decide, settings.network_allow),
    ]


def _setup_raced(result: dict[str, Any]) -> bool:
    """Whether bubblewrap failed to set the sandbox up because a path changed under it (its own
    error, before the command ran)."""
    first = str(result.get("output", "")).partition("\n")[0]
    return result.get("exit_code") == 1 and (
        first.startswith("bwrap: Can't find source path")
        or (
            first.startswith(("bwrap: Can't mkdir", "bwrap: Can't create file at"))
            and first.endswith("Read-only file system")
        )
    )


def _shown(path: Path, workdir: Path) -> str:
    """`path` relative to the working directory when it lies there, else whole."""
    return str(path.relative_to(workdir)) if path.is_relative_to(workdir) else str(path)


def _quarantine_dir(settings: TerminalSettings, context: ToolContext) -> Path:
    home = settings.hermes_home or Path(tempfile.gettempdir())
    return home / "scratch" / (context.session_id or "no-session") / "moved-aside"
