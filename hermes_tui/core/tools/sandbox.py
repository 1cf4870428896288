"""The second wall around terminal commands: bubblewrap, and the environment children get.

The shell policy decides what may run; this limits what anything that runs can touch,
whatever the policy said. With `bwrap` on PATH (terminal.sandbox: auto or on) a command sees
the whole filesystem read-only except the working directory, /tmp and a few build caches;
the hermes home's secrets and learned state stay read-only even when the home lies inside a
writable place; `terminal.network: false` gives it no network at all. bubblewrap also sets
no_new_privs, so sudo and other setuid programs cannot gain rights inside.
Children never inherit provider keys or secret-looking variables (`scrubbed_env`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxMode = Literal["auto", "on", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "on", "off")

PROVIDER_KEYS = frozenset({"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"})
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.I)
# In the hermes home: what a terminal command must never change (memory and skill tools do,
# with their scans; config.yaml holds terminal.allow).
PROTECTED_IN_HOME = (
    ".env",
    "config.yaml",
    "SOUL.md",
    "sessions.db",
    "sessions.db-wal",
    "sessions.db-shm",
    "memories",
    "skills",
    "pending",
    "cache",  # the scanner's remembered verdicts: a forged "allow" would skip its scan
)
# Per-user caches package managers and build tools write to; read-only they break installs.
WRITABLE_CACHES = (".cache", ".npm", ".cargo", ".rustup", "go", ".m2", ".gradle", ".yarn")
# Inside those caches, what runs later outside the sandbox: folders on PATH, files the shell
# start-up sources, configs and init scripts every build reads. Bound read-only again.
PERSISTENT_IN_CACHES = (
    ".cargo/bin",
    ".cargo/env",
    ".cargo/config",
    ".cargo/config.toml",
    "go/bin",
    ".gradle/init.d",
    ".gradle/init.gradle",
    ".gradle/gradle.properties",
    ".m2/settings.xml",
)
# In the working directory: git hooks run later, outside the sandbox, when the user runs
# git. (.git/config stays writable, for `git config user.name`, `push -u`, `remote add`;
# gitguard.py undoes a command's change to it that would make git run a program.)
PERSISTENT_IN_WORKDIR = (".git/hooks",)


def scrubbed_env(environ: Mapping[str, str], passthrough: Iterable[str] = ()) -> dict[str, str]:
    """`environ` without provider keys and secret-looking names, except those passed through."""
    keep = set(passthrough)
    return {
        name: value
        for name, value in environ.items()
        if name in keep or not (name in PROVIDER_KEYS or SECRET_NAME.search(name))
    }


@dataclass(frozen=True)
class SandboxStatus:
    active: bool
    detail: str  # how it runs, or why it does not
    bwrap: str | None = None


class SandboxUnavailable(RuntimeError):
    """terminal.sandbox is on, and bubblewrap cannot run here."""


def probe(
    mode: SandboxMode,
    which: Callable[[str], str | None] = shutil.which,
) -> SandboxStatus:
    """Whether commands will run inside bubblewrap, and why (or why not)."""
    if mode == "off":
        return SandboxStatus(False, "off (terminal.sandbox: off)")
    bwrap = which("bwrap")
    if bwrap is None:
        return SandboxStatus(
            False, "bwrap (bubblewrap) is not on PATH; install the bubblewrap package"
        )
    try:
        trial = subprocess.run(
            [bwrap, *_base_args(network=False), "--", "true"],
            capture_output=True,
            text=True,
            timeout=15,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(False, f"bwrap at {bwrap} could not start: {exc}")
    if trial.returncode != 0:
        why = " ".join(trial.stderr.split())[:200] or f"exit status {trial.returncode}"
        return SandboxStatus(
            False,
            f"bwrap at {bwrap} cannot create a sandbox here ({why}); are user namespaces off?",
        )
    return SandboxStatus(True, f"bubblewrap ({bwrap})", bwrap)


def _base_args(network: bool) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session"]
    if not network:
        args.append("--unshare-net")
    return args


@dataclass(frozen=True)
class SandboxSpec:
    """What one command may touch."""

    bwrap: str
    workdir: Path
    cwd: Path
    hermes_home: Path
    user_home: Path
    network: bool = True
    extra_writable: tuple[Path, ...] = ()


def bwrap_argv(spec: SandboxSpec, argv: list[str], exists: Callable[[Path], bool]) -> list[str]:
    """`argv` wrapped in bubblewrap as `spec` says; `exists` tells which paths to bind."""
    args = [spec.bwrap, *_base_args(spec.network)]
    writable = [Path("/tmp"), spec.workdir, *spec.extra_writable]
    writable += [spec.user_home / name for name in WRITABLE_CACHES]
    for path in dict.fromkeys(writable):
        if exists(path):
            args += ["--bind", str(path), str(path)]
    # Bound after the writable places, so these stay read-only even inside them.
    read_only = [spec.hermes_home / name for name in PROTECTED_IN_HOME]
    read_only += [spec.user_home / name for name in PERSISTENT_IN_CACHES]
    read_only += [spec.workdir / name for name in PERSISTENT_IN_WORKDIR]
    for path in dict.fromkeys(read_only):
        if exists(path):
            args += ["--ro-bind", str(path), str(path)]
    args += ["--chdir", str(spec.cwd), "--", *argv]
    return args
