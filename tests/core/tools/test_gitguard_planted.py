"""A `commondir` file planted in a git directory, and a folder made to look like one: either
sends the user's next plain `git status` to a config of the command's making (core.fsmonitor
runs outside the sandbox). Judged by outcome: the program never runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools import gitdirs
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_bwrap = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)
SANDBOX = [pytest.param("auto", marks=needs_bwrap, id="sandbox"), pytest.param("off", id="off")]
ID = ["-c", "user.name=a", "-c", "user.email=a@b"]


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def _repo(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q")
    (folder / "a.txt").write_text("a\n")
    _git(folder, "add", "a.txt")
    assert _git(folder, *ID, "commit", "-qm", "init").returncode == 0


def _run(work: Path, sandbox: str, command: str) -> dict:
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox=sandbox)))
    context = ToolContext(cwd=work, workdir=work, approval_mode="yolo")
    return registry.call("terminal", {"command": command, "timeout": 30}, context)


def _config(ran: Path) -> str:
    # printf, not `git config`: nothing in the command names a setting
    return f"[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = touch {ran}; false\\n"


def _clean_status(where: Path) -> None:
    _git(where, "status")
    (where / "a.txt").write_text("changed\n")  # something for fsmonitor to be asked about
    _git(where, "status")
    _git(where, "diff")


@needs_git
@pytest.mark.parametrize("sandbox", SANDBOX)
@pytest.mark.parametrize("where", [".git/commondir", "vendor/lib/.git/commondir", "linked"])
def test_a_planted_commondir_is_put_back(tmp_path: Path, sandbox: str, where: str) -> None:
    work, ran = tmp_path / "work", tmp_path / "ran"
    _repo(work)
    _repo(work / "vendor" / "lib")
    _git(work, "worktree", "add", "-q", str(tmp_path / "linked"))
    target = {"linked": ".git/worktrees/linked/commondir"}.get(where, where)
    source = "vendor/lib/.git" if where.startswith("vendor") else ".git"
    command = (
        f"mkdir -p .g2 && cp -r {source}/objects {source}/refs .g2/ && "
        f"printf '{_config(ran)}' > .g2/config && printf \"$PWD/.g2\\n\" > {target} && echo ok"
    )
    before = [p.read_bytes() for p in [work / ".git" / "worktrees" / "linked" / "commondir"]]
    result = _run(work, sandbox, command)
    assert not result["success"] and "commondir" in result["error"], result
    tree = tmp_path / "linked" if where == "linked" else work / Path(where).parent.parent
    _clean_status(tree)
    assert not ran.exists()
    assert [
        p.read_bytes() for p in [work / ".git" / "worktrees" / "linked" / "commondir"]
    ] == before
    assert not (work / ".git" / "commondir").exists()


@needs_git
@pytest.mark.parametrize("sandbox", SANDBOX)
@pytest.mark.parametrize("folder", ["src", "site"])
def test_a_folder_made_to_look_like_a_git_directory_keeps_no_program(
    tmp_path: Path, sandbox: str, folder: str
) -> None:
    work, ran = tmp_path / "work", tmp_path / "ran"
    _repo(work)
    (work / "src").mkdir()
    (work / "src" / "main.py").write_text("x\n")
    _git(work, "add", "src")
    _git(work, *ID, "commit", "-qm", "src")
    config = _config(ran).replace("bare = false\\n", "bare = false\\n\\tworktree = .\\n")
    command = (
        f"mkdir -p {folder}/refs/heads {folder}/objects && cd {folder} && "
        f"printf 'ref: refs/heads/main\\n' > HEAD && printf '{config}' > config && echo ok"
    )
    result = _run(work, sandbox, command)
    assert not result["success"] and f"(in {folder})" in result["error"], result
    (work / folder / "a.txt").write_text("a\n")
    _git(work / folder, "status")
    _git(work / folder, "diff")
    assert not ran.exists()
    fine = _run(work, sandbox, "git init -q --bare plain.git && echo ok")
    assert fine["success"], fine  # a bare repository without such a setting is left alone


def test_resolve_follows_a_commondir_in_a_git_folder(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / ".git" / "commondir").write_text("../shared\n")
    dirs = gitdirs.resolve(tmp_path)
    assert dirs is not None and dirs.configs()[0] == tmp_path / "shared" / "config"
