"""package.json's commit-hook keys (lint-staged, simple-git-hooks, husky v4): a sandboxed
command that adds or changes one has it put back after it ends, the rest of its package.json
kept (npm install writes the file), its own version kept in the quarantine; judged by what
the file holds afterwards, with the command run as the unprivileged user."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sandbox_user import env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry

__all__ = ["place"]  # the fixture
sandboxed = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])

EVIL = {"*": "touch ~/PWNED"}
ORIGINAL = {
    "name": "app",
    "scripts": {"test": "jest"},
    "lint-staged": {"*.js": "eslint --fix"},
    "dependencies": {"left-pad": "1.0.0"},
}
EDIT = """
import json, sys
data = json.load(open("package.json"))
data["dependencies"]["chalk"] = "5.0.0"
for key, value in json.loads(sys.argv[1]).items():
    data[key] = value
open("package.json", "w").write(json.dumps(data, indent=2) + "\\n")
"""


@sandboxed
def test_a_command_s_commit_hook_keys_in_package_json_are_put_back(place: Path) -> None:
    work = place / "work"
    work.mkdir()
    (work / "package.json").write_text(json.dumps(ORIGINAL, indent=2) + "\n")
    (work / "edit.py").write_text(EDIT)
    own(place)
    hooks = {"lint-staged": EVIL, "simple-git-hooks": {"pre-commit": "touch ~/PWNED"}}

    results = terminal(
        work,
        env_of(place, SYSTEM_PATH),
        f"python3 edit.py '{json.dumps(hooks)}' && echo edited",
        "python3 edit.py '{}' && echo ordinary",
        'printf \'{"lint-staged": {"*": "touch x"},}\' > package.json',  # not JSON
    )

    after = json.loads((work / "package.json").read_text())
    assert after["lint-staged"] == ORIGINAL["lint-staged"] and "simple-git-hooks" not in after
    assert after["dependencies"] == {"left-pad": "1.0.0", "chalk": "5.0.0"}, "the rest kept"
    assert (work / "package.json").read_text().startswith('{\n  "name": "app",\n')
    first, second, third = results
    assert "edited" in first["output"] and not first["success"], first
    assert "lint-staged, simple-git-hooks" in first["error"] and "put back" in first["error"]
    kept = Path(re.search(r"kept at (\S+package\.json)", first["error"]).group(1))
    assert json.loads(kept.read_text())["simple-git-hooks"] == hooks["simple-git-hooks"]
    assert second["success"] and "ordinary" in second["output"], second
    assert "put back whole" in third["error"], third


@sandboxed
def test_a_new_package_json_keeps_everything_but_the_hook_keys(place: Path) -> None:
    work = place / "work"
    work.mkdir()
    own(place)
    made = {"name": "x", "husky": {"hooks": {"pre-commit": "touch ~/PWNED"}}, "version": "1.0.0"}

    (result,) = terminal(
        work, env_of(place, SYSTEM_PATH), f"echo '{json.dumps(made)}' > package.json"
    )

    assert json.loads((work / "package.json").read_text()) == {"name": "x", "version": "1.0.0"}
    assert "husky" in result["error"], result


def test_the_files_tools_ask_before_changing_the_commit_hook_keys(tmp_path: Path) -> None:
    """write_file and patch of package.json: an ordinary change is written; one that adds or
    changes a commit-hook key asks (denied here: the file keeps its keys)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "package.json").write_text(json.dumps(ORIGINAL, indent=2) + "\n")
    asked: list[str] = []
    registry = ToolRegistry(make_file_tools(hermes_home=tmp_path / "hermes"))
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(lambda r: asked.append(r.reason) or "deny")
    )
    ordinary = {**ORIGINAL, "version": "1.0.1"}
    planted = {**ORIGINAL, "lint-staged": EVIL}

    wrote = registry.call(
        "write_file", {"path": "package.json", "content": json.dumps(ordinary)}, context
    )
    denied = registry.call(
        "write_file", {"path": "package.json", "content": json.dumps(planted)}, context
    )
    patched = registry.call(
        "patch",
        {"path": "package.json", "old_string": '"name": "app"', "new_string": '"name": "app", '
         '"simple-git-hooks": {"pre-commit": "touch ~/PWNED"}'},
        context,
    )  # fmt: skip

    assert wrote["success"] and denied.get("denied") and patched.get("denied"), (denied, patched)
    assert len(asked) == 2 and "lint-staged" in asked[0] and "simple-git-hooks" in asked[1]
    after = json.loads((work / "package.json").read_text())
    assert after == ordinary


@sandboxed
def test_the_other_runners_spellings_are_put_back_too(place: Path) -> None:
    """attack8's A8-5: ghooks reads config.ghooks, pre-commit's list is also `precommit`,
    git-prepush-hook's `pre-push`, nano-staged's key, husky 0.x's scripts.precommit and
    githook-scripts' scripts["githook:pre-commit"]; an ordinary script stays."""
    work = place / "work"
    work.mkdir()
    original = {**ORIGINAL, "config": {"port": 8080}}
    (work / "package.json").write_text(json.dumps(original, indent=2) + "\n")
    (work / "edit.py").write_text(EDIT)
    own(place)
    added = {
        "config": {"port": 8080, "ghooks": {"pre-commit": "touch ~/PWNED"}},
        "precommit": ["evil"],
        "pre-push": ["evil"],
        "nano-staged": {"*": "touch ~/PWNED"},
        "scripts": {
            "test": "jest",
            "precommit": "touch ~/PWNED",
            "githook:pre-commit": "touch ~/PWNED",
            "lint": "eslint .",
        },
    }

    (result,) = terminal(work, env_of(place, SYSTEM_PATH), f"python3 edit.py '{json.dumps(added)}'")

    after = json.loads((work / "package.json").read_text())
    assert after["config"] == {"port": 8080}
    assert not {"precommit", "pre-push", "nano-staged"} & set(after)
    assert after["scripts"] == {"test": "jest", "lint": "eslint ."}, "an ordinary script stays"
    assert after["dependencies"]["chalk"] == "5.0.0"
    assert "config.ghooks" in result["error"] and "scripts.githook:pre-commit" in result["error"]


@sandboxed
def test_a_monorepo_package_s_hook_configs_are_put_back_or_moved_aside(place: Path) -> None:
    """lint-staged uses the config nearest each staged file: packages/a/package.json's key,
    packages/b/.lintstagedrc.json; a new nano-staged config at the top too (A8-5); a FIFO
    under a config's name is removed, never opened (A9-17)."""
    work = place / "work"
    (work / "packages" / "a").mkdir(parents=True)
    (work / "packages" / "b").mkdir(parents=True)
    package = {"name": "a", "version": "1.0.0"}
    (work / "packages" / "a" / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    own(place)
    planted = json.dumps({**package, "lint-staged": EVIL})
    commands = [
        f"echo '{planted}' > packages/a/package.json",
        f"echo '{json.dumps(EVIL)}' > packages/b/.lintstagedrc.json",
        f"echo '{json.dumps(EVIL)}' > .nano-staged.json",
        "echo x > packages/b/index.js",
        # A9-17: a FIFO where a config is read blocked the app for ever after the command
        "mkdir packages/c && mkfifo packages/c/.lintstagedrc.json",
    ]

    (result,) = terminal(work, env_of(place, SYSTEM_PATH), "; ".join(commands))

    assert json.loads((work / "packages" / "a" / "package.json").read_text()) == package
    assert not (work / "packages" / "b" / ".lintstagedrc.json").exists()
    assert not (work / ".nano-staged.json").exists()
    assert not (work / "packages" / "c" / ".lintstagedrc.json").exists()
    assert (work / "packages" / "b" / "index.js").read_text() == "x\n"
    assert "packages/a/package.json's lint-staged" in result["error"], result
