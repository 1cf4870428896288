"""/init reads the AGENTS.md already there as the prompt reads a context file, and keeps it by
moving it aside: a link a command made to a credentials file outside the project sent the file
to the provider and copied it into the workspace as AGENTS.md.bak (attack9's A9-4)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from helpers import open_runtime

from hermes_tui.core.agents_init import BEGIN, END, init_prompt, write_agents_md

SECRET = "aws_secret_access_key=AWSSECRETa9a9Zq7Kx0Lm"
ANSWER = f"Done.\n{BEGIN}\n# AGENTS.md\n\nRun `pytest -q`.\n{END}\n"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "dot-aws"
    outside.mkdir()
    credentials = outside / "credentials"
    credentials.write_text(f"[default]\n{SECRET}\n")
    return project, credentials


def _texts_under(folder: Path) -> str:
    """Every regular file's text below `folder`, links not followed."""
    return "\n".join(
        path.read_text(errors="replace")
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    )


def test_a_link_out_of_the_project_is_neither_read_nor_copied(home: Path, tmp_path: Path) -> None:
    project, credentials = _project(tmp_path)
    (project / "AGENTS.md").symlink_to(credentials)
    prompt = init_prompt(project)
    assert SECRET not in prompt
    assert f"a link to {credentials}, outside the project: not read" in prompt
    runtime = open_runtime(home, "http://127.0.0.1:9/v1")
    try:
        written = write_agents_md(project, ANSWER, runtime.scanner)
    finally:
        runtime.close()
    assert written.read_text() == "# AGENTS.md\n\nRun `pytest -q`.\n"
    assert SECRET not in _texts_under(project)
    backup = project / "AGENTS.md.bak"
    assert backup.is_symlink() and os.readlink(backup) == str(credentials)  # kept, unread
    assert credentials.read_text() == f"[default]\n{SECRET}\n"


def test_a_fifo_is_not_read_and_a_link_inside_the_project_is(home: Path, tmp_path: Path) -> None:
    project, _ = _project(tmp_path)
    os.mkfifo(project / "AGENTS.md")  # opening it for reading would block /init for ever
    assert "not a regular file: not read" in init_prompt(project)
    (project / "AGENTS.md").unlink()
    (project / "docs").mkdir()
    (project / "docs" / "agents.md").write_text("Use tabs.\n")
    (project / "AGENTS.md").symlink_to("docs/agents.md")
    assert f"{BEGIN}\nUse tabs.\n\n{END}" in init_prompt(project)


def test_the_new_file_keeps_the_old_ones_mode_or_is_readable_by_all(
    home: Path, tmp_path: Path
) -> None:
    project, _ = _project(tmp_path)
    runtime = open_runtime(home, "http://127.0.0.1:9/v1")
    try:
        fresh = write_agents_md(project, ANSWER, runtime.scanner)
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        fresh.chmod(0o664)
        again = write_agents_md(project, ANSWER.replace("pytest -q", "make test"), runtime.scanner)
    finally:
        runtime.close()
    assert stat.S_IMODE(again.stat().st_mode) == 0o664
    assert (project / "AGENTS.md.bak").read_text() == "# AGENTS.md\n\nRun `pytest -q`.\n"
