"""Helpers for the sandbox's outcome tests run as the user the commands run as
(`sandbox_world.runner`: the unprivileged user when the suite runs as root): a folder that
user owns, one or more terminal calls as that user, and what the user runs afterwards outside
the sandbox."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_world import REPO, runner

# One terminal call by the user the commands run as, started in the working directory (as the
# user starts hermes-tui) with the PATH and HOME given; prints the result as JSON.
CALL = """
import json, os, sys
from pathlib import Path
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
workdir, commands, skill_dirs = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
server_paths = json.loads(sys.argv[4])
os.chdir(workdir)
settings = TerminalSettings(
    sandbox="on", network="off", hermes_home=workdir / ".hermes-home",
    skill_dirs=tuple(Path(d) for d in skill_dirs),
    server_paths=tuple(Path(d) for d in server_paths),
)
registry = ToolRegistry(make_terminal_tools(settings))
context = ToolContext(cwd=workdir, workdir=workdir, approvals=Approvals(lambda _request: "once"))
results = [registry.call("terminal", {"command": c, "timeout": 60}, context) for c in commands]
print(json.dumps(results))
"""


def account() -> tuple[list[str], int | None]:
    prefix, user, _why = runner()
    return prefix, pwd.getpwnam(user).pw_uid if user else None


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder the user the commands run as owns (outside pytest's root-only tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="hermes-pathuser-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def own(folder: Path) -> None:
    _prefix, uid = account()
    if uid is None:
        return
    os.chmod(folder, 0o755)
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


def env_of(home: Path, path: str) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO), "PATH": path, "HOME": str(home)}


def terminal(
    workdir: Path,
    env: dict[str, str],
    *commands: str,
    skill_dirs: tuple[Path, ...] = (),
    server_paths: tuple[Path, ...] = (),
    python: str = sys.executable,
) -> list[dict]:
    """The results of `commands`, each one terminal call of one conversation, in order (the
    app run by `python`)."""
    prefix, _uid = account()
    dirs = json.dumps([str(d) for d in skill_dirs])
    servers = json.dumps([str(p) for p in server_paths])
    found = subprocess.run(
        [*prefix, python, "-c", CALL, str(workdir), json.dumps(commands), dirs, servers],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=110,
    )
    assert found.returncode == 0, found.stderr[-2000:]
    return json.loads(found.stdout)


def as_user(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """What the user runs afterwards, outside the sandbox."""
    prefix, _uid = account()
    return subprocess.run(
        [*prefix, *argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )
