"""attack9's A9-21: while the user is inside `git rebase -i`, an `exec` line a command adds to
`.git/rebase-merge/git-rebase-todo` ran at their `git rebase --continue`, outside the sandbox.
The command runs as the unprivileged user; so does the user's git afterwards."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sandbox_user import as_user, env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture
IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def _stopped_rebase(work: Path, *exec_lines: str) -> Path:
    """A repository of three commits, stopped at an `edit` of `git rebase -i HEAD~2` (with
    the user's own exec lines, if any, after the first pick)."""

    def git(*args: str, **env: str) -> None:
        subprocess.run(
            ["git", "-C", str(work), *args], check=True, capture_output=True,
            env={"PATH": SYSTEM_PATH, "HOME": str(work.parent), **IDENTITY, **env}, timeout=60,
        )  # fmt: skip

    work.mkdir()
    git("init", "-q")
    for n in range(3):
        (work / "f.txt").write_text(f"v{n}\n")
        git("add", ".")
        git("commit", "-qm", f"c{n}")
    extra = "".join(f"\\nexec {line}" for line in exec_lines)
    git("rebase", "-i", "HEAD~2", GIT_SEQUENCE_EDITOR=f"sed -i '1s/^pick/edit/;1s/$/{extra}/'")
    todo = work / ".git" / "rebase-merge" / "git-rebase-todo"
    assert todo.is_file()
    return todo


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_an_exec_line_a_command_adds_to_the_rebase_todo_is_taken_out(place: Path) -> None:
    work = place / "ws"
    todo = _stopped_rebase(work, "true")  # the user's own exec line stays
    own(place)
    marker = place / "PWNED"
    env = {**env_of(place, SYSTEM_PATH), **IDENTITY}
    [result] = terminal(
        work, env, f"printf 'x touch {marker}\\n' >> .git/rebase-merge/git-rebase-todo"
    )
    assert str(marker) not in todo.read_text() and "exec true" in todo.read_text(), result
    assert "exec line(s)" in result["error"] and "taken out" in result["error"], result
    done = as_user(["git", "rebase", "--continue"], {**env, "GIT_EDITOR": "true"}, work)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_a_command_may_still_carry_the_rebase_on(place: Path) -> None:
    work = place / "ws"
    _stopped_rebase(work)
    own(place)
    env = {**env_of(place, SYSTEM_PATH), **IDENTITY, "GIT_EDITOR": "true"}
    [result] = terminal(
        work,
        env,
        "echo fixed > g.txt && git add g.txt && git commit -q --amend --no-edit && git rebase --continue",
    )
    assert result["success"], result
    assert not (work / ".git" / "rebase-merge").exists()


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_a_todo_made_a_link_to_a_script_of_the_commands_is_judged_as_git_reads_it(
    place: Path,
) -> None:
    """git follows a link at git-rebase-todo: its exec lines are the todo's."""
    work = place / "ws"
    todo = _stopped_rebase(work)
    own(place)
    marker = place / "PWNED"
    env = {**env_of(place, SYSTEM_PATH), **IDENTITY}
    made = f"cp {todo} evil && printf 'exec touch {marker}\\n' >> evil"
    [result] = terminal(work, env, f"{made} && ln -sf ../../evil {todo}")
    assert not todo.is_symlink() and str(marker) not in todo.read_text(), result
    done = as_user(["git", "rebase", "--continue"], {**env, "GIT_EDITOR": "true"}, work)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
