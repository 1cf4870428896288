"""`hermes-tui doctor`: one line per health check of config, home, stores and SQLite.

With `--ping`, one tiny real request to the provider (core/llm/ping.py) reports latency, the
model that answered, and whether streaming and tool calls work.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import hermes_tui
from hermes_tui.core import host_programs

if TYPE_CHECKING:
    from hermes_tui.core.skills.library import SkillLibrary

PING_TIMEOUT = 30.0  # seconds; a ping that hangs longer is a failure worth reporting


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    # Worth the user's attention, not a failure (ignored config keys, duplicate skill names).
    warning: bool = False


def fts5_available() -> bool:
    try:
        connection = sqlite3.connect(":memory:")
        try:
            connection.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
        finally:
            connection.close()
    except sqlite3.OperationalError:
        return False
    return True


def _home_writable(home: Path) -> Check:
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-", delete=True):
            pass
    except OSError as exc:
        return Check("home writable", False, f"{home}: {exc.strerror or exc}")
    return Check("home writable", True, str(home))


def _skill_checks(library: SkillLibrary, environ=None) -> list[Check]:
    """A summary line, then each duplicate name, each SKILL.md that cannot be parsed, and each
    skill whose required environment variables are unset (Hermes' setup prompt)."""
    from hermes_tui.core.skills.requirements import missing_variables, runs_here

    skills = library.scan()
    lenient = sum(1 for skill in skills if skill.warnings)
    summary = f"{len(skills)} found in {len(library.roots)} roots"
    if lenient:
        summary += f"; {lenient} load with warnings (see `skills list`)"
    checks = [Check("skills", True, summary)]
    for skill in skills:
        if skill.duplicate_of is not None:
            detail = (
                f"duplicate name {skill.name!r}: {skill.skill_md} (the name belongs to "
                f"{skill.duplicate_of}); address this one as {skill.address!r}"
            )
            checks.append(Check("skills", True, detail, warning=True))
        elif skill.broken:
            checks.append(Check("skills", True, f"cannot be loaded: {skill.error}", warning=True))
        elif (
            environ is not None
            and skill.document is not None
            and runs_here(skill.document.frontmatter)
            and (missing := missing_variables(skill.document.frontmatter, environ))
        ):
            names = ", ".join(v.name for v in missing)
            detail = f"{skill.name} needs {names}: set it in the environment or <home>/.env"
            checks.append(Check("skills", True, detail, warning=True))
    return checks


def _sessions_db(path: Path) -> Check:
    """`PRAGMA quick_check` over sessions.db, opened read-only: doctor reports, never repairs."""
    if not path.exists():
        return Check("sessions.db", True, f"{path} not created yet")
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=2)
        try:
            problems = [str(row[0]) for row in connection.execute("PRAGMA quick_check")]
        finally:
            connection.close()
    except sqlite3.Error as exc:
        problems = [str(exc)]
    if problems == ["ok"]:
        return Check("sessions.db", True, f"quick_check ok ({path.stat().st_size:,} bytes)")
    if any("locked" in problem for problem in problems):
        return Check("sessions.db", False, f"{path} is locked by another process; retry later")
    return Check(
        "sessions.db",
        False,
        f"{path} is damaged: {'; '.join(problems[:3])}. Move it aside to start a new one "
        "(hermes-tui does so by itself, to sessions.db.corrupt-<time>, when it cannot open it).",
    )


def _sandbox_checks(runtime) -> list[Check]:
    """The approval mode and why, whether commands run inside bubblewrap (and why not), and
    the profile they get: what is writable, read-only, unreadable, and the network."""
    from hermes_tui.core.tools.sandbox import unwalled_place
    from hermes_tui.core.tools.sandbox_describe import describe_profile

    terminal = runtime.config.terminal
    status = runtime.sandbox_status()
    mode = runtime.approval_mode()
    if terminal.mode == "auto":
        why = (
            "terminal.mode: auto, and the sandbox works here"
            if status.active
            else "terminal.mode: auto, and there is no sandbox here"
        )
    else:
        why = f"terminal.mode: {terminal.mode}"
    meaning = {
        "sandboxed": "commands run in the sandbox without asking, except the dangerous ones, "
        "destroying work, unlisted hosts and leaving the sandbox",
        "strict": "only commands proven read-only run without asking",
        "plan": "only commands proven read-only run; everything else is refused",
        "yolo": "nothing asks but reaching hermes-tui itself",
    }[mode]
    checks = [Check("approval mode", True, f"{mode} ({why}): {meaning}", warning=mode == "yolo")]
    if status.active:
        checks.append(Check("terminal sandbox", True, f"active: {status.detail}"))
    elif terminal.sandbox == "on":
        checks.append(
            Check(
                "terminal sandbox",
                False,
                f"terminal.sandbox is on but unavailable: {status.detail}",
            )
        )
    else:
        why_off = status.detail if terminal.sandbox == "off" else f"inactive: {status.detail}"
        checks.append(
            Check(
                "terminal sandbox",
                True,
                f"{why_off}; commands run as you, with the shell policy only (strict mode is "
                "the safe choice)",
                warning=True,
            )
        )
    roots = [Path(p).expanduser() for p in terminal.writable_roots]
    place = unwalled_place(Path.cwd(), roots) if status.active else None
    if place is not None:
        checks.append(
            Check(
                "sandbox place",
                False,
                f"{place} is never made writable (it holds your tmux and ssh-agent sockets): "
                "every command is refused here; start hermes-tui in a folder of its own"
                + (" or name one in terminal.writable_roots" if place != Path.cwd() else ""),
            )
        )
    own = _own_code_check([Path.cwd(), *roots])
    if own is not None:
        checks.append(own)
    skills = _skill_dirs_check(runtime.config.skills.external_dirs, [Path.cwd(), *roots])
    if skills is not None:
        checks.append(skills)
    found = host_programs.settle(Path(p).expanduser() for p in terminal.writable_roots)
    if found.dropped:
        checks.append(
            Check(
                "PATH",
                True,
                f"PATH holds folders in places commands may write (or relative ones): "
                f"{', '.join(found.dropped)}; hermes-tui runs its own git, bwrap, socat and "
                f"nsenter only from the other folders (git: {found.which('git') or 'none'}); "
                "sandboxed commands find such a folder read-only (a relative one as seen from "
                "the working directory), but not the project's own venv (project code); "
                "in the working directory itself and node_modules/.bin only a program named "
                "like a system one (git, ls) that a command leaves is moved aside: another "
                "program you run yourself from those may be one a command wrote there",
                warning=True,
            )
        )
    from hermes_tui.core.tools.load_paths import entries, warning

    if loads := warning(entries(os.environ), [Path.cwd(), *roots], Path.cwd()):
        checks.append(Check("search paths", True, loads, warning=True))
    applied = "" if status.active else " (not applied: the sandbox is off)"
    for what, detail in describe_profile(
        user_home=Path.home(),
        hermes_home=runtime.home,
        cache_dir=runtime.sandbox_cache_dir(),
        writable_roots=roots,
        deny_read=[Path(p).expanduser() for p in terminal.deny_read],
        allow_read=[Path(p).expanduser() for p in terminal.allow_read],
        network=terminal.network,
        network_allow=terminal.network_allow,
        socat=status.socat if status.active else found.which("socat"),
        workdir=Path.cwd(),
    ):
        checks.append(Check(f"sandbox {what}", True, detail + applied))
    return checks


def _skill_dirs_check(external: tuple[str, ...], writable: list[Path]) -> Check | None:
    """A warning when a skills.external_dirs folder is the working directory or a writable
    root (or holds one): commands and the files tools write it there (one inside is read-only
    to commands, run_later.inside_places), and what lies there loads into every session."""
    places = [place.resolve() for place in writable]
    exposed = [
        str(folder)
        for folder in (Path(p).expanduser().resolve() for p in external)
        if any(place == folder or place.is_relative_to(folder) for place in places)
    ]
    if not exposed:
        return None
    return Check(
        "skills folders",
        True,
        f"skills.external_dirs {', '.join(exposed)} is where commands may write (the working "
        "directory or terminal.writable_roots): what a command or the files tools leave there "
        "is in every later session's skills index; start hermes-tui elsewhere to keep it as is",
        warning=True,
    )


def _own_code_check(writable: list[Path]) -> Check | None:
    """A warning when hermes-tui's own code or the Python it runs on lies where a command may
    write (the working directory, a writable root): a command could change the code that runs,
    unsandboxed, at the next start (a `.pth` file in site-packages, an edited module)."""
    own = {
        "hermes-tui's code": Path(hermes_tui.__file__).resolve().parent,
        "its Python environment": Path(sys.prefix).resolve(),
    }
    places = [place.resolve() for place in writable]
    exposed = [
        f"{what} ({path})"
        for what, path in own.items()
        if any(path.is_relative_to(place) for place in places)
    ]
    if not exposed:
        return None
    return Check(
        "own code",
        True,
        f"{' and '.join(exposed)} lie where commands may write (the working directory or "
        "terminal.writable_roots): what a command changed there would run unsandboxed at the "
        "next start, so the Python environment, its site-packages and the hermes_tui folder "
        "are read-only to sandboxed commands (they cannot install into it), but not with the "
        "sandbox off; run hermes-tui from an environment outside the project",
        warning=True,
    )


def run_checks(args: argparse.Namespace) -> list[Check]:
    from hermes_tui.config import ConfigError, Overrides, resolve_home
    from hermes_tui.runtime import Runtime

    checks: list[Check] = []
    home = resolve_home(args.home)
    try:
        runtime = Runtime.open(args.home, Overrides(args.provider, args.model, args.base_url))
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
        checks.append(_home_writable(home))
        return checks
    config = runtime.config
    source = config.config_path if config.config_path.exists() else "defaults (no config.yaml)"
    checks.append(Check("config", True, f"parsed {source}"))
    checks.extend(Check("config", True, warning, warning=True) for warning in config.warnings)
    if config.unused_hermes_keys:
        checks.append(
            Check(
                "config",
                True,
                "Hermes keys not used by hermes-tui (Hermes still reads them): "
                + ", ".join(config.unused_hermes_keys),
                warning=True,
            )
        )
    checks.append(_home_writable(home))
    env_file = home / ".env"
    if env_file.exists() and env_file.stat().st_mode & 0o077:
        checks.append(
            Check(
                ".env permissions", False, f"{env_file} is readable by others; run chmod 600 on it"
            )
        )
    for target, problem in runtime.memory.health().items():
        usage = runtime.memory.usage(target)
        name = f"memory {target}"
        secrets = runtime.memory.secrets_notice(target)
        detail = f"{len(runtime.memory.entries(target))} entries, {usage}"
        checks.append(
            Check(
                name,
                problem is None,
                problem or (f"{detail}; {secrets}" if secrets else detail),
                warning=secrets is not None,
            )
        )
    checks.extend(_skill_checks(runtime.skills, runtime.skill_runtime_settings().environ))
    checks.extend(_sandbox_checks(runtime))
    has_fts5 = fts5_available()
    detail = f"SQLite {sqlite3.sqlite_version}"
    if not has_fts5:
        detail += ": FTS5 missing, session search falls back to slower LIKE matching"
    checks.append(Check("sqlite fts5", has_fts5, detail))
    checks.append(_sessions_db(home / "sessions.db"))
    from hermes_tui.core.llm import select
    from hermes_tui.core.llm.base import ProviderNotConfigured, ProviderSettingsError

    try:
        spec = select.choose(config)
        where = f" at {spec.base_url}" if spec.base_url else ""
        checks.append(Check("provider", True, f"{spec.name} · {spec.model}{where}"))
    except ProviderSettingsError as exc:
        checks.append(Check("provider", False, str(exc)))
        spec = None
    except ProviderNotConfigured as exc:
        # Offline is a supported way to run (memory, skills and sessions work), not a failure;
        # but nothing can answer a message, which is worth a warning, never an "ok".
        checks.append(Check("provider", True, f"none (offline): {exc}", warning=True))
        spec = None
    if getattr(args, "ping", False):
        checks.extend(ping_checks(spec))
    checks.extend(_mcp_checks(runtime))
    return checks


def _mcp_checks(runtime) -> list[Check]:
    """Start each configured MCP server, report it with its stderr tail, stop it."""
    manager = runtime.mcp
    if manager is None:
        return []
    manager.start()
    try:
        manager.freeze()
        rows = manager.describe()
        warnings = list(manager.warnings)
    finally:
        manager.stop()
    checks = []
    for row in rows:
        name = f"mcp {row['name']}"
        if row["status"] == "ready":
            checks.append(Check(name, True, f"{row['transport']}, {row['tools']} tools"))
        elif row["status"] == "disabled":
            checks.append(Check(name, True, "disabled (enabled: false)", warning=True))
        else:
            tail = row["stderr"].splitlines()[-3:] if row["stderr"] else []
            detail = row["error"] + "".join(f"\n      stderr: {line}" for line in tail)
            checks.append(Check(name, False, detail))
    checks.extend(Check("mcp", True, warning, warning=True) for warning in dict.fromkeys(warnings))
    return checks + _wide_roots(manager)


def _wide_roots(manager) -> list[Check]:
    """A warning for a stdio server given your home or `/` (a filesystem server "to see my
    files"): it reads and writes there outside the sandbox; a call naming a secret or a
    startup file asks first (mcp_asks.py), anything else there it does unasked."""
    from hermes_tui.core.tools.mcp_config import server_paths

    wide = {Path.home().resolve(), Path("/")}
    checks = []
    for state in manager.states.values():
        roots = [p for p in server_paths(state.config, Path.cwd()) if p.resolve() in wide]
        if roots:
            checks.append(
                Check(
                    f"mcp {state.name}",
                    True,
                    f"is given {roots[0]}: it reads and writes everything there outside the "
                    "sandbox (a call naming a credential or a startup file asks first); give it "
                    "the project's folder only",
                    warning=True,
                )
            )
    return checks


def _tool_call_problem(result) -> str:
    problem = result.tool_call_problem()
    if result.reply and not result.other_tools:
        problem += f" ({result.reply[:80]!r})"
    return problem


def ping_checks(spec) -> list[Check]:
    """`--ping`: one real request; a failure says why, a success what works."""
    from hermes_tui.core.llm.ping import ping
    from hermes_tui.core.llm.select import open_provider

    if spec is None:
        return [Check("ping", False, "no provider to ping (see the provider line above)")]
    result = ping(open_provider(spec, timeout=PING_TIMEOUT))
    if not result.ok:
        return [Check("ping", False, result.summary())]
    return [
        Check("ping", True, result.summary()),
        Check(
            "streaming",
            bool(result.streaming),
            "the reply streamed"
            if result.streaming
            else "the server sent one JSON body instead of a stream; replies appear all at once",
        ),
        Check(
            "tool calls",
            bool(result.tool_calls),
            "the model called the offered tool"
            if result.tool_calls
            else f"{_tool_call_problem(result)}; the agent needs a model and server with tool "
            "calling",
        ),
    ]
