"""What hermes-tui tells the user once at start about their own environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_main


def test_chat_warns_once_when_a_library_path_leads_into_the_working_directory(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """attack8's A8-4: an empty LD_LIBRARY_PATH entry is the folder a program starts in."""
    project = tmp_path / "project"
    project.mkdir()
    argv = ("chat", "-q", "hello", "--provider", "demo")

    exposed = run_main(capsys, home, *argv, cwd=project, LD_LIBRARY_PATH=":/opt/cuda/lib64")
    plain = run_main(capsys, home, *argv, cwd=project, LD_LIBRARY_PATH="/opt/cuda/lib64")

    assert exposed.returncode == 0 and exposed.stderr.count("LD_LIBRARY_PATH=(empty)") == 1
    assert "LD_LIBRARY_PATH" not in plain.stderr, plain.stderr
