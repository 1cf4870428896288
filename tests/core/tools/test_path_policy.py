"""The files tool's path policy: a verdict with a reason for every path, over a table of cases.

`decide` is judged on tests/data/path_policy_cases.yaml (paths already resolved); `gather` is
judged on a real filesystem, where symlinks, `..`, hard links and /proc/self/root live.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path, PurePosixPath

import pytest
from helpers import REPO, read_yaml

from hermes_tui.core.tools.path_policy import (
    PathFacts,
    PathRules,
    decide,
    gather,
    resolve_rules,
    secret_file_ids,
)

TABLE = read_yaml(REPO / "tests" / "data" / "path_policy_cases.yaml")
RAW_RULES = TABLE["rules"]
RULES = PathRules(
    workdir=Path(RAW_RULES["workdir"]),
    allowed_roots=tuple(Path(p) for p in RAW_RULES["allowed_roots"]),
    read_roots=tuple(Path(p) for p in RAW_RULES["read_roots"]),
    hermes_home=Path(RAW_RULES["hermes_home"]),
    user_home=Path(RAW_RULES["user_home"]),
    secret_ids=frozenset(tuple(i) for i in RAW_RULES["secret_ids"]),
)


def _case_id(case: dict) -> str:
    return f"{case['access']} {case.get('requested', case['path'])} -> {case['expect']}"


@pytest.mark.parametrize("case", TABLE["cases"], ids=_case_id)
def test_decide_over_the_case_table(case: dict) -> None:
    path = PurePosixPath(case["path"])
    facts = PathFacts(
        requested=case.get("requested", case["path"]),
        lexical=PurePosixPath(case.get("lexical", case["path"])),
        resolved=path,
        file_id=tuple(case["file_id"]) if "file_id" in case else None,
    )
    verdict = decide(case["access"], facts, RULES)
    assert verdict.action == case["expect"], (verdict, case.get("note"))
    assert verdict.path == Path(path)
    if case["expect"] == "allow":
        assert verdict.reason == ""
    else:
        assert case["reason"] in verdict.reason, verdict.reason


def test_the_table_covers_every_verdict_and_both_accesses() -> None:
    seen = {(c["access"], c["expect"]) for c in TABLE["cases"]}
    assert seen >= {("read", "allow"), ("read", "ask"), ("write", "allow"), ("write", "ask")}
    assert ("write", "deny") in seen and len(TABLE["cases"]) >= 60


# ---- gather(): what the kernel would open -------------------------------------------------


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A user home with secrets, a hermes home, a working directory and a folder outside."""
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    hermes = user / ".hermes"
    (hermes / "memories").mkdir(parents=True)
    (hermes / ".env").write_text("OPENAI_API_KEY=sk-x\n")
    work = user / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "app.py").write_text("print(1)\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("elsewhere\n")
    return {"user": user, "hermes": hermes, "work": work, "outside": outside}


def _verdict(world: dict[str, Path], access: str, raw: str, cwd: Path | None = None):
    rules = resolve_rules(world["work"], hermes_home=world["hermes"], user_home=world["user"])
    facts = gather(raw, cwd or world["work"], rules)
    if facts.links > 1:
        rules = dataclasses.replace(
            rules, secret_ids=secret_file_ids(rules.user_home, rules.hermes_home)
        )
    return decide(access, facts, rules)


def test_relative_paths_inside_are_allowed_and_resolved(world: dict[str, Path]) -> None:
    verdict = _verdict(world, "read", "src/../src/app.py")
    assert verdict.action == "allow" and verdict.path == world["work"] / "src" / "app.py"


def test_dot_dot_out_of_the_working_directory_asks(world: dict[str, Path]) -> None:
    verdict = _verdict(world, "read", "../../outside/data.txt")
    assert verdict.action == "ask" and "outside the working directory" in verdict.reason
    assert verdict.path == world["outside"] / "data.txt"


def test_a_symlink_out_of_the_working_directory_asks(world: dict[str, Path]) -> None:
    (world["work"] / "docs").symlink_to(world["outside"])
    verdict = _verdict(world, "read", "docs/data.txt")
    assert verdict.action == "ask" and verdict.path == world["outside"] / "data.txt"


def test_a_symlink_to_a_secret_asks_naming_the_target(world: dict[str, Path]) -> None:
    (world["work"] / "notes.txt").symlink_to(world["user"] / ".ssh" / "id_rsa")
    verdict = _verdict(world, "read", "notes.txt")
    assert verdict.action == "ask" and "reads ~/.ssh/id_rsa, a secret file" in verdict.reason


def test_a_chain_of_symlinks_and_a_dangling_one_are_followed(world: dict[str, Path]) -> None:
    (world["work"] / "a").symlink_to(world["work"] / "b")
    (world["work"] / "b").symlink_to(world["outside"] / "not-yet.txt")
    verdict = _verdict(world, "write", "a")
    assert verdict.action == "ask" and verdict.path == world["outside"] / "not-yet.txt"


def test_proc_self_root_and_cwd_resolve_to_the_real_place(world: dict[str, Path]) -> None:
    secret = world["user"] / ".ssh" / "id_rsa"
    via_root = _verdict(world, "read", f"/proc/self/root{secret}")
    assert via_root.action == "ask" and via_root.path == secret and "SSH keys" in via_root.reason
    os_cwd = Path.cwd()
    via_cwd = _verdict(world, "read", "/proc/self/cwd/x")
    assert via_cwd.path == os_cwd / "x"


def test_proc_self_environ_asks(world: dict[str, Path]) -> None:
    verdict = _verdict(world, "read", "/proc/self/environ")
    assert verdict.action == "ask" and "environment" in verdict.reason


def test_a_hard_link_to_a_secret_asks_whatever_its_name(world: dict[str, Path]) -> None:
    linked = world["work"] / "innocent.txt"
    os.link(world["user"] / ".ssh" / "id_rsa", linked)
    verdict = _verdict(world, "read", "innocent.txt")
    assert verdict.action == "ask" and "hard link to a secret file" in verdict.reason
    os.link(world["work"] / "src" / "app.py", world["work"] / "app-copy.py")
    assert _verdict(world, "read", "app-copy.py").action == "allow"


def test_a_symlink_into_the_hermes_home_cannot_write_its_stores(world: dict[str, Path]) -> None:
    (world["work"] / "mem").symlink_to(world["hermes"] / "memories")
    verdict = _verdict(world, "write", "mem/MEMORY.md")
    assert verdict.action == "deny" and "use the memory tool" in verdict.reason
    env = _verdict(world, "write", str(world["hermes"] / ".env"))
    assert env.action == "deny"


def test_tilde_is_the_users_home(world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(world["user"]))
    verdict = _verdict(world, "read", "~/.ssh/id_rsa")
    assert verdict.action == "ask" and verdict.path == world["user"] / ".ssh" / "id_rsa"


def test_a_workdir_reached_through_a_symlink_still_contains_its_files(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(real)
    rules = resolve_rules(tmp_path / "alias", user_home=tmp_path / "nobody")
    facts = gather("src/x.py", tmp_path / "alias", rules)
    assert decide("write", facts, rules).action == "allow"
