"""A project and its venv under /tmp: the sandbox's private /tmp must not hide them.

A command gets a fresh /tmp, so whatever lies under the real one is gone inside. The workspace
is mounted back writable; the interpreter, its venv and import path and the folders on PATH
are mounted back read-only, so `python` in a clone under /tmp is still the project's Python.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import Profile, bwrap_argv, interpreter_paths, probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

needs_bwrap = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    """A folder under the real /tmp whatever TMPDIR says (the case being tested)."""
    folder = Path(tempfile.mkdtemp(prefix="hermes-sandbox-tmp-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _mounts(profile: Profile) -> list[tuple[str, str]]:
    argv = bwrap_argv(profile, ["true"], exists=lambda _path: True)
    pairs = []
    for index, arg in enumerate(argv):
        if arg in ("--tmpfs", "--bind", "--ro-bind"):
            pairs.append((arg, argv[index + 2] if arg != "--tmpfs" else argv[index + 1]))
    return pairs


def test_programs_under_tmp_are_mounted_back_read_only_beneath_the_writable_places() -> None:
    venv, work = Path("/tmp/clone/.venv"), Path("/tmp/clone")
    profile = Profile(
        "bwrap",
        work,
        work,
        Path("/nonexistent"),
        Path("/home/u"),
        Path("/tmp/cache"),
        network="off",
        programs=(venv, venv / "lib", Path("/usr/lib/python3"), Path("/tmp"), Path("/var/tmp/x")),
    )
    mounts = _mounts(profile)
    venv_bind = mounts.index(("--ro-bind", str(venv)))
    # After the private /tmp (or it would be hidden again), before the writable workspace (a
    # venv inside the workspace stays as writable as the rest of it).
    assert mounts.index(("--tmpfs", "/tmp")) < venv_bind < mounts.index(("--bind", str(work)))
    assert ("--ro-bind", "/var/tmp/x") in mounts
    # Outside /tmp it is visible anyway; /tmp itself would undo the private /tmp; inside the
    # venv it is already there.
    assert ("--ro-bind", "/usr/lib/python3") not in mounts
    assert ("--ro-bind", "/tmp") not in mounts
    assert ("--ro-bind", str(venv / "lib")) not in mounts


def test_a_venv_on_path_counts_as_its_whole_folder(under_tmp: Path) -> None:
    venv = under_tmp / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    tools = under_tmp / "tools"
    found = interpreter_paths(["/usr"], ["", "relative"], f"{venv}/bin:{tools}:bin")
    assert found == (Path("/usr"), venv, tools)


@needs_bwrap
def test_a_project_and_its_venv_under_tmp_are_seen_by_commands(
    under_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = under_tmp / "project"
    work.mkdir()
    (work / "notes.txt").write_text("in the workspace\n")
    venv = under_tmp / "project-venv"  # beside the workspace, not in it: only mounted back
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60
    )
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="on", network="off")))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _request: "once"))

    result = registry.call(
        "terminal",
        {
            "command": "cat notes.txt && python -c 'import sys; print(sys.prefix)' "
            '&& touch written && ! touch "$(dirname "$(command -v python)")/x"',
            "timeout": 60,
        },
        context,
    )

    assert result["success"], result
    assert "in the workspace" in result["output"]
    assert str(venv) in result["output"]  # the venv's own python ran, not another one
    assert (work / "written").exists()  # the workspace is still writable
    assert not (venv / "bin" / "x").exists()  # the venv is read-only
