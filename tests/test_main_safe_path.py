"""`python -m hermes_tui` does not import modules from the working directory (A3-15): a
`yaml/` or `rich/` a sandboxed command planted in the project is never run by the app itself.
Judged by outcome: the marker the planted module would write does not appear."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import cli_env

import hermes_tui

PLANTED = ("yaml", "rich", "textual", "difflib", "sqlite3", "argparse", "json")


def plant(folder: Path, marker: Path) -> None:
    for name in PLANTED:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n"
        )


def run(cwd: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=100,
        env=cli_env(**env),
    )


@pytest.mark.parametrize("args", [("--version",), ("sessions", "list")])
def test_a_module_planted_in_the_working_directory_is_not_imported(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    work, home = tmp_path / "project", tmp_path / "home"
    work.mkdir()
    marker = tmp_path / "PLANTED_RAN"
    plant(work, marker)
    result = run(work, home, *args)
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 0, result.stderr


def test_a_checkout_run_from_its_root_still_starts_and_ignores_a_planted_module(
    tmp_path: Path,
) -> None:
    """The development case: the folder holding `hermes_tui/` is the working directory and
    nothing else puts it on the path; the package loads from there, a planted `yaml/` does not."""
    checkout, home = tmp_path / "checkout", tmp_path / "home"
    checkout.mkdir()
    (checkout / "hermes_tui").symlink_to(Path(hermes_tui.__file__).parent)
    marker = tmp_path / "PLANTED_RAN"
    plant(checkout, marker)
    env = {"PYTHONPATH": "", "PYTHONSAFEPATH": ""}
    result = run(checkout, home, "sessions", "list", **env)
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 0, result.stderr
    where = subprocess.run(
        [sys.executable, "-c", "import hermes_tui; print(hermes_tui.__file__)"],
        capture_output=True,
        text=True,
        cwd=checkout,
        env=cli_env(**env),
    )
    assert where.stdout.startswith(str(checkout)), "the checkout's own package is the one run"
    assert os.path.islink(checkout / "hermes_tui")
