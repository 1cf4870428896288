"""What the user's shell or interpreter runs later from PATH, judged by outcome as the user
would meet it: a command plants a program (or a library module) where the user's PATH leads,
then the user's own shell or python runs outside the sandbox, and its marker must not appear.

Run as the unprivileged user (`sandbox_world.runner`) when the suite runs as root, as the
sandbox's other outcome tests are (root reaches everything outside the sandbox)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_user import as_user, env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture

pytestmark = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])


def test_started_in_the_home_an_interpreter_prefix_library_on_path_stays_read_only(
    place: Path,
) -> None:
    """Started in ~ with a python prefix's `bin/` on PATH (conda's `~/miniconda3/bin`): the
    `bin/` was read-only, its `lib/` was not, and a `.pth` file in site-packages runs at the
    user's next python start. Also when the prefix is renamed and made anew around it."""
    home = place / "home"
    prefix = home / "py"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True, timeout=60
    )
    (home / "proj").mkdir()
    (home / "app" / "bin").mkdir(parents=True)  # a project's bin/ + lib/ on PATH: no prefix
    (home / "app" / "lib").mkdir()
    own(place)
    site = next(prefix.glob("lib/python3*/site-packages")).relative_to(home)
    marker = home / "PWNED"
    plant = f"echo 'import os; open({json.dumps(str(marker))}, \"w\")' > {{0}}/evil.pth"
    env = env_of(home, f"{prefix}/bin:{home}/app/bin:{SYSTEM_PATH}")

    results = terminal(
        home,
        env,
        plant.format(site) + "; echo app > app/lib/mine.rb; echo work > proj/notes.txt",
        f"mv py/lib py/lib-old; mv py py-old; mkdir -p {site}; " + plant.format(site),
    )

    ran = as_user([str(prefix / "bin" / "python"), "-c", "print('ran')"], env, home)
    assert ran.stdout == "ran\n", ran.stderr
    assert not marker.exists(), results
    assert list(home.rglob("evil.pth")) == [], results
    assert (home / "proj" / "notes.txt").read_text() == "work\n", "projects stay writable"
    assert (home / "app" / "lib" / "mine.rb").read_text() == "app\n", "not an interpreter's"


def _plant(folder: str, name: str, marker: Path) -> str:
    return (
        f"mkdir -p {folder} && printf '#!/bin/sh\\ntouch {marker}\\n' > {folder}/{name} "
        f"&& chmod +x {folder}/{name}"
    )


def test_relative_path_entries_and_the_working_directory_run_nothing_a_command_planted(
    place: Path,
) -> None:
    """`export PATH=bin:.:./node_modules/.bin:$PATH` (a JS developer's rc, direnv's `PATH_add`
    spelled relative): the user's shell in the project runs `bin/git`, `./ls` or
    `node_modules/.bin/git` for git and ls. `bin` is read-only like an absolute entry; the
    working directory and `node_modules/.bin` stay writable (npm install writes the latter)
    and a program left there under a system program's name is moved aside after the command,
    also a file that was there made runnable; so is one named like a toolchain's program kept
    in the home (nvm's npm); other programs stay, a global npm tool's name too (a project's
    own eslint is meant to come first)."""
    home = place / "home"
    work = home / "proj"
    (work / "bin").mkdir(parents=True)
    (work / "ssh").write_text("notes about ssh\n")  # the user's, not a program
    nvm = home / ".nvm" / "versions" / "node" / "v20"
    for tool in ("npm", "eslint"):  # npm -g's links into lib/node_modules, as nvm lays them
        script = nvm / "lib" / "node_modules" / tool / "bin" / "cli.js"
        script.parent.mkdir(parents=True)
        script.write_text(f"#!/bin/sh\necho global {tool}\n")
        script.chmod(0o755)
        (nvm / "bin").mkdir(exist_ok=True)
        (nvm / "bin" / tool).symlink_to(f"../lib/node_modules/{tool}/bin/cli.js")
    own(place)
    marks = {name: home / f"PWNED-{name}" for name in ("bin", "top", "nm", "ssh", "npm")}
    path = f"bin:.:./node_modules/.bin:{nvm}/bin:{SYSTEM_PATH}"
    env = env_of(home, path)

    results = terminal(
        work,
        env,
        "; ".join(
            [
                _plant("bin", "git", marks["bin"]),
                _plant(".", "ls", marks["top"]),
                _plant("node_modules/.bin", "git", marks["nm"]),
                _plant("node_modules/.bin", "my-linter", home / "linted"),
                _plant("node_modules/.bin", "npm", marks["npm"]),
                _plant("node_modules/.bin", "eslint", home / "local-eslint"),
                "echo work > notes.txt",
            ]
        ),
        f"printf '#!/bin/sh\\ntouch {marks['ssh']}\\n' > ssh; chmod +x ssh",
    )

    user = "git --version; ls; ssh -V; my-linter; npm; eslint; echo done"
    ran = as_user(["bash", "-c", user], env, work)
    assert ran.stdout.endswith("global npm\ndone\n"), ran.stderr
    assert [m.name for m in marks.values() if m.exists()] == [], results
    assert (home / "linted").exists(), "the project's own program runs"
    assert (home / "local-eslint").exists(), "the project's eslint comes before the global one"
    assert (work / "notes.txt").read_text() == "work\n"
    assert not results[0]["success"] and "node_modules/.bin/git" in results[0]["error"], results
    assert "moved aside" in results[1]["error"], results


def test_a_path_folder_left_unlistable_still_has_its_planted_program_moved_aside(
    place: Path,
) -> None:
    """attack9's A9-10: `chmod 311 node_modules/.bin` at the end of the command hid a planted
    `git` from the sweep's listing, while the shell finds it by name with search permission
    alone. The user's own folder gets its owner's rights back before it is looked at."""
    home = place / "home"
    work = home / "proj"
    (work / "node_modules" / ".bin").mkdir(parents=True)
    own(place)
    marker = home / "PWNED-311"
    env = env_of(home, f"{work}/node_modules/.bin:{SYSTEM_PATH}")

    (result,) = terminal(
        work, env, _plant("node_modules/.bin", "git", marker) + " && chmod 311 node_modules/.bin"
    )

    ran = as_user(["bash", "-c", "git --version"], env, work)
    assert "git version" in ran.stdout and not marker.exists(), result
    assert "node_modules/.bin/git" in result["error"], result
