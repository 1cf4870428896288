"""A sandboxed command sees nothing of what lies outside the system and the home but the work
and what commands need (root_view.py): attack9's A9-14 read another project's `.env` under
`/workspaces`-like folders and a WSL user's Windows `.aws/credentials` under `/mnt/c/Users`,
and listed the machine's other checkouts, with one unasked `find`. Judged by what commands
print, run through the terminal tool as the unprivileged user (`sandbox_world.runner`), in
folders made at the top of `/` (`/srv`, `/mnt`, `/media`: two of them)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_world import REPO, SYSTEM_PATH, runner, sandbox_works

from hermes_tui.core.tools import root_view

CALL = """
import sys
from pathlib import Path
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools
work, hermes, command, allow = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
settings = TerminalSettings(sandbox="on", network="off", hermes_home=hermes,
                            allow_read=tuple(map(Path, allow)), cache_dir=hermes / "cache")
registry = ToolRegistry(make_terminal_tools(settings))
context = ToolContext(cwd=work, workdir=work, approvals=Approvals(lambda _request: "once"))
result = registry.call("terminal", {"command": command, "timeout": 60}, context)
print(result.get("output", "") + result.get("error", ""))
"""
PROJECT_SECRET = "Pb7Wq2Lz9TxKv4Nm"  # another project's .env beside the work
WINDOWS_SECRET = "Wa3Lq8Tz2XkVm7Rp"  # a WSL user's Windows profile: /mnt/c/Users/me/.aws
TOOL_SECRET = "Tl5Wq3Lz8TxNm2Kv"  # a .env at the top of a folder on PATH


def _roots() -> list[Path]:
    """Two folders at the top of `/` that root_view empties and this process can write."""
    return [
        Path(root)
        for root in ("/srv", "/mnt", "/media")
        if os.path.isdir(root)
        and os.access(root, os.W_OK)
        and os.path.basename(root) not in root_view.SYSTEM
    ][:2]


@pytest.fixture
def places() -> Iterator[tuple[Path, Path, Path]]:
    """(a folder of ours in one root, one in another, the user's home for the test)."""
    _prefix, user, why = runner()
    if why:
        pytest.skip(why)
    roots = _roots()
    if len(roots) < 2:
        pytest.skip("needs two of /srv, /mnt, /media writable (the suite runs as root)")
    made = [Path(tempfile.mkdtemp(prefix="hermes-rootview-", dir=root)) for root in roots]
    entry = pwd.getpwnam(user) if user else None
    parent = Path(entry.pw_dir) if entry else Path.home() / ".cache"
    home = Path(tempfile.mkdtemp(prefix="hermes-rootview-home-", dir=parent))
    try:
        yield made[0], made[1], home
    finally:
        for folder in [*made, home]:
            shutil.rmtree(folder, ignore_errors=True)


def _plant(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text, encoding="utf-8")


def _own(*folders: Path) -> None:
    _prefix, user, _why = runner()
    entry = pwd.getpwnam(user) if user else None
    for top in folders:
        top.chmod(0o755)
        for folder, dirs, files in os.walk(top):
            for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                if entry:
                    os.lchown(name, entry.pw_uid, entry.pw_gid)


def _terminal(home: Path, work: Path, command: str, allow: tuple[str, ...] = (), path: str = ""):
    prefix, _user, _why = runner()
    env = {"PYTHONPATH": str(REPO), "HOME": str(home), "PATH": f"{path}{SYSTEM_PATH}"}
    argv = [*prefix, sys.executable, "-c", CALL, str(work), str(home / "hh"), command, *allow]
    found = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=90)
    assert found.returncode == 0, found.stderr[-2000:]
    return found.stdout


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_projects_and_a_windows_home_outside_the_home_are_out_of_sight(
    places: tuple[Path, Path, Path],
) -> None:
    """Started in `<root>/ws`: the sibling project and the Windows profile in another root are
    not there; the work, a program on PATH there with its prefix, the Windows home's own `bin`
    on PATH (not the home) and what the user opts in with terminal.allow_read are."""
    base, other, home = places
    _plant(base, {"projB/.env": f"STRIPE_SECRET={PROJECT_SECRET}\n", "ws/notes.txt": "work\n"})
    _plant(base, {"shared/settings.ini": "opted-in-setting\n"})
    _plant(base, {"tools/bin/rvtool": '#!/bin/sh\ncat "$(dirname "$0")/../share/msg"\n'})
    _plant(base, {"tools/share/msg": "rvtool ran with its share\n"})
    _plant(base, {"scripts/.env": f"TOOL_TOKEN={TOOL_SECRET}\n", "scripts/rvs": "echo rvs ran\n"})
    (base / "tools/bin/rvtool").chmod(0o755)
    (base / "scripts/rvs").chmod(0o755)
    _plant(other, {"Users/me/.aws/credentials": f"aws_secret_access_key = {WINDOWS_SECRET}\n"})
    # The Windows home's own `bin` on PATH: the folder is in sight, the home above it is not.
    _plant(other, {"Users/me/bin/winprog": "echo winprog ran\n", "Users/me/AppData/x": "x\n"})
    (other / "Users/me/bin/winprog").chmod(0o755)
    (home / "hh").mkdir()
    _own(base, other, home)
    command = (
        f"find {base} {other} -type f | while read f; do echo == $f; rev $f; done; "
        f"cat {base}/shared/settings.ini; ls -a ..; ls -a {other}/Users/me; rvtool; rvs; "
        "winprog; "
        "echo made > out.txt; cat notes.txt"
    )
    allow = (str(base / "shared"),)
    path = f"{base}/tools/bin:{base}/scripts:{other}/Users/me/bin:"
    output = _terminal(home, base / "ws", command, allow, path=path)
    for secret in (PROJECT_SECRET, WINDOWS_SECRET, TOOL_SECRET):
        assert secret not in output and secret[::-1] not in output, output
    listed = output.split("opted-in-setting\n")[-1]  # `ls -a ..` and of the Windows home
    assert "projB" not in output and "ws" in listed and "bin" in listed, output
    assert "AppData" not in output and ".aws" not in output, output
    assert "opted-in-setting" in output and "rvtool ran with its share" in output, output
    assert "rvs ran" in output and "winprog ran" in output, output
    assert "work" in output and (base / "ws/out.txt").read_text() == "made\n", output
    # ... and the planted files are still there, outside.
    assert (base / "projB/.env").is_file() and (other / "Users/me/.aws/credentials").is_file()


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_git_works_in_a_worktree_whose_main_checkout_is_out_of_sight(
    places: tuple[Path, Path, Path],
) -> None:
    """A linked worktree's `.git` file leads to the main checkout's `.git`: that is bound back
    (read-only), the main checkout's files and `.env` are not."""
    base, _other, home = places
    main, work = base / "main", base / "wt"
    _plant(main, {"app.py": "print('hi')\n", ".env": f"KEY={PROJECT_SECRET}\n"})
    git = ["git", "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "add", "app.py"], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-qm", "first commit"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(work)], check=True)
    (home / "hh").mkdir()
    _own(base, home)
    command = "git log --format=%s; git status --short; echo ==; ls ../main; echo ==; cat app.py"
    output = _terminal(home, work, command)
    assert "first commit" in output and "print('hi')" in output, output
    assert PROJECT_SECRET not in output and output.split("==")[1].strip() == "", output


def test_a_root_that_is_the_work_or_lies_in_it_is_not_emptied(tmp_path: Path) -> None:
    """Started in `/` or in a folder at its top, that folder is the work: nothing of it is
    emptied (the writable places are bound over it)."""
    folders, _files = root_view.outside_system()
    if not folders:
        pytest.skip("no folder outside the system at the top of / here")

    class Seen:
        user_home, hermes_home, workdir = tmp_path / "home", tmp_path / "hh", tmp_path
        programs = search_path = allow_read = repositories = locked = ()
        python = socat = None

    everything = root_view.view(Seen(), [Path("/")], [], os.path.lexists)
    assert everything.args == [] and everything.in_sight(Path(folders[0]) / ".env")
    one = root_view.view(Seen(), [Path(folders[0])], [], os.path.lexists)
    assert ["--tmpfs", folders[0]] not in [one.args[i : i + 2] for i in range(len(one.args))]
    assert one.in_sight(Path(folders[0]) / ".env")


def test_doctor_names_the_folders_emptied_here_and_the_one_that_is_the_work(
    tmp_path: Path,
) -> None:
    from hermes_tui.core.tools.sandbox_describe import describe_profile

    folders, _files = root_view.outside_system()
    if len(folders) < 2:
        pytest.skip("needs two folders outside the system at the top of / here")
    lines = dict(
        describe_profile(
            user_home=tmp_path / "home",
            hermes_home=tmp_path / "hh",
            cache_dir=tmp_path / "cache",
            writable_roots=[],
            deny_read=[],
            network="off",
            network_allow=[],
            socat=None,
            workdir=Path(folders[0]),
        )
    )
    line = lines["outside the home"]
    here = line.split("; here: ")[1]
    assert here.startswith(folders[1]) or f", {folders[1]}" in here, line
    assert f"(not {folders[0]}: the work is there)" in line, line


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_started_in_a_monorepos_package_the_repository_above_is_in_sight(
    places: tuple[Path, Path, Path],
) -> None:
    """git, the hoisted `node_modules` and the other packages lie above `packages/api`: the
    repository is bound back read-only (its top `.env` hidden), the folder holding it is not."""
    base, _other, home = places
    mono = base / "mono"
    _plant(mono, {"node_modules/dep/index.js": "module.exports = 'hoisted dep'\n"})
    _plant(mono, {"packages/api/app.js": "require('dep')\n", ".env": f"K={PROJECT_SECRET}\n"})
    _plant(base, {"projB/.env": f"STRIPE_SECRET={WINDOWS_SECRET}\n"})
    git = ["git", "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(mono)], check=True)
    subprocess.run([*git, "-C", str(mono), "add", "packages"], check=True)
    subprocess.run([*git, "-C", str(mono), "commit", "-qm", "monorepo commit"], check=True)
    (home / "hh").mkdir()
    _own(base, home)
    command = (
        "git log --format=%s; cat ../../node_modules/dep/index.js; cat ../../.env; "
        f"find {base} -name .env | xargs cat; echo ==; ls ../../..; echo ==; echo x > out.txt; "
        "echo y > ../../made.txt"
    )
    output = _terminal(home, mono / "packages/api", command)
    assert "monorepo commit" in output and "hoisted dep" in output, output
    assert PROJECT_SECRET not in output and WINDOWS_SECRET not in output, output
    assert output.split("==")[1].split() == ["mono"], output
    assert (mono / "packages/api/out.txt").is_file() and not (mono / "made.txt").exists()


def test_a_plain_file_is_hidden_at_the_top_of_the_root_but_not_a_program_or_an_empty_one(
    tmp_path: Path,
) -> None:
    """What `outside_system` hides at the top of `/` (a container image's `/.env`), judged on
    files made here: nothing is ever planted at `/` (other tests' sandboxes list it)."""
    _plant(tmp_path, {".env": f"DB_PASSWORD={PROJECT_SECRET}\n", "init": "#!/bin/sh\n"})
    (tmp_path / "init").chmod(0o755)
    (tmp_path / ".dockerenv").write_text("")
    with os.scandir(tmp_path) as entries:
        hidden = {entry.name: root_view._readable_file(entry) for entry in entries}
    assert hidden == {".env": True, "init": False, ".dockerenv": False}


def test_the_repository_above_is_never_a_home_kept_in_git(tmp_path: Path) -> None:
    """A home whose dotfiles are a repository holds the work, it is not the work's repository."""
    repo, home = tmp_path / "mono", tmp_path / "someone"
    for top in (repo, home):
        (top / "packages/api").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(top)], check=True)
    (home / ".ssh").mkdir()
    assert root_view.enclosing(repo / "packages/api")[:2] == [repo, repo / ".git"]
    assert root_view.enclosing(home / "packages/api") == []
    assert root_view.enclosing(repo) == []  # the repository's top: nothing above it
