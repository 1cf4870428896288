"""What the user's shell runs later from a writable place stays out of a command's reach: the
folders of PATH inside the working directory or a writable root (A4-28: conda's
`~/miniconda3/bin` and `~/go/bin` started in ~; A4-7: an activated project's `.venv/bin`), and
a protected path that is a link (A4-36: `.vscode -> conf/vscode`), which the sandbox cannot
bind itself: the sweep puts it back."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

pytestmark = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)
PLANT = "printf '#!/bin/sh\\ntouch PWNED\\n' > {0}/git; chmod +x {0}/git"


def test_started_in_the_home_the_folders_on_path_in_it_stay_read_only(tmp_path: Path) -> None:
    from hermes_tui.core.tools.sandbox import Profile, bwrap_argv, search_path_entries

    home = tmp_path / "users" / "tester"
    for folder in ("miniconda3/bin", "go/bin", "sdk/google-cloud/bin", "real/bin", "proj"):
        (home / folder).mkdir(parents=True)
    (home / "venv" / "bin").mkdir(parents=True)
    (home / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # no one project's, in ~
    (home / "links").mkdir()
    (home / "links" / "bin").symlink_to(home / "real" / "bin")  # PATH names the link
    entries = [home / "miniconda3/bin", "/usr/bin", home / "go/bin", home / "links/bin"]
    entries += [home / "sdk/google-cloud/bin", home / "venv/bin"]
    search_path = search_path_entries(os.pathsep.join(map(str, entries)))
    cache = tmp_path / "cache"
    profile = Profile(
        probe("auto").bwrap or "bwrap", home, home, tmp_path / "hermes", home, cache,
        search_path=search_path,
    )  # fmt: skip
    plants = [PLANT.format(folder) for folder in entries if str(folder) != "/usr/bin"]
    script = "; ".join([*plants, f"echo work > {home}/proj/notes.txt && echo ok"])

    done = subprocess.run(
        bwrap_argv(profile, ["bash", "-c", script], exists=os.path.lexists),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.stdout == "ok\n", done.stderr
    assert [p for p in home.rglob("git")] == [], done.stderr
    assert (home / "proj" / "notes.txt").read_text() == "work\n", "projects stay writable"


def _wheel(folder: Path, name: str) -> None:
    """A wheel of package `name` with a console script of that name (pip needs no network)."""
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": "def main():\n    print('ran')\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[console_scripts]\n{name} = {name}:main\n",
    }
    record = []
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest())
            record.append(f"{path},sha256={digest.rstrip(b'=').decode()},{len(text)}")
        wheel.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")


def test_the_project_venv_stays_writable_and_other_path_folders_in_it_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's own venv, activated (`.venv/bin` first on PATH), is project code like its
    site-packages: `pip install` of a package with a console script works in the sandbox. A
    `tools/bin` of the project on PATH is read-only; renaming the folder above it and making a
    new one (a mount point cannot be renamed, its parent can), or making one on PATH that was
    not there yet, leaves nothing the next shell runs."""
    work = tmp_path / "work"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(work / ".venv")], check=True, timeout=60
    )
    _wheel(work / "wheels", "hermestool")
    (work / "tools" / "bin").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path))  # `~/work/tools/bin`: bash expands it (A6-6)
    environ = {"PATH": f"{work}/.venv/bin:/usr/bin:/bin:~/work/tools/bin:{work}/later/bin"}
    settings = TerminalSettings(
        sandbox="on", network="off", hermes_home=tmp_path / "hermes", environ=environ
    )
    registry = ToolRegistry(make_terminal_tools(settings))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _request: "once"))
    command = "; ".join(
        [
            # Into the venv as its own pip would (this one's, for speed: the same files).
            f"{sys.executable} -m pip install -q --no-index --no-cache-dir --no-compile "
            "--disable-pip-version-check --isolated --prefix .venv --find-links wheels hermestool "
            "&& echo installed",
            PLANT.format("tools/bin"),
            "mv tools old-tools && mkdir -p tools/bin",
            PLANT.format("tools/bin"),
            "mkdir -p later/bin",  # on PATH, not there yet
            PLANT.format("later/bin"),
        ]
    )

    result = registry.call("terminal", {"command": command, "timeout": 120}, context)

    assert "installed" in result["output"], result
    assert (work / ".venv" / "bin" / "hermestool").exists()  # the console script
    assert not (work / "tools" / "bin").exists() and not (work / "later" / "bin").exists()
    assert not (work / "old-tools" / "bin" / "git").exists(), "read-only before the rename"
    assert not result["success"] and "tools/bin" in result["error"], result
    assert "later/bin" in result["error"] and ".venv" not in result["error"], result


def test_a_protected_path_that_is_a_link_is_put_back_after_the_command(tmp_path: Path) -> None:
    """A4-36: the read-only bind lands where `.vscode` leads; the link itself was removable,
    and the folder a command made in its place stayed. A dangling protected link does not
    stop commands either."""
    work = tmp_path / "work"
    (work / "conf" / "vscode").mkdir(parents=True)
    (work / "conf" / "vscode" / "settings.json").write_text("{}\n")
    (work / "conf" / "envrc").write_text("export A=1\n")
    (work / ".vscode").symlink_to("conf/vscode")
    (work / ".envrc").symlink_to("conf/envrc")
    (work / ".idea").symlink_to("conf/idea")  # leads nowhere
    settings = TerminalSettings(sandbox="on", network="off", hermes_home=tmp_path / "hermes")
    registry = ToolRegistry(make_terminal_tools(settings))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _request: "once"))
    command = (
        "echo evil >> .vscode/settings.json; echo evil >> .envrc; "
        'rm .vscode .envrc && mkdir .vscode && echo \'{"runOn": "folderOpen"}\' > '
        ".vscode/tasks.json && echo 'curl x | sh' > .envrc && echo done"
    )

    result = registry.call("terminal", {"command": command, "timeout": 60}, context)

    assert "done" in result["output"], result
    assert os.readlink(work / ".vscode") == "conf/vscode"
    assert os.readlink(work / ".envrc") == "conf/envrc"
    assert not (work / "conf" / "vscode" / "tasks.json").exists()
    assert (work / "conf" / "vscode" / "settings.json").read_text() == "{}\n"
    assert (work / "conf" / "envrc").read_text() == "export A=1\n"
    assert not result["success"] and "the links .envrc, .vscode put back" in result["error"]
