"""The git guard runs outside the sandbox, after each command, on paths the command shaped: it
must never delete, move or rewrite anything outside the workspace, whatever links, `gitdir:`
or `commondir` files the command left (attack A3-17: a nested repository whose `.git/hooks`
was a link to a folder in the home had every file there deleted). Judged by outcome: every
file outside is still there, byte for byte, through the real terminal tool (in the sandbox
where bubblewrap runs, and without it) and against the guard itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.core.tools import gitguard
from hermes_tui.core.tools.contained import Contained, Outside
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
from hermes_tui.core.tools.workspace_git import tracked_and_dirty as _git_tracked

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_bwrap = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)
ID = ["-c", "user.name=a", "-c", "user.email=a@b"]
RISKY = "[core]\n\trepositoryformatversion = 0\n[alias]\n\tst = !echo pwned\n"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *ID, *args], cwd=cwd, check=True, capture_output=True)


def _hook(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    (folder / name).chmod(0o755)


def _world(tmp_path: Path) -> tuple[Path, Path]:
    """(the workspace, the user's home beside it). The home holds a folder of documents, another
    repository with a linked worktree, a separate git directory and a gitconfig."""
    home, work = tmp_path / "home", tmp_path / "work"
    victim = home / "victim"
    victim.mkdir(parents=True)
    (victim / "thesis.txt").write_text("four years of work\n")
    _hook(victim, "post-commit", "#!/bin/sh\necho mine\n")
    (victim / "notes.sample").write_text("not a hook\n")
    other = home / "otherrepo"
    other.mkdir()
    _git(other, "init", "-q")
    _git(other, "commit", "-q", "--allow-empty", "-m", "x")
    with (other / ".git" / "config").open("a") as config:
        config.write("[alias]\n\tst = !echo mine\n")  # the user's own, a new repo may not have
    _hook(other / ".git" / "hooks", "pre-commit", "#!/bin/sh\necho mine\n")
    _git(other, "worktree", "add", "-q", str(home / "otherwt"))
    (home / "mods").mkdir()
    _git(home, "init", "-q", f"--separate-git-dir={home / 'mods' / 'sub'}", str(home / "subwt"))
    (home / "mods" / "sub" / "config").write_text(RISKY)
    _hook(home / "mods" / "sub" / "hooks", "pre-commit", "#!/bin/sh\necho mine\n")
    (home / "gitconfig").write_text(RISKY)
    # The workspace: a repository with a hook, a linked worktree and a submodule-like tree.
    work.mkdir()
    _git(work, "init", "-q")
    _git(work, "commit", "-q", "--allow-empty", "-m", "x")
    _hook(work / ".git" / "hooks", "pre-commit", "#!/bin/sh\necho ours\n")
    _git(work, "worktree", "add", "-q", str(tmp_path / "linked"))
    (work / ".git" / "modules").mkdir()
    _git(work, "init", "-q", f"--separate-git-dir={work / '.git' / 'modules' / 'sub'}", "sub")
    return work, home


def _state(root: Path) -> dict[str, tuple]:
    """Every entry under `root`, not following links: kind, mode, content or link target."""
    found: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if os.path.islink(path):
                found[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                found[path] = ("dir", info.st_mode)
            else:
                found[path] = ("file", info.st_mode, Path(path).read_bytes())
    return found


# What the command does, as a script (a program the policy cannot see into): each step on its
# own, so one the sandbox refuses does not stop the others.
PRELUDE = """import os, shutil, subprocess
def step(f, *a):
    try:
        f(*a)
    except Exception as e:
        print("refused:", e)
def git_init(d):
    subprocess.run(["git", "init", "-q", d], check=True)
"""
FORMS = {
    # A3-17 as found: a new repository whose hooks folder is a link to a folder in the home.
    "hooks-link": """step(git_init, "n")
step(shutil.rmtree, "n/.git/hooks")
step(os.symlink, "{home}/victim", "n/.git/hooks")
""",
    # A3-17 second form: a `.git` file naming another repository (and its worktree).
    "git-file": """step(os.makedirs, "m")
open("m/.git", "w").write("gitdir: {home}/otherrepo/.git\\n")
step(os.makedirs, "w")
open("w/.git", "w").write("gitdir: {home}/otherrepo/.git/worktrees/otherwt\\n")
""",
    # A3-17 third form: a folder made to look like a git directory, hooks and config links.
    "bare": """for d in ("b/objects", "b/refs"):
    step(os.makedirs, d)
open("b/HEAD", "w").write("ref: refs/heads/main\\n")
step(os.symlink, "{home}/victim", "b/hooks")
step(os.symlink, "{home}/gitconfig", "b/config")
""",
    # `.git` itself a link to another repository.
    "git-link": """step(os.makedirs, "k")
step(os.symlink, "{home}/otherrepo/.git", "k/.git")
""",
    # A linked worktree's git directory and the modules folder swapped for links outside.
    "worktrees-link": """step(os.rename, ".git/worktrees/linked", ".git/linked-old")
step(os.symlink, "{home}/otherrepo/.git/worktrees/otherwt", ".git/worktrees/linked")
""",
    "modules-link": """step(os.rename, ".git/modules", ".git/modules-old")
step(os.symlink, "{home}/mods", ".git/modules")
""",
    # A config that is a link to a file outside (a new repository's, and the workspace's).
    "config-link": """step(git_init, "c")
step(os.remove, "c/.git/config")
step(os.symlink, "{home}/gitconfig", "c/.git/config")
step(os.rename, ".git/config", ".git/config-old")
step(os.symlink, "{home}/gitconfig", ".git/config")
""",
    # A hooks folder holding links to files outside.
    "hook-file-link": """step(git_init, "d")
step(os.symlink, "{home}/victim/post-commit", "d/.git/hooks/post-commit")
step(os.remove, ".git/hooks/pre-commit")
step(os.symlink, "{home}/victim/thesis.txt", ".git/hooks/pre-commit")
step(os.symlink, "{home}/victim/notes.sample", ".git/hooks/post-merge")
""",
    # Named pipes where the guard reads (config, commondir, a hook): read, they would hang it.
    "fifo": """step(git_init, "f")
step(os.remove, "f/.git/config")
step(os.mkfifo, "f/.git/config")
step(os.mkfifo, "f/.git/commondir")
step(os.mkfifo, "f/.git/hooks/pre-push")
""",
}
# What must not be left leading outside once the guard ran (a link, or a `.git` file).
LEFT = {
    "hooks-link": ["n/.git/hooks"],
    "git-file": ["m/.git", "w/.git"],
    "bare": ["b/hooks", "b/config"],
    "git-link": ["k/.git"],
    "config-link": ["c/.git/config", ".git/config"],
    "hook-file-link": ["d/.git/hooks/post-commit", ".git/hooks/pre-commit"],
}


def _leads_outside(work: Path, path: Path) -> bool:
    real = os.path.realpath(work)
    if path.is_symlink():
        target = os.path.realpath(path)
    elif path.name == ".git" and path.is_file():
        target = os.path.realpath(path.parent / path.read_text().split(":", 1)[1].strip())
    else:
        return False
    return not (target == real or target.startswith(real + os.sep))


def _plant(work: Path, home: Path, form: str) -> None:
    (work / "attack.py").write_text(PRELUDE + FORMS[form].format(home=home))


def _outcome(work: Path, home: Path, form: str, before: dict) -> None:
    assert _state(home) == before, f"{form}: the guard changed files outside the workspace"
    for relative in LEFT.get(form, []):
        assert not _leads_outside(work, work / relative), f"{form}: {relative} still leads out"


@needs_git
@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_guard_itself_changes_nothing_outside(tmp_path: Path, form: str) -> None:
    work, home = _world(tmp_path)
    _plant(work, home, form)
    before = _state(home)
    snapshot = gitguard.snapshot_workspace(work)
    subprocess.run([sys.executable, "attack.py"], cwd=work, capture_output=True, check=True)
    undone = gitguard.restore_workspace(snapshot, work)
    assert undone or form == "fifo", form  # something was refused or left, and said so
    if form in ("hooks-link", "bare"):
        assert any("removed the link (not what it leads to)" in text for text in undone), undone
    _outcome(work, home, form, before)
    # The workspace's own hooks are still guarded: a pre-commit link is replaced by ours.
    pre_commit = work / ".git" / "hooks" / "pre-commit"
    assert pre_commit.read_text() == "#!/bin/sh\necho ours\n" and not pre_commit.is_symlink()


@needs_git
@pytest.mark.parametrize(
    "sandbox", [pytest.param("auto", marks=needs_bwrap, id="sandbox"), pytest.param("off")]
)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_through_the_terminal_nothing_outside_changes(
    tmp_path: Path, form: str, sandbox: str
) -> None:
    work, home = _world(tmp_path)
    _plant(work, home, form)
    before = _state(home)
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox=sandbox)))
    context = ToolContext(cwd=work, workdir=work, approval_mode="yolo")
    result = registry.call("terminal", {"command": "python3 attack.py", "timeout": 60}, context)
    assert "output" in result or "error" in result, result
    _outcome(work, home, form, before)


@needs_git
def test_the_workspace_as_a_linked_worktree_is_still_guarded(tmp_path: Path) -> None:
    # Its shared git directory lies outside the workspace and stays guarded: a hook planted
    # there is removed, a hook that became a link is put back as a file.
    main, tree = tmp_path / "main", tmp_path / "tree"
    main.mkdir()
    _git(main, "init", "-q")
    _git(main, "commit", "-q", "--allow-empty", "-m", "x")
    _hook(main / ".git" / "hooks", "pre-commit", "#!/bin/sh\necho ours\n")
    _git(main, "worktree", "add", "-q", str(tree))
    before = gitguard.snapshot_workspace(tree)
    _hook(main / ".git" / "hooks", "post-checkout", "#!/bin/sh\necho planted\n")
    undone = gitguard.restore_workspace(before, tree)
    assert any("hooks" in text for text in undone), undone
    assert not (main / ".git" / "hooks" / "post-checkout").exists()
    # A worktree the command adds inside it is git's own: kept.
    subprocess.run(["git", "worktree", "add", "-q", "inner"], cwd=tree, check=True)
    assert gitguard.restore_workspace(gitguard.snapshot_workspace(tree), tree) == []
    before = gitguard.snapshot_workspace(tree)
    _git(tree, "worktree", "add", "-q", "inner2")
    assert gitguard.restore_workspace(before, tree) == []
    assert (tree / "inner2" / ".git").is_file()


def test_contained_refuses_a_folder_reached_through_a_link(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "keep").write_text("keep\n")
    (work / "out").symlink_to(outside)
    (work / "link").symlink_to(outside / "keep")
    walls = Contained([work])
    for action in (
        lambda: walls.unlink(work / "out" / "keep"),
        lambda: walls.write(work / "out" / "keep", b"evil"),
        lambda: walls.rename(work / "out" / "keep", "gone"),
        lambda: walls.mkdir(work / "out" / "new"),
    ):
        with pytest.raises(Outside):
            action()
    walls.write(work / "link", b"ours")  # the link itself is replaced, never followed
    walls.unlink(work / "out")
    assert (outside / "keep").read_text() == "keep\n" and (work / "link").read_bytes() == b"ours"


@needs_git
def test_hermes_tui_s_own_git_writes_nothing_in_a_repository_a_git_file_leads_to(
    tmp_path: Path,
) -> None:
    # The host-side git that tells whether a delete destroys tracked work, run where a `.git`
    # file leads to another repository: it reads there, it never refreshes that index.
    work, home = tmp_path / "work", tmp_path / "home"
    other = home / "plain"  # no setting that runs a program: hermes-tui's git runs there
    other.mkdir(parents=True)
    _git(other, "init", "-q")
    # A tracked file whose stat data differs in the workspace: `git status` would refresh it.
    (other / "a.txt").write_text("x\n")
    _git(other, "add", "a.txt")
    _git(other, "commit", "-qm", "a")
    work.mkdir()
    (work / "a.txt").write_text("x\n")
    (work / ".git").write_text(f"gitdir: {other / '.git'}\n")
    before = _state(home)
    tracked, dirty = _git_tracked(work)
    tracked("a.txt")
    dirty()
    assert _state(home) == before
