"""`hermes-tui doctor` says which approval mode applies and why, whether the sandbox is on and
why not, and what a sandboxed command may write, may not read, and where its network goes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from helpers import run_main

import hermes_tui
from hermes_tui.core.tools.sandbox import probe


@pytest.fixture
def doctor(capfd: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME doctor` with this terminal config, for a user whose home holds
    .ssh, through cli.main in this process: its lines by check name."""

    def run(
        home: Path, tmp_path: Path, terminal: dict, cwd: Path | None = None, **env: str
    ) -> dict[str, str]:
        (home / "config.yaml").write_text(yaml.safe_dump({"terminal": terminal}), encoding="utf-8")
        user = tmp_path / "user"
        (user / ".ssh").mkdir(parents=True, exist_ok=True)
        result = run_main(capfd, home, "doctor", cwd=cwd, **{"HOME": str(user), **env})
        lines: dict[str, str] = {}
        for line in result.stdout.splitlines():
            name, _, detail = line[7:].partition(": ")
            lines[name] = f"{line[:6]} {detail}"
        return lines

    return run


def test_doctor_says_why_the_sandbox_is_off_and_what_strict_mode_means(
    home: Path, tmp_path: Path, doctor
) -> None:
    found = doctor(
        home,
        tmp_path,
        {"sandbox": "off", "network_allow": ["git.example.com"], "deny_read": ["~/secrets"]},
    )
    assert found["approval mode"].startswith("[ok  ] strict (terminal.mode: auto, and there is")
    assert "only commands proven read-only run without asking" in found["approval mode"]
    assert found["terminal sandbox"].startswith("[warn] off (terminal.sandbox: off)")
    assert "(not applied: the sandbox is off)" in found["sandbox writable"]
    unreadable = found["sandbox unreadable"]
    assert "~/.ssh, ~/.aws" in unreadable and "(here: ~/.ssh)" in unreadable
    assert "other hermes homes (~/.hermes, the platform default, $HERMES_HOME)" in unreadable
    assert (
        "in a hermes home holding the work (else only its skills are in sight) .env, sessions.db"
        in unreadable
    )
    assert "terminal.deny_read: ~/secrets" in unreadable
    assert ".git/hooks, .git/config" in found["sandbox read-only"]
    assert f"the hermes home {home}" in found["sandbox read-only"]
    network = found["sandbox network"]
    assert network.startswith("[ok  ] allowlist") or "socat" in network
    if network.startswith("[ok  ] allowlist"):
        assert "pypi.org" in network and "git.example.com" in network
    sockets = found["sandbox sockets"]  # A4-15: what happens to a socket under ~
    assert "none of the host's reachable" in sockets and "/run/user/<uid>" in sockets


def test_an_explicit_mode_and_network_off_are_named(home: Path, tmp_path: Path, doctor) -> None:
    found = doctor(home, tmp_path, {"sandbox": "off", "mode": "yolo", "network": "off"})
    assert found["approval mode"].startswith("[warn] yolo (terminal.mode: yolo)")
    assert "off: no network at all (terminal.network: off)" in found["sandbox network"]


def test_doctor_warns_when_commands_could_rewrite_its_own_code(
    home: Path, tmp_path: Path, doctor
) -> None:
    """hermes-tui's code or its venv inside the working directory (or a writable root) is
    writable by the commands it sandboxes: what they change runs unsandboxed next time."""
    outside = tmp_path / "project"
    outside.mkdir()
    assert "own code" not in doctor(home, tmp_path, {"sandbox": "off"}, cwd=outside)

    venv = Path(sys.prefix).resolve()
    found = doctor(home, tmp_path, {"sandbox": "off", "writable_roots": [str(venv)]}, cwd=outside)
    # A regular install puts the code inside the environment too (CI installs so); an editable
    # one leaves it in the checkout: the environment is named either way.
    assert found["own code"].startswith("[warn] ")
    assert f"its Python environment ({venv})" in found["own code"]
    assert "unsandboxed at the next start" in found["own code"]
    package = Path(hermes_tui.__file__).resolve().parent
    code_named = f"hermes-tui's code ({package})" in found["own code"]
    assert code_named == package.is_relative_to(venv)

    found = doctor(home, tmp_path, {"sandbox": "off"}, cwd=package.parent)
    assert f"hermes-tui's code ({package})" in found["own code"]


def test_doctor_warns_when_an_external_skills_folder_is_where_commands_write(
    home: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Started in a team's skills repository listed in skills.external_dirs: commands write
    it (one inside the working directory is read-only to them, and not named)."""
    team = tmp_path / "team-skills"
    (team / "inner").mkdir(parents=True)
    for listed, expected in ((team, True), (team / "inner", False)):
        config = {"terminal": {"sandbox": "off"}, "skills": {"external_dirs": [str(listed)]}}
        (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        user = tmp_path / "user"
        (user / ".ssh").mkdir(parents=True, exist_ok=True)
        lines = run_main(capfd, home, "doctor", cwd=team, HOME=str(user)).stdout
        found = [line for line in lines.splitlines() if "skills folders" in line]
        assert bool(found) == expected, lines
        if expected:
            assert found[0].startswith("[warn]") and str(team) in found[0]


def test_doctor_names_path_folders_commands_may_write(home: Path, tmp_path: Path, doctor) -> None:
    """A project's activated venv puts `<workspace>/.venv/bin` first on PATH: hermes-tui runs
    its own programs from the other folders, and says so."""
    import os

    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    path = f"{project}/.venv/bin{os.pathsep}{os.environ['PATH']}"
    found = doctor(home, tmp_path, {"sandbox": "off"}, cwd=project, PATH=path)
    assert found["PATH"].startswith("[warn] PATH holds folders in places commands may write")
    assert "sandboxed commands find such a folder read-only" in found["PATH"]
    assert f"{project}/.venv/bin;" in found["PATH"] and "git: /" in found["PATH"]
    assert "PATH" not in doctor(home, tmp_path, {"sandbox": "off"}, cwd=tmp_path / "user")


def test_doctor_warns_about_a_library_path_that_leads_into_the_project(
    home: Path, tmp_path: Path, doctor
) -> None:
    """attack8's A8-4: `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/x` while it was unset leaves
    an empty entry, the folder every program starts in."""
    project = tmp_path / "project"
    project.mkdir()
    found = doctor(home, tmp_path, {"sandbox": "off"}, cwd=project, LD_LIBRARY_PATH=":/opt/x")
    assert found["search paths"].startswith("[warn] LD_LIBRARY_PATH=(empty)"), found
    plain = doctor(home, tmp_path, {"sandbox": "off"}, cwd=project, LD_LIBRARY_PATH="/opt/x")
    assert "search paths" not in plain


@pytest.mark.skipif(not probe("auto").active, reason="no bubblewrap sandbox here")
def test_with_bubblewrap_doctor_shows_the_sandbox_active_and_its_profile(
    home: Path, tmp_path: Path, doctor
) -> None:
    terminal = {"writable_roots": [str(tmp_path / "build")], "allow_read": ["~/notes"]}
    found = doctor(home, tmp_path, terminal)
    assert found["approval mode"].startswith("[ok  ] sandboxed (terminal.mode: auto, and the")
    assert "empty (a read-only tmpfs) but for" in found["sandbox home"]
    assert "terminal.allow_read: ~/notes;" in found["sandbox home"]
    assert found["terminal sandbox"].startswith("[ok  ] active: bubblewrap")
    writable = found["sandbox writable"]
    assert "the working directory" in writable and str(tmp_path / "build") in writable
    assert "a private /tmp and /var/tmp" in writable and "not applied" not in writable
    assert "sandbox place" not in found


@pytest.mark.skipif(not probe("auto").active, reason="no bubblewrap sandbox here")
@pytest.mark.parametrize("in_tmp", [True, False], ids=["started-in-tmp", "tmp-as-writable-root"])
def test_doctor_fails_a_place_no_command_may_run_in(
    home: Path, tmp_path: Path, doctor, in_tmp: bool
) -> None:
    """/tmp itself is never made writable (the user's sockets lie there): doctor says every
    command will be refused, and where to go instead."""
    terminal = {} if in_tmp else {"writable_roots": ["/tmp"]}
    found = doctor(home, tmp_path, terminal, cwd=Path("/tmp") if in_tmp else tmp_path)
    assert found["sandbox place"].startswith("[FAIL] /tmp is never made writable"), found
    assert "every command is refused here" in found["sandbox place"]
    assert ("terminal.writable_roots" in found["sandbox place"]) != in_tmp


def test_doctor_names_the_users_own_files_in_the_working_directory(
    home: Path, tmp_path: Path, doctor
) -> None:
    """A9-20: the hermes home's config.yaml kept in the checkout worked in (a link), and a
    dotfile link into it: doctor names both as held read-only."""
    work = tmp_path / "dots"
    work.mkdir()
    (work / "gitconfig").write_text("[user]\n\tname = Dev\n")
    (work / "hermes.yaml").write_text(yaml.safe_dump({"terminal": {"sandbox": "off"}}))
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / ".gitconfig").symlink_to(work / "gitconfig")
    found = doctor(home, tmp_path, {"sandbox": "off"}, cwd=work)
    assert "here: none" not in found["sandbox read-only"]
    assert str(work / "gitconfig") in found["sandbox read-only"]
    assert (
        "here: none"
        in doctor(home, tmp_path, {"sandbox": "off"}, cwd=tmp_path / "user")["sandbox read-only"]
    )
