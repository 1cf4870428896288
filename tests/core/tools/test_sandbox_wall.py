"""Holes the attack corpus (tests/data/sandbox_attacks.yaml) found in the wall, one test each,
and the wall's promise to root: no capability survives into the sandbox."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools import gitguard
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
from hermes_tui.core.tools.workspace_git import tracked_and_dirty as _git_tracked

needs_bwrap = pytest.mark.skipif(
    not probe("auto").active, reason=f"no bubblewrap sandbox here: {probe('auto').detail}"
)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _repo(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for args in (["init", "-q"], ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q",
                                  "--allow-empty", "-m", "x"]):  # fmt: skip
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def _yolo_terminal(work: Path, **settings) -> tuple[ToolRegistry, ToolContext]:
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(**settings)))
    # yolo: nothing asks (these tests are about the wall behind the policy)
    return registry, ToolContext(cwd=work, workdir=work, approval_mode="yolo")


@needs_git
def test_a_git_file_a_command_makes_is_moved_aside(tmp_path: Path) -> None:
    # `.git` as a file sends the user's next git to a folder of the command's making, with a
    # config that runs a program (core.fsmonitor) at `git status`.
    work = tmp_path / "work"
    _repo(work / "evil")
    subprocess.run(["git", "-C", str(work / "evil"), "config", "core.fsmonitor", "touch x"])
    (work / ".git").write_text("gitdir: evil/.git\n")
    undone = gitguard.restore(None, work)
    assert undone and "not a folder" in undone[0]
    assert not (work / ".git").exists() and (work / ".git.refused").is_file()


@needs_git
def test_hermes_tui_never_runs_git_through_a_git_file_or_its_fsmonitor(tmp_path: Path) -> None:
    # hermes-tui asks git, outside the sandbox, whether a delete destroys tracked work.
    work, ran = tmp_path / "work", tmp_path / "fsmonitor-ran"
    _repo(work)
    subprocess.run(["git", "-C", str(work), "config", "core.fsmonitor", f"touch {ran}; false"])
    (work / "f").write_text("x")
    tracked, dirty = _git_tracked(work)
    assert dirty() and not ran.exists()
    subprocess.run(["git", "-C", str(work), "config", "--unset", "core.fsmonitor"])
    subprocess.run(["git", "-C", str(work), "add", "f"])
    assert not _git_tracked(work)[0]("other") and _git_tracked(work)[0]("f")
    os.rename(work / ".git", work / ".g")
    (work / ".git").write_text("gitdir: .g\n")
    subprocess.run(["git", "-C", str(work), "config", "core.fsmonitor", f"touch {ran}; false"])
    tracked, dirty = _git_tracked(work)
    # Followed to a config that runs a program: not run; everything counts, so deleting asks.
    assert tracked("other") and dirty() and not ran.exists()
    (work / ".git").write_text("gitdir: nowhere\n")
    tracked, dirty = _git_tracked(work)  # leads to no repository: everything counts too
    assert tracked("other") and dirty() and not ran.exists()


@needs_bwrap
@needs_git
def test_git_cannot_be_renamed_away_inside_the_sandbox(tmp_path: Path) -> None:
    work = tmp_path / "work"
    _repo(work)
    registry, context = _yolo_terminal(work)
    result = registry.call(
        "terminal", {"command": "mv .git .g && printf 'gitdir: .g\\n' > .git"}, context
    )
    assert result["exit_code"] != 0 and "busy" in result["output"]
    assert (work / ".git").is_dir() and not (work / ".g").exists()
    everyday = registry.call(
        "terminal",
        {"command": "echo y > a && git add a && git -c user.name=a -c user.email=a@b commit -qm a"},
        context,
    )
    assert everyday["success"], everyday["output"]


@needs_bwrap
def test_as_root_the_sandbox_keeps_no_capability_and_cannot_remount(tmp_path: Path) -> None:
    """The issue's finding was CapEff 000001fffeffffff as root; run as any user this holds,
    but it says something only as root (the suite's CI runs as root)."""
    work = tmp_path / "work"
    work.mkdir()
    registry, context = _yolo_terminal(work)
    status = registry.call(
        "terminal", {"command": "grep -E '^Cap(Eff|Prm)' /proc/self/status"}, context
    )
    assert "CapEff:\t0000000000000000" in status["output"], status["output"]
    assert "CapPrm:\t0000000000000000" in status["output"], status["output"]
    for target in ("/", "/usr"):
        remount = registry.call(
            "terminal", {"command": f"mount -o remount,rw {target} && echo REMOUNTED"}, context
        )
        assert remount["exit_code"] != 0 and "REMOUNTED" not in remount["output"], remount
    write = registry.call("terminal", {"command": "touch /usr/hermes-remount-test"}, context)
    assert write["exit_code"] != 0 and not Path("/usr/hermes-remount-test").exists()
    if os.getuid() == 0:
        assert "uid=0" in registry.call("terminal", {"command": "id"}, context)["output"]


@needs_git
def test_strict_mode_runs_no_git_reader_in_a_repository_whose_config_runs_programs(
    tmp_path: Path,
) -> None:
    # A repository unpacked from a tarball brings its own .git/config: without a sandbox,
    # `git status` (proven read-only) would start its fsmonitor as the user.
    work, ran = tmp_path / "work", tmp_path / "fsmonitor-ran"
    _repo(work)
    subprocess.run(["git", "-C", str(work), "config", "core.fsmonitor", f"touch {ran}; false"])
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="off")))
    # No human here: whatever asks is refused, with the reason it asked.
    context = ToolContext(cwd=work, workdir=work, approval_mode="strict")
    result = registry.call("terminal", {"command": "git status"}, context)
    assert result.get("denied") and not ran.exists()
    assert "core.fsmonitor" in result["error"]
    assert registry.call("terminal", {"command": "ls"}, context)["success"]


def test_a_relative_path_into_a_hermes_home_in_the_workspace_asks_in_every_mode(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    home = work / ".hermes"
    (home / "memories").mkdir(parents=True)
    for mode in ("sandboxed", "strict", "yolo"):
        registry = ToolRegistry(
            make_terminal_tools(TerminalSettings(sandbox="off", hermes_home=home))
        )
        # No human here: whatever asks is refused, with the reason it asked.
        context = ToolContext(cwd=work, workdir=work, approval_mode=mode)  # type: ignore[arg-type]
        for command in ("echo forged >> .hermes/memories/MEMORY.md",
                        "cd .hermes && touch SOUL.md", "dd if=/dev/zero of=.hermes/config.yaml"):  # fmt: skip
            result = registry.call("terminal", {"command": command}, context)
            assert result["denied"] and "hermes home" in result["error"], (mode, command)
        if mode == "yolo":  # the rest of the workspace does not ask
            fine = registry.call("terminal", {"command": "echo fine > notes.txt"}, context)
            assert fine["success"], fine
    assert not (home / "memories" / "MEMORY.md").exists() and not (home / "SOUL.md").exists()


def test_the_users_own_git_link_is_left_alone(tmp_path: Path) -> None:
    """A worktree or submodule has a `.git` file; a command that leaves it alone keeps it (the
    first version of the impostor rule moved a real worktree's `.git` aside during a test run)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").write_text("gitdir: /elsewhere/.git/worktrees/work\n")
    before = gitguard.snapshot(work)
    assert gitguard.restore(before, work) == []
    assert (work / ".git").read_text() == "gitdir: /elsewhere/.git/worktrees/work\n"
    (work / ".git").write_text("gitdir: /tmp/attacker\n")  # the command repointed it
    undone = gitguard.restore(before, work)
    assert undone and (work / ".git").read_text() == "gitdir: /elsewhere/.git/worktrees/work\n"


# ---- linked worktrees and nested repositories (gitdirs.py) --------------------------------
def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def _worktree(tmp_path: Path) -> tuple[Path, Path]:
    """(the main repository, a linked worktree of it outside it) with files `kept/a` tracked."""
    main, tree = tmp_path / "main", tmp_path / "tree"
    _repo(main)
    (main / "kept").mkdir()
    (main / "kept" / "a").write_text("a\n")
    _git("-C", str(main), "add", "kept")
    _git("-C", str(main), "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "k")
    _git("-C", str(main), "worktree", "add", "-q", str(tree))
    assert (tree / ".git").is_file()
    return main, tree


def _sandboxed_terminal(work: Path, **settings) -> tuple[ToolRegistry, ToolContext]:
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(**settings)))
    # No human here: whatever asks is refused, with the reason it asked.
    return registry, ToolContext(cwd=work, workdir=work, approval_mode="sandboxed")


@needs_bwrap
@needs_git
def test_in_a_linked_worktree_only_destroying_tracked_work_asks(tmp_path: Path) -> None:
    _main, tree = _worktree(tmp_path)
    (tree / "scratch").mkdir()
    (tree / "scratch" / "x").write_text("x")
    registry, context = _sandboxed_terminal(tree)
    scratch = registry.call("terminal", {"command": "rm -r scratch"}, context)
    assert scratch["success"] and not (tree / "scratch").exists(), scratch
    clean = registry.call("terminal", {"command": "git reset -q --hard"}, context)
    assert not clean.get("denied"), clean  # nothing uncommitted to lose
    kept = registry.call("terminal", {"command": "rm -r kept"}, context)
    assert kept["denied"] and "git tracks" in kept["error"] and (tree / "kept" / "a").exists()


@needs_git
def test_a_setting_or_hook_written_through_a_worktrees_git_file_is_put_back(
    tmp_path: Path,
) -> None:
    main, tree = _worktree(tmp_path)
    ran = tmp_path / "fsmonitor-ran"
    before = (main / ".git" / "config").read_bytes()
    registry, context = _yolo_terminal(tree, sandbox="off")  # only gitguard stands here
    hook = "$(git rev-parse --git-common-dir)/hooks/post-checkout"
    result = registry.call(
        "terminal",
        {
            "command": f"git config core.fsmonitor 'touch {ran}; false' && "
            f"printf '#!/bin/sh\\ntouch {ran}\\n' > {hook} && chmod +x {hook}"
        },
        context,
    )
    assert not result["success"] and "core.fsmonitor" in result["error"], result
    assert (main / ".git" / "config").read_bytes() == before
    assert not (main / ".git" / "hooks" / "post-checkout").exists()
    _git("-C", str(tree), "status")
    _git("-C", str(tree), "checkout", "-q", "-b", "other")
    assert not ran.exists()


def _nested(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    _repo(work)
    _repo(work / "vendor" / "lib")
    return work, work / "vendor" / "lib"


WRITE_NESTED = (
    "python3 -c \"import pathlib; d = pathlib.Path('vendor', 'lib', '.git'); "
    "open(d / 'config', 'a').write('[core]\\\\n\\\\tfsmonitor = touch {ran}; false\\\\n'); "
    "h = d / 'hooks' / 'post-checkout'; h.write_text('#!/bin/sh\\\\ntouch {ran}\\\\n'); "
    'h.chmod(0o755)"'
)


@needs_git
@pytest.mark.parametrize(
    ("sandbox", "said"),
    [
        pytest.param("auto", "Read-only file system", marks=needs_bwrap, id="sandbox"),
        pytest.param("off", "(in vendor/lib)", id="no-sandbox"),  # gitguard puts it back
    ],
)
def test_a_nested_repositorys_config_and_hooks_keep_what_they_had(
    tmp_path: Path, sandbox: str, said: str
) -> None:
    work, lib = _nested(tmp_path)
    ran = tmp_path / "nested-ran"
    before = (lib / ".git" / "config").read_bytes()
    registry, context = _yolo_terminal(work, sandbox=sandbox)
    result = registry.call("terminal", {"command": WRITE_NESTED.format(ran=ran)}, context)
    assert not result["success"] and said in result["output"] + result.get("error", ""), result
    assert (lib / ".git" / "config").read_bytes() == before
    assert not (lib / ".git" / "hooks" / "post-checkout").exists()
    _git("-C", str(lib), "status")
    assert not ran.exists()


@needs_git
def test_a_nested_repository_a_command_makes_keeps_no_setting_that_runs_a_program(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    _repo(work)
    ran = tmp_path / "made-ran"
    registry, context = _yolo_terminal(work, sandbox="off")
    result = registry.call(
        "terminal",
        {"command": f"git init -q made && git -C made config core.fsmonitor 'touch {ran}; false'"},
        context,
    )
    assert not result["success"] and "(in made)" in result["error"], result
    _git("-C", str(work / "made"), "status")
    assert not ran.exists()
    fine = registry.call("terminal", {"command": "git init -q plain && echo ok"}, context)
    assert fine["success"], fine  # a fresh repository is left alone


@needs_git
def test_a_worktree_a_command_adds_leaves_its_repositorys_own_config_and_hooks_alone(
    tmp_path: Path,
) -> None:
    # The user's own settings that run programs (a hooks folder, a pre-commit hook) were there
    # before: a new worktree shares them, and must not take them away.
    work = tmp_path / "work"
    _repo(work)
    _git("-C", str(work), "config", "core.hooksPath", ".husky")
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    config = (work / ".git" / "config").read_bytes()
    registry, context = _yolo_terminal(work, sandbox="off")
    result = registry.call("terminal", {"command": "git worktree add -q wt"}, context)
    assert result["success"], result
    assert (work / ".git" / "config").read_bytes() == config and hook.is_file()
    assert (work / "wt" / ".git").is_file()
