"""The app's own git never runs a program a command planted in the workspace (attack4 A4-1,
A4-7), judged by outcome: the marker a planted filter, include or `git` would write.

A4-1: a git config spelt so that a hand-written parser misreads it (a UTF-8 BOM, two headers on
one line, CRLF or CR-only line ends) includes a file that defines a clean filter; git reads it,
and the app's own `git status` (before `git reset --hard`) or the user's next one ran it. A4-7:
with the project's venv activated, a `git` a command writes into `.venv/bin` ran instead of the
real one. The git guard and the app's git ask git itself what a config sets, refuse includes,
and run the git found at start outside every place commands may write.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.core import host_programs
from hermes_tui.core.tools import workspace_git
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import Sandbox, TerminalSettings, make_terminal_tools

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_bwrap = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)
# How a command spells `[include] path = ../inc.cfg` so that a parser of our own misreads it.
SPELLINGS = {
    "bom": b"\xef\xbb\xbf[include]\n\tpath = ../inc.cfg\n",
    "two-headers": b"[core] [include]\n\tpath = ../inc.cfg\n",
    "crlf": b"[include]\r\n\tpath = ../inc.cfg\r\n",
    "cr-only": b"[core]\r[include]\r\tpath = ../inc.cfg\r",
}
QUIET = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    who = ["-c", "user.name=a", "-c", "user.email=a@b"]
    return subprocess.run(
        ["git", "-C", str(repo), *who, *args], capture_output=True, env={**os.environ, **QUIET}
    )


def _plant_script(head: bytes, marker: Path, where: str = ".") -> str:
    """A Python script a command runs: a repository in `where` whose config starts with `head`
    (an include of `<where>/inc.cfg` spelt oddly), a filter there, and a tracked file whose
    stat data changed, so that `git status` runs the filter's clean command."""
    return f"""
import os, subprocess
w = {where!r}
os.makedirs(w, exist_ok=True)
g = lambda *a: subprocess.run(["git", "-C", w, "-c", "user.name=a", "-c", "user.email=a@b", *a], check=True)
g("init", "-q")
open(os.path.join(w, "f.txt"), "w").write("hello\\n")
g("add", "f.txt")
g("commit", "-qm", "init")
cfg = os.path.join(w, ".git", "config")
old = open(cfg, "rb").read()
open(cfg, "wb").write({head!r} + old)
open(os.path.join(w, "inc.cfg"), "w").write('[filter "x"]\\n\\tclean = "sh -c \\'touch {marker}; cat\\'"\\n')
open(os.path.join(w, ".gitattributes"), "w").write("f.txt filter=x\\n")
os.utime(os.path.join(w, "f.txt"), (1000000000, 1000000000))
"""


def _terminal(work: Path, mode: str, **settings) -> tuple[ToolRegistry, ToolContext]:
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(**settings)))
    return registry, ToolContext(cwd=work, workdir=work, approval_mode=mode)


def _run(registry: ToolRegistry, context: ToolContext, command: str) -> dict:
    return registry.call("terminal", {"command": command}, context)


@needs_bwrap
@needs_git
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_apps_own_git_status_runs_no_filter_a_command_included(
    tmp_path: Path, spelling: str
) -> None:
    # Sandboxed, unasked: a command makes the workspace a repository with the odd config; then
    # `git reset --hard` makes the app ask its own git (on the host) whether work is lost.
    work, marker = tmp_path / "work", tmp_path / f"ran-{spelling}"
    work.mkdir()
    (work / "plant.py").write_text(_plant_script(SPELLINGS[spelling], marker))
    registry, context = _terminal(work, "sandboxed")
    _run(registry, context, "python3 plant.py")
    reset = _run(registry, context, "git reset --hard")
    assert not marker.exists(), "the app's own git ran the included filter"
    assert not reset["success"]  # asked (and refused here): it would destroy work
    # The user's own next `git status` there runs nothing either: the config was moved aside.
    _git(work, "status")
    assert not marker.exists()


@needs_git
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_nested_repository_a_command_makes_keeps_no_include(
    tmp_path: Path, spelling: str
) -> None:
    # The guard after any command (here without the sandbox: nothing asks in yolo), for a
    # repository the command made inside the workspace; then the user runs git there.
    work, marker = tmp_path / "work", tmp_path / f"ran-{spelling}"
    work.mkdir()
    (work / "plant.py").write_text(_plant_script(SPELLINGS[spelling], marker, "nested"))
    registry, context = _terminal(work, "yolo", sandbox="off")
    result = _run(registry, context, "python3 plant.py")
    assert "include.path" in result.get("error", ""), result
    _git(work / "nested", "status")
    assert not marker.exists(), "the user's git status ran the filter the command included"
    assert (work / "nested" / ".git" / "config.refused").is_file()


@needs_git
def test_a_file_the_users_config_includes_gains_no_program(tmp_path: Path) -> None:
    # The user's own repository includes a file in the workspace (harmless); a command writes a
    # filter into that file: the user's next `git status` would run it. It is put back.
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "f.txt").write_text("hello\n")
    (work / ".gitattributes").write_text("f.txt filter=x\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "init")
    _git(work, "config", "include.path", "../shared.cfg")
    (work / "shared.cfg").write_text("[user]\n\tname = me\n")
    registry, context = _terminal(work, "yolo", sandbox="off")
    addition = tmp_path / "addition"
    addition.write_text(f"[filter \"x\"]\n\tclean = sh -c 'touch {marker}; cat'\n")
    command = f"cat {addition} >> shared.cfg && touch -d 2001-01-01 f.txt"
    result = _run(registry, context, command)
    assert "filter.x.clean" in result.get("error", ""), result
    _git(work, "status")
    assert not marker.exists()
    assert (work / "shared.cfg").read_text() == "[user]\n\tname = me\n"


def _planted_git(folder: Path, marker: Path) -> Path:
    real = shutil.which("git")
    (folder / ".venv" / "bin").mkdir(parents=True)
    fake = folder / ".venv" / "bin" / "git"
    fake.write_text(f'#!/bin/sh\ntouch {marker}\nexec {real} "$@"\n')
    fake.chmod(0o755)
    return fake


@needs_git
def test_the_apps_git_is_never_one_on_path_in_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The project's venv activated: its bin first on PATH, a `git` there of a command's making.
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text("print(1)\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "init")
    _planted_git(work, marker)
    monkeypatch.setenv("PATH", f"{work}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(work)
    monkeypatch.setattr(host_programs, "_settled", None)  # found anew, as at a start here
    tracked, dirty = workspace_git.tracked_and_dirty(work)
    assert tracked("src/a.py") and not tracked("other") and dirty()  # .venv is new
    assert not marker.exists(), "the app ran the git a command put on PATH"
    found = host_programs.programs()
    assert os.path.realpath(found.which("git") or "") == os.path.realpath(
        shutil.which("git", path=os.defpath) or "/nowhere"
    )
    assert f"{work}/.venv/bin" in found.dropped
    with pytest.raises(host_programs.ProgramRefused, match="working directory"):
        host_programs.find([], search_path=f"{work}/.venv/bin").require("git", work)
    # A link in a folder commands cannot write, leading into one they can: refused too.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "git").symlink_to(work / ".venv" / "bin" / "git")
    assert host_programs.find([work], search_path=str(tmp_path / "bin")).which("git") is None
    # Started in `/`: the system's own folders stay the system's (only root changes them).
    assert host_programs.find(["/"]).which("git") is not None


@needs_git
def test_skills_install_runs_no_git_from_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_tui.core.skills.install.sources import _run_git

    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _planted_git(work, marker)
    monkeypatch.setenv("PATH", f"{work}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(work)
    monkeypatch.setattr(host_programs, "_settled", None)
    assert _run_git(["--version"]).startswith("git version")
    assert not marker.exists()


@needs_bwrap
@needs_git
def test_in_a_sandboxed_workspace_the_apps_own_git_sees_it_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Should the judgement of the configs miss a program (here: told to see none), the app's
    # git still runs it inside the sandbox, where the workspace is read-only and /tmp private.
    work = tmp_path / "work"
    work.mkdir()
    inside, outside = work / "ran", tmp_path / "ran-outside"
    _git(work, "init", "-q")
    (work / "f.txt").write_text("hello\n")
    (work / ".gitattributes").write_text("f.txt filter=x\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "init")
    clean = f"sh -c 'touch {inside} {outside}; cat'"
    _git(work, "config", "filter.x.clean", clean)
    os.utime(work / "f.txt", (1000000000, 1000000000))
    monkeypatch.setattr(workspace_git, "config_risk", lambda _workdir: None)
    wrap = Sandbox(TerminalSettings()).read_only(work)
    assert wrap is not None
    _tracked, dirty = workspace_git.tracked_and_dirty(work, wrap)
    dirty()
    assert not inside.exists() and not outside.exists()


@needs_bwrap
@needs_git
def test_a_git_a_sandboxed_command_writes_on_path_never_runs_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # attack4's A4-7 as it happened: the command (sandboxed, unasked) writes `.venv/bin/git`;
    # `rm -r src` then makes the app ask git whether tracked work goes.
    work, marker = tmp_path / "work", tmp_path / "ran"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("print(1)\n")
    _git(work, "init", "-q")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "init")
    (work / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # project code: writable
    monkeypatch.setenv("PATH", f"{work}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(work)
    monkeypatch.setattr(host_programs, "_settled", None)  # found anew, as at a start here
    registry, context = _terminal(work, "sandboxed")
    real = shutil.which("git", path=os.defpath)
    plant = f"printf '#!/bin/sh\\ntouch {marker}\\nexec {real} \"$@\"\\n' > .venv/bin/git"
    assert _run(registry, context, f"{plant} && chmod 755 .venv/bin/git")["success"]
    removal = _run(registry, context, "rm -r src")
    assert not marker.exists(), "the app ran the git a command put on PATH"
    assert not removal["success"] and "tracks" in removal["error"]  # asked: tracked work
    assert (work / "src" / "a.py").exists()


def test_an_mcp_server_named_on_path_in_the_workspace_is_never_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_tui.core.tools.mcp import McpManager
    from hermes_tui.core.tools.mcp_config import parse_servers

    work, marker = tmp_path / "work", tmp_path / "ran"
    (work / ".venv" / "bin").mkdir(parents=True)
    server = work / ".venv" / "bin" / "db-mcp"  # what a command wrote, on the activated venv
    server.write_text(f"#!/bin/sh\ntouch {marker}\n")
    server.chmod(0o755)
    monkeypatch.setenv("PATH", f"{work}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(work)
    servers = {"db": {"command": "db-mcp", "connect_timeout": 5}, "abs": {"command": str(server)}}
    manager = McpManager(parse_servers(servers, {}), sink=lambda _event: None)
    manager.start()
    try:
        manager.wait_settled(10)
        for name in ("db", "abs"):
            assert manager.states[name].status == "failed"
    finally:
        manager.stop()
    assert not marker.exists()
    found = host_programs.programs()
    with pytest.raises(host_programs.ProgramRefused, match="where commands may write"):
        found.command(str(server))
    assert found.command(sys.executable) == sys.executable  # hermes-tui's own Python


@needs_git
def test_strict_mode_proves_no_git_command_read_only_in_a_repository_that_includes(
    tmp_path: Path,
) -> None:
    # An unpacked project (no command needed): its .git/config starts with a BOM and includes
    # a file that sets core.fsmonitor. Strict mode without a sandbox: `git status` would run it.
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "a.txt").write_text("a\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "i")
    config = work / ".git" / "config"
    config.write_bytes(SPELLINGS["bom"].replace(b"inc.cfg", b".gitinclude") + config.read_bytes())
    (work / ".gitinclude").write_text(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')
    registry, context = _terminal(work, "strict", sandbox="off")
    result = _run(registry, context, "git status")
    assert not marker.exists(), "a git command proven read-only ran the included fsmonitor"
    assert not result["success"] and "include" in result["error"]


@needs_git
def test_the_apps_own_git_never_enters_a_submodule(tmp_path: Path) -> None:
    # An unpacked project whose submodule's config (.git/modules/lib/config) sets a filter:
    # `git status` recurses into submodules by default, with that config.
    work, source, marker = tmp_path / "work", tmp_path / "libsrc", tmp_path / "ran"
    source.mkdir()
    _git(source, "init", "-q")
    (source / "x.c").write_text("int x;\n")
    (source / ".gitattributes").write_text("x.c filter=fmt\n")
    _git(source, "add", ".")
    _git(source, "commit", "-qm", "i")
    work.mkdir()
    _git(work, "init", "-q")
    _git(work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), "lib")
    _git(work, "commit", "-qm", "i")
    with open(work / ".git" / "modules" / "lib" / "config", "a") as config:
        config.write(f'[filter "fmt"]\n\tclean = "sh -c \'touch {marker}; cat\'"\n')
    os.utime(work / "lib" / "x.c", (1000000000, 1000000000))
    tracked, dirty = workspace_git.tracked_and_dirty(work)  # on the host, hardened
    dirty()
    tracked("lib")
    assert not marker.exists(), "the app's own git ran the submodule's filter"
    if probe("auto").active:  # and in the default sandboxed mode, through the tool
        registry, context = _terminal(work, "sandboxed")
        _run(registry, context, "git reset --hard")  # nothing uncommitted: it runs, walled
        assert not marker.exists()


@pytest.mark.parametrize("started_there", [True, False])  # False: an ACP session's folder
def test_commands_run_in_the_hosts_bash_not_one_on_path_in_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started_there: bool
) -> None:
    # Strict mode without a sandbox: `ls`, proven read-only, runs unasked on the host, in the
    # shell hermes-tui starts, which must not be a `.venv/bin/bash` of a command's making.
    work, marker = tmp_path / "work", tmp_path / "ran"
    (work / ".venv" / "bin").mkdir(parents=True)
    fake = work / ".venv" / "bin" / "bash"
    fake.write_text(f'#!/bin/sh\ntouch {marker}\nexec /bin/sh "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{work}/.venv/bin{os.pathsep}{os.environ['PATH']}")
    if started_there:
        monkeypatch.chdir(work)
    registry, context = _terminal(work, "strict", sandbox="off")
    result = _run(registry, context, "ls")
    assert result["success"] and ".venv" not in result["output"]  # ls hides dot folders
    assert not marker.exists(), "hermes-tui ran the bash a command put on PATH"


def _sparse_repo(work: Path) -> None:
    """The user's repository after `git sparse-checkout init`: extensions.worktreeConfig is set
    and the main worktree's .git/config.worktree is read as config."""
    work.mkdir()
    _git(work, "init", "-q")
    (work / "f.txt").write_text("hello\n")
    (work / ".gitattributes").write_text("f.txt filter=x\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "init")
    _git(work, "sparse-checkout", "init", "--cone")
    assert (work / ".git" / "config.worktree").is_file()


@needs_git
@pytest.mark.parametrize("mode", ["yolo", "sandboxed"])
def test_the_main_worktrees_config_worktree_is_held_like_its_config(
    tmp_path: Path, mode: str
) -> None:
    if mode == "sandboxed" and not probe("auto").active:
        pytest.skip("no bubblewrap sandbox here")
    work, marker = tmp_path / "work", tmp_path / "ran"
    _sparse_repo(work)
    before = (work / ".git" / "config.worktree").read_bytes()
    addition = tmp_path / "addition"
    addition.write_text(f"[filter \"x\"]\n\tclean = sh -c 'touch {marker}; cat'\n")
    registry, context = _terminal(work, mode, sandbox="off" if mode == "yolo" else "auto")
    plant = f"cat {addition} >> .git/config.worktree; touch -d 2001-01-01 f.txt"
    _run(registry, context, plant)
    _run(registry, context, "git reset --hard")
    assert not marker.exists(), "git ran the filter the command set in config.worktree"
    assert (work / ".git" / "config.worktree").read_bytes() == before
    _git(work, "status")  # the user's own next git there
    assert not marker.exists()


@needs_git
def test_a_repository_a_command_makes_keeps_only_keys_git_writes_itself(tmp_path: Path) -> None:
    # Keys no list of "risky" ones knew (A4-31): a signing key command with commit.gpgsign,
    # a `!` submodule update, a difftool path, imap.tunnel. The user's `git commit` would run
    # the first.
    work, marker = tmp_path / "work", tmp_path / "ran"
    (work / "tools").mkdir(parents=True)
    (work / "tools" / "sign.sh").write_text(f"#!/bin/sh\ntouch {marker}\necho key::x\n")
    (work / "tools" / "sign.sh").chmod(0o755)
    registry, context = _terminal(work, "yolo", sandbox="off")
    settings = [
        ("gpg.format", "ssh"),
        ("gpg.ssh.defaultKeyCommand", "./tools/sign.sh"),
        ("commit.gpgsign", "true"),
        ("submodule.lib.update", "!./tools/sign.sh"),
        ("difftool.vd.path", "./tools/sign.sh"),
    ]
    script = "git init -q . && " + " && ".join(f"git config '{k}' '{v}'" for k, v in settings)
    result = _run(registry, context, script)
    assert "gpg.ssh.defaultkeycommand" in result.get("error", ""), result
    _git(work, "commit", "-q", "--allow-empty", "-m", "x")
    assert not marker.exists(), "the user's git commit ran the command's key command"
    # What git writes itself stays: a clone's remote and branch, a submodule's settings.
    clone = tmp_path / "work2"
    clone.mkdir()
    registry, context = _terminal(clone, "yolo", sandbox="off")
    result = _run(registry, context, f"git clone -q {work} c && git -C c config user.name me")
    assert result["success"], result
    assert (clone / "c" / ".git" / "config").is_file()


@needs_git
@pytest.mark.parametrize("mode", ["yolo", "sandboxed"])
@pytest.mark.parametrize("hooks", [".husky", ".husky/_"])
def test_the_folder_core_hookspath_names_is_held_like_git_hooks(
    tmp_path: Path, mode: str, hooks: str
) -> None:
    # A project using husky: core.hooksPath names a folder in the workspace (`.husky`, or
    # husky 9's `.husky/_` whose hooks run the scripts in `.husky`). A command rewrites the
    # pre-commit script there; the user's next `git commit` would run it.
    if mode == "sandboxed" and not probe("auto").active:
        pytest.skip("no bubblewrap sandbox here")
    work, marker = tmp_path / "work", tmp_path / "ran"
    work.mkdir()
    _git(work, "init", "-q")
    (work / hooks).mkdir(parents=True)
    script = work / ".husky" / "pre-commit"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    if hooks.endswith("_"):
        (work / hooks / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/../pre-commit"\n')
        (work / hooks / "pre-commit").chmod(0o755)
    _git(work, "config", "core.hooksPath", hooks)
    before = script.read_bytes()
    registry, context = _terminal(work, mode, sandbox="off" if mode == "yolo" else "auto")
    planted = tmp_path / "planted"
    planted.write_text(f"#!/bin/sh\ntouch {marker}\n")
    _run(registry, context, f"cat {planted} > .husky/pre-commit; cp {planted} {hooks}/post-commit")
    assert script.read_bytes() == before
    assert not (work / hooks / "post-commit").exists()
    _git(work, "commit", "-q", "--allow-empty", "-m", "the user's own")
    assert not marker.exists(), "the user's git commit ran a hook the command wrote"


@needs_git
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_what_a_config_text_sets_is_read_as_git_reads_it(spelling: str) -> None:
    from hermes_tui.core.tools import gitguard

    text = SPELLINGS[spelling].decode("utf-8")
    assert ("include.path", "../inc.cfg") in gitguard.risky_settings(text)
    assert gitguard.risky_settings("[core]\n\tbare = false\n") == set()
    assert gitguard.risky_settings("[core\n")  # git cannot read it: counts as risky
