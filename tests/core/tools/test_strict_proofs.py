"""Strict mode without a sandbox (the default where bubblewrap cannot run) runs a command unasked
only when it is proven read-only (A4-26, A4-27): an abbreviated unsafe long option (`--compress`
for `--compress-program`, `--open-files-in` for `--open-files-in-pager`), a cluster of short ones
(`-uo FILE`), or a repository git enters whose own config runs a program (a nested repository
reached with `git -C`, a submodule `git status` walks into) is not proven. Judged by outcome:
the program a command would run never leaves its marker, the secret never reaches the output."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import ApprovalRequest, Approvals
from hermes_tui.core.tools.git_entered import gitlinks
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.shell_policy.readonly import prove_read_only
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

GIT = ["git", "-c", "user.name=u", "-c", "user.email=u@x", "-c", "protocol.file.allow=always"]


def _strict(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> str:
        asked.append(request)
        return "deny"

    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="off")))
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(approver), approval_mode="strict"
    )

    def run(command: str) -> dict:
        return registry.call("terminal", {"command": command, "timeout": 20}, context)

    return work, run, asked


def _repo(path: Path, files: dict[str, str]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run([*GIT, "-C", str(path), "init", "-q"], check=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    subprocess.run([*GIT, "-C", str(path), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-qm", "i"], check=True)


def test_abbreviated_options_run_no_program(tmp_path: Path) -> None:
    work, run, asked = _strict(tmp_path)
    grep_marker, sort_marker = tmp_path / "grep-ran", tmp_path / "sort-ran"
    _repo(work, {"tools/lint.sh": f"#!/bin/sh\ntouch {grep_marker}\n", "a.txt": "TODO fix\n"})
    (work / "tools/lint.sh").chmod(0o755)
    (work / "notes.txt").write_text(f"touch {sort_marker}\n" * 20000)
    for command in (
        "git grep --open-files-in=./tools/lint.sh TODO",
        "git grep -iO./tools/lint.sh TODO",
        "sort -S 64K --compress=sh notes.txt | tail -1",
        "sort -S 64K --compress-prog sh notes.txt | tail -1",
    ):
        result = run(command)
        assert result.get("denied"), (command, result)
    assert not grep_marker.exists() and not sort_marker.exists()
    assert len(asked) == 4 and all("strict mode" in a.reason for a in asked)


def test_files0_names_nothing_the_proof_did_not_see(tmp_path: Path) -> None:
    work, run, _asked = _strict(tmp_path)
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key=AWSSECRETstrict5strict5\n")
    (work / "names.bin").write_bytes(str(secret).encode() + b"\0")
    for command in ("sort --files0=names.bin", "wc --files0=names.bin", "du --files0-f=names.bin"):
        result = run(command)
        assert result.get("denied") and "AWSSECRET" not in str(result), command


def test_combined_short_options_write_no_file(tmp_path: Path) -> None:
    work, run, _asked = _strict(tmp_path)
    (work / "in.txt").write_text("b\na\n")
    for command in (
        "sort -uo out.txt in.txt",
        "sort -ro out.txt in.txt",
        "sort --outp=out.txt in.txt",
    ):
        assert run(command).get("denied"), command
    assert not (work / "out.txt").exists()


@pytest.mark.parametrize(
    "command",
    ["sort --compress-p=sh x", "sort --temp=d x", "sort -To x", "tail --fol x", "tail -qf x",
     "wc --files0=n", "git diff --ext-d", "git diff --textc", "git log --outp=f", "git show --out f",
     "git grep --open TODO", "git grep --ext-g TODO", "git cat-file --filt HEAD:x",
     "git --git-dir=.git status", "git --work-tree=. status", "git --bare log",
     "git branch -vd main", "git tag -la v1", "rg --pre-g '*' x", "rg -uz x", "date --se=2020-01-01",
     "date -us 2020-01-01", "tree -fo out", "file --comp x", "rg --hostname=./x.sh x", "git log --show-sig", "git tag -v v1"],
)  # fmt: skip
def test_the_family_of_unsafe_spellings_is_not_proven(command: str) -> None:
    assert not prove_read_only(command, "/w", "/w").proven, command


@pytest.mark.parametrize(
    "command",
    ["git diff --text", "git log --oneline -n 5", "git branch -vv", "git --no-pager log -1",
     "git tag -l --sort=-v:refname", "sort -t, -k2 x", "sort -u x", "grep -- --output x",
     "git -C sub status", "tail -n 5 x", "git grep -n TODO", "date -Iseconds", "sort -k1,2o x"],
)  # fmt: skip
def test_their_safe_neighbours_still_are(command: str) -> None:
    assert prove_read_only(command, "/w", "/w").proven, command


def test_grep_abbreviated_recursion_does_not_reach_excluded_places() -> None:
    for command in ("grep --recur KEY .", "grep --dir=rec KEY", "grep -d recurse KEY"):
        proof = prove_read_only(command, "/w", "/w", excluded=["/w/.hermes"])
        assert not proof.proven, command


def test_a_nested_repositorys_config_runs_nothing_through_git_c(tmp_path: Path) -> None:
    work, run, asked = _strict(tmp_path)
    marker = tmp_path / "nested-ran"
    _repo(work / "vendor/clean", {"x.c": "int x;\n"})
    assert run("git -C vendor/clean status")["exit_code"] == 0 and not asked  # still runs
    _repo(work / "vendor/lib", {"x.c": "int x;\n"})
    with open(work / "vendor/lib/.git/config", "a") as config:
        config.write(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')
    (work / "vendor/lib/sub").mkdir()
    (work / "src").symlink_to(work / "vendor/lib/sub")  # git -C src walks up from vendor/lib/sub
    for command in (
        "git -C vendor/lib status",
        "git -C vendor -C lib log",
        "git -C vendor/lib/.git log",
        "git -C src status",
    ):
        assert run(command).get("denied"), command
    assert not marker.exists() and "vendor/lib" in asked[0].reason


def test_a_submodules_config_runs_nothing_at_a_plain_git_status(tmp_path: Path) -> None:
    work, run, asked = _strict(tmp_path)
    marker = tmp_path / "submodule-ran"
    _repo(tmp_path / "libsrc", {"x.c": "int x;\n"})
    _repo(work, {"README": "top\n"})
    subprocess.run(
        [*GIT, "-C", str(work), "submodule", "add", "-q", str(tmp_path / "libsrc"), "lib"],
        check=True,
    )
    subprocess.run([*GIT, "-C", str(work), "commit", "-qm", "sub"], check=True)
    assert gitlinks(work / ".git/index") == ["lib"]
    assert run("git status")["exit_code"] == 0 and not asked  # a clean submodule: still runs
    with open(work / ".git/modules/lib/config", "a") as config:
        config.write(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')
    for command in ("git status", "git diff", "git -C lib log"):
        assert run(command).get("denied"), command
    assert not marker.exists()


def test_submodules_are_found_in_every_index_version(tmp_path: Path) -> None:
    _repo(tmp_path / "libsrc", {"x.c": "int x;\n"})
    _repo(tmp_path / "top", {"a/b/c.txt": "1\n", "a/b/d.txt": "2\n"})
    top = tmp_path / "top"
    for path in ("a/b/sub", "z/sub"):
        subprocess.run(
            [*GIT, "-C", str(top), "submodule", "add", "-q", str(tmp_path / "libsrc"), path],
            check=True,
        )
    for version in ("2", "3", "4"):
        subprocess.run(
            ["git", "-C", str(top), "update-index", "--index-version", version], check=True
        )
        assert gitlinks(top / ".git/index") == ["a/b/sub", "z/sub"], version
    (top / ".git/index").write_bytes(b"DIRC\0\0\0\x02\0\0\0\x05garbage\0\0\xe0\0")
    assert gitlinks(top / ".git/index") is None


def test_a_config_git_reads_past_a_bom_or_through_an_include_runs_nothing(tmp_path: Path) -> None:
    work, run, asked = _strict(tmp_path)
    marker = tmp_path / "include-ran"
    _repo(work, {"a.txt": "a\n"})
    config = work / ".git/config"
    config.write_bytes(b"\xef\xbb\xbf[include]\n\tpath = ../.gitinclude\n" + config.read_bytes())
    (work / ".gitinclude").write_text(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')
    assert run("git status").get("denied") and not marker.exists() and asked


def test_a_clone_nested_outside_the_index_is_judged_too(tmp_path: Path) -> None:
    work, run, asked = _strict(tmp_path)
    _repo(work, {"a.txt": "a\n"})
    _repo(work / "third_party/tool", {"x.c": "int x;\n"})
    assert run("git log --oneline")["exit_code"] == 0 and not asked
    with open(work / "third_party/tool/.git/config", "a") as config:
        config.write('[diff]\n\texternal = "sh -c id"\n')
    assert run("git log --oneline").get("denied") and "third_party/tool" in asked[0].reason
