"""What a command creates that runs later outside the sandbox is moved aside after it, wherever
the workspace lies: attack4's A4-22 had the workspace on a tmpfs (/dev/shm, or /tmp on Fedora
and Arch) and the hermes home on disk, so the move into the home's quarantine failed (EXDEV) and
`.envrc` and a `hermes_tui/` package stayed, the first failure skipping the rest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.core.tools.sweep import MOVED_ASIDE, moved_to, sweep_created, swept_paths

SHM = Path("/dev/shm")


@pytest.fixture
def on_another_filesystem(tmp_path: Path) -> Iterator[Path]:
    if not SHM.is_dir() or os.stat(SHM).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second filesystem (/dev/shm) beside the temporary folder here")
    work = Path(tempfile.mkdtemp(prefix="hermes-sweep-", dir=SHM))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_what_a_command_made_is_moved_aside_on_another_filesystem_too(
    on_another_filesystem: Path, tmp_path: Path
) -> None:
    work = on_another_filesystem
    (work / "notes.txt").write_text("kept\n")
    swept = swept_paths(work)
    existed = {path for path in swept if os.path.lexists(path)}
    # What the command made: direnv's file, the project's slash commands, a package shadow.
    (work / ".envrc").write_text(f"touch {tmp_path}/PWN_envrc\n")
    (work / ".hermes" / "commands").mkdir(parents=True)
    (work / ".hermes" / "commands" / "x.md").write_text("run this\n")
    (work / "hermes_tui").mkdir()
    (work / "hermes_tui" / "__main__.py").write_text(f"open('{tmp_path}/PWN_main', 'w')\n")
    quarantine = tmp_path / "home" / "scratch" / "s1" / "moved-aside"  # the other filesystem

    moved = sweep_created([*swept, *swept_paths(work)], existed, quarantine)

    assert sorted(old.name for old, _ in moved) == [".envrc", ".hermes", "hermes_tui"]
    assert not (work / ".envrc").exists() and not (work / ".hermes").exists()
    assert not (work / "hermes_tui").exists()
    assert all(to.parent == work / MOVED_ASIDE for _, to in moved)  # kept, beside, inert
    assert (work / MOVED_ASIDE / "envrc").read_text().startswith("touch")
    assert (work / "notes.txt").read_text() == "kept\n"
    ran = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--version"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0 and not (tmp_path / "PWN_main").exists()
    assert moved_to(moved, quarantine) == f"moved aside to {work / MOVED_ASIDE}"


def test_a_path_that_cannot_be_moved_anywhere_is_removed_and_the_rest_still_moved(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".envrc").write_text("evil\n")
    (work / ".vscode").mkdir()
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the quarantine should be\n")
    (work / MOVED_ASIDE).write_text("a file where the folder beside should be\n")

    moved = sweep_created([work / ".envrc", work / ".vscode"], set(), blocked / "q")

    assert not (work / ".envrc").exists() and not (work / ".vscode").exists()
    assert [to for _, to in moved] == [Path(os.devnull), Path(os.devnull)]
    assert moved_to(moved, blocked) == "removed (could not be moved): .envrc, .vscode"
