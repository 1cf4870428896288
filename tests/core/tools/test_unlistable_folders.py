"""attack9's A9-10: a command that leaves a folder without read permission (`chmod 311 sub`,
or its parent) hid what it made there from the walks that look for it afterwards (the new
instruction files, nested repositories, lint-staged configs), while a session started there,
git or a shell reach it by name with search permission alone. A walk that cannot list a folder
of the user's own gives it its owner's rights back and lists it. Judged as the unprivileged
user (root lists any folder)."""

from __future__ import annotations

import json
import sys

import pytest
from sandbox_user import as_user, env_of, own, place, terminal
from sandbox_world import REPO, SYSTEM_PATH, runner, sandbox_works

__all__ = ["place"]  # the fixture
as_someone = pytest.mark.skipif(runner()[1] is None, reason=runner()[2] or "not root")
sandboxed = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
WALKS = """
import json, sys
from pathlib import Path
from hermes_tui.core.tools.folder_walk import files_named
from hermes_tui.core.tools.gitdirs import nested_trees
work = sys.argv[1]
found, complete = files_named(work, frozenset({"AGENTS.md"}), frozenset({".git"}))
print(json.dumps([sorted(found), complete, [str(t) for t in nested_trees(Path(work))]]))
"""


@as_someone
def test_the_walks_see_into_a_folder_a_command_left_unlistable(place) -> None:
    work = place / "ws"
    for folder in (work / "sub", work / "a" / "b", work / "vendor" / "lib" / ".git"):
        folder.mkdir(parents=True)
    (work / "sub" / "AGENTS.md").write_text("planted\n")
    (work / "a" / "b" / "AGENTS.md").write_text("planted\n")
    own(place)
    for folder in (work / "sub", work / "a", work / "vendor"):
        folder.chmod(0o311)

    walked = as_user([sys.executable, "-c", WALKS, str(work)], {"PYTHONPATH": str(REPO)}, work)

    found, complete, trees = json.loads(walked.stdout or "null") or ([], False, [])
    assert found == [f"{work}/a/b/AGENTS.md", f"{work}/sub/AGENTS.md"], walked.stderr
    assert complete and trees == [str(work / "vendor" / "lib")]


@sandboxed
def test_a_nested_repository_behind_an_unlistable_folder_is_held_like_any(place) -> None:
    work = place / "ws"
    work.mkdir()
    own(place)
    marker = place / "PWNED"
    env = env_of(place, SYSTEM_PATH)

    (result,) = terminal(
        work,
        env,
        "git init -q vendor/lib && "
        f"git -C vendor/lib config core.fsmonitor 'touch {marker}; false' && chmod 311 vendor",
    )

    status = as_user(["git", "status", "--short"], env, work / "vendor" / "lib")
    assert status.returncode == 0 and not marker.exists(), (result, status.stderr)
    assert "core.fsmonitor" in result["error"], result
