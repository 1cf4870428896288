"""Sources: the SUBDIR is resolved on disk against the real root of what was fetched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import write_skill

from hermes_tui.core.skills.install import InstallError, fetch, parse_source


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder of skills outside every source (the user's own, say)."""
    write_skill(tmp_path / "outside", "private-notes")
    return tmp_path / "outside"


def test_a_subdir_that_is_a_symlink_out_of_a_folder_source_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    source = tmp_path / "src"
    write_skill(source / "real", "lint-fix")
    os.symlink(outside, source / "skills")
    with (
        pytest.raises(InstallError, match="leads outside the source"),
        fetch(parse_source(f"{source}#:skills")),
    ):
        pass


def test_a_subdir_that_is_a_symlink_out_of_a_git_clone_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    repo = tmp_path / "repo"
    write_skill(repo / "real", "lint-fix")
    os.symlink(outside, repo / "skills")
    os.symlink("../../outside", repo / "real" / "up")  # relative, through a folder on the way
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "skills")
    for subdir in ("skills", "real/up"):
        with (
            pytest.raises(InstallError, match="leads outside the source"),
            fetch(parse_source(f"{repo.as_uri()}#:{subdir}")),
        ):
            pass


def test_a_subdir_symlinked_inside_the_source_is_followed(tmp_path: Path) -> None:
    source = tmp_path / "src"
    write_skill(source / "real", "lint-fix")
    os.symlink(source / "real", source / "skills")
    with fetch(parse_source(f"{source}#:skills")) as fetched:
        assert fetched.root == (source / "real").resolve()


def test_a_subdir_written_with_dot_dot_is_refused_as_text() -> None:
    with pytest.raises(InstallError, match="relative path inside the source"):
        parse_source("https://example.com/repo.git#main:../etc")
