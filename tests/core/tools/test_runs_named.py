"""What a hook, a hook runner's config or an `.envrc` runs by path (runs_named.py, attack9's
A9-2 and A9-6): the files tools ask before writing it, and without the sandbox a hook link's
target is put back before the user's next commit and a changed script is named in the result.
(The sandbox's side, as the unprivileged user: test_runs_named_user.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools import gitdirs, run_later
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.results import ResultLimits
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
OK = "#!/bin/sh\nexit 0\n"


def _git(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(
        ["git", "-c", "user.email=u@x", "-c", "user.name=u", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A repository whose pre-commit hook is a link into the tree and whose pre-push hook runs
    a project script; an allowed-looking `.envrc`, a pre-commit config, lefthook and mise."""
    work = tmp_path / "work"
    _write(work / "tools" / "hooks" / "pre-commit", OK, 0o755)
    _write(work / "scripts" / "prepush.sh", OK, 0o755)
    _write(work / "scripts" / "dev-env.sh", "export APP_ENV=dev\n")
    _write(work / "scripts" / "check.sh", OK, 0o755)
    _write(work / "scripts" / "lh.sh", OK, 0o755)
    _write(work / "scripts" / "mise-env.sh", "export A=1\n")
    _write(work / "src" / "app.py", "print('hi')\n")
    _write(work / "node_modules" / ".bin" / "lint", OK, 0o755)
    _write(work / ".envrc", "source_env_if_exists .envrc.local\nsource scripts/dev-env.sh\n"
           "use flake\ndotenv\n")  # fmt: skip
    _write(work / ".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: c\n"
           "    name: c\n    entry: ./scripts/check.sh\n    language: script\n")  # fmt: skip
    _write(work / "lefthook.yml", "pre-push:\n  commands:\n    x:\n      run: sh scripts/lh.sh\n")
    _write(work / "mise.toml", '[env]\n_.source = "./scripts/mise-env.sh"\n')
    assert _git(work, "init", "-q").returncode == 0
    _git(work, "add", ".")
    assert _git(work, "commit", "-qm", "init").returncode == 0
    (work / ".git" / "hooks" / "pre-commit").symlink_to("../../tools/hooks/pre-commit")
    _write(work / ".git" / "hooks" / "pre-push", "#!/bin/sh\nexec ./scripts/prepush.sh\n"
           "node_modules/.bin/lint && ../outside.sh; /bin/sh -c true | grep src/app.py\n", 0o755)  # fmt: skip
    _write(tmp_path / "outside.sh", OK, 0o755)
    return work


def test_the_files_tools_ask_before_writing_what_a_hook_or_an_envrc_runs(
    work: Path, tmp_path: Path
) -> None:
    asked: list[str] = []

    def deny(request) -> str:
        asked.append(request.reason)
        return "deny"

    limits = ResultLimits(scratch_root=tmp_path / "hermes" / "scratch")
    registry = ToolRegistry(make_file_tools(hermes_home=tmp_path / "hermes", limits=limits))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(deny), session_id="s")
    held = ["tools/hooks/pre-commit", "scripts/prepush.sh", ".envrc.local", "scripts/dev-env.sh",
            "flake.nix", "flake.lock", ".env", "scripts/check.sh", "scripts/lh.sh",
            "scripts/mise-env.sh"]  # fmt: skip
    for path in held:
        before = (work / path).read_bytes() if (work / path).exists() else None
        result = registry.call("write_file", {"path": path, "content": "touch PWN\n"}, context)
        assert result.get("denied") and "runs later outside the sandbox" in result["error"], path
        assert ((work / path).read_bytes() if (work / path).exists() else None) == before, path
    assert any("pre-commit hook" in reason for reason in asked)
    assert any("pre-push hook" in reason and "prepush.sh" in reason for reason in asked)
    assert any("direnv" in reason for reason in asked)
    # Project code, a package folder's program and a file outside are written without asking.
    for path in ("src/app.py", "node_modules/.bin/lint"):
        result = registry.call("write_file", {"path": path, "content": "x\n"}, context)
        assert result.get("success"), (path, result)
    names = {item.path for item in run_later.named(work, gitdirs.repositories(work))}
    assert tmp_path / "outside.sh" not in names and Path("/bin/sh") not in names


def test_without_the_sandbox_a_hook_links_target_is_put_back_before_the_users_commit(
    work: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "PWN_hooklink"
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="off")))
    context = ToolContext(cwd=work, workdir=work, approval_mode="yolo")
    command = (
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > tools/hooks/pre-commit && "
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > scripts/prepush.sh"
    )
    result = registry.call("terminal", {"command": command}, context)
    assert "tools/hooks/pre-commit, which git runs as the pre-commit hook" in result["error"]
    assert "put back" in result["error"]
    # Not put back without the sandbox (no wall held it), but named with what runs it.
    assert "scripts/prepush.sh, which the pre-push hook" in result["error"], result
    (work / "src" / "app.py").write_text("print('edited')\n")
    assert _git(work, "commit", "-qam", "edit").returncode == 0
    assert not marker.exists()
    assert (work / "tools" / "hooks" / "pre-commit").read_text() == OK
    assert os.access(work / "tools" / "hooks" / "pre-commit", os.X_OK)


def test_a_link_in_the_folder_core_hookspath_names_is_held_like_the_hook(tmp_path: Path) -> None:
    work, marker = tmp_path / "work", tmp_path / "PWN_hookspath"
    _write(work / "tools" / "pre-commit", OK, 0o755)
    _write(work / "f.txt", "x\n")
    assert _git(work, "init", "-q").returncode == 0
    _git(work, "config", "core.hooksPath", ".githooks")
    (work / ".githooks").mkdir()
    (work / ".githooks" / "pre-commit").symlink_to("../tools/pre-commit")
    _git(work, "add", ".")
    assert _git(work, "commit", "-qm", "init").returncode == 0
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="off")))
    context = ToolContext(cwd=work, workdir=work, approval_mode="yolo")
    command = f"printf '#!/bin/sh\\ntouch {marker}\\n' > tools/pre-commit"
    result = registry.call("terminal", {"command": command}, context)
    assert "tools/pre-commit, which git runs as the pre-commit hook" in result["error"], result
    (work / "f.txt").write_text("y\n")
    assert _git(work, "commit", "-qam", "edit").returncode == 0
    assert not marker.exists()
    # Its folder renamed away: made again, the hook as it was in it (the commit runs it).
    result = registry.call("terminal", {"command": "mv tools t2"}, context)
    assert "put back" in result["error"], result
    assert (work / "tools" / "pre-commit").read_text() == OK


def test_a_script_huskys_hook_runs_is_read_only_to_commands_and_asked_about(tmp_path: Path) -> None:
    # husky 9: core.hooksPath = .husky/_, whose generated hooks run `.husky/pre-commit`.
    work = tmp_path / "work"
    _write(work / ".husky" / "pre-commit", "npx lint-staged\nsh scripts/husky-check.sh\n")
    _write(work / ".husky" / "_" / "pre-commit", '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    _write(work / "scripts" / "husky-check.sh", OK, 0o755)
    assert _git(work, "init", "-q").returncode == 0
    _git(work, "config", "core.hooksPath", ".husky/_")
    found = run_later.protected(work, gitdirs.repositories(work))
    why = [item.reason for item in found if item.path == work / "scripts" / "husky-check.sh"]
    assert why and "the pre-commit hook (.husky/pre-commit)" in why[0], found
    limits = ResultLimits(scratch_root=tmp_path / "hermes" / "scratch")
    registry = ToolRegistry(make_file_tools(hermes_home=tmp_path / "hermes", limits=limits))
    context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _r: "deny"))
    result = registry.call(
        "write_file", {"path": "scripts/husky-check.sh", "content": "touch PWN\n"}, context
    )
    assert result.get("denied"), result
    assert (work / "scripts" / "husky-check.sh").read_text() == OK


def test_a_hook_linked_to_a_file_elsewhere_in_the_git_folder_is_put_back(tmp_path: Path) -> None:
    # `.git` stays writable to commands (git writes objects there): a hook's target kept in
    # `.git/myhooks/` is held like the hook.
    work, marker = tmp_path / "work", tmp_path / "PWN_gitfolder"
    _write(work / "f.txt", "x\n")
    assert _git(work, "init", "-q").returncode == 0
    _write(work / ".git" / "myhooks" / "pre-commit", OK, 0o755)
    (work / ".git" / "hooks" / "pre-commit").symlink_to("../myhooks/pre-commit")
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="off")))
    context = ToolContext(cwd=work, workdir=work, approval_mode="yolo")
    command = f"printf '#!/bin/sh\\ntouch {marker}\\n' > .git/myhooks/pre-commit"
    result = registry.call("terminal", {"command": command}, context)
    assert ".git/myhooks/pre-commit, which git runs as the pre-commit hook" in result["error"]
    _git(work, "add", ".")
    assert _git(work, "commit", "-qm", "x").returncode == 0
    assert not marker.exists()
