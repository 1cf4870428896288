"""The external edit starts $EDITOR in a folder of its own: an editor that loads what lies in
its working directory (Helix's .helix/languages.toml, Vim's .exrc) finds nothing a sandboxed
command left in the project (attack7's A7-8 addendum). Judged by outcome: the project's
planted config never runs."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from hermes_tui.core.external_edit import edit_text, editor_words

# An editor that, like Helix or Vim with exrc, runs the config it finds in its working
# directory, then appends a line to the file it was given and notes where it ran.
EDITOR = """
import os, subprocess, sys
if os.path.exists(".editor-config.sh"):
    subprocess.run(["sh", ".editor-config.sh"])
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write("edited in " + os.getcwd() + "\\n")
"""


def test_the_editor_runs_in_a_private_folder_not_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    marker = tmp_path / "PWNED"
    (project / ".editor-config.sh").write_text(f"touch {marker}\n")  # a command's plant
    (tmp_path / "editor.py").write_text(EDITOR)
    monkeypatch.chdir(project)  # hermes-tui was started in the project
    seen: list[Path] = []

    def run(argv: list[str], **kwargs: object):
        folder = Path(str(kwargs["cwd"]))
        seen.append(folder)
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        import subprocess

        return subprocess.run(argv, **kwargs)  # type: ignore[call-overload]

    edited = edit_text([sys.executable, str(tmp_path / "editor.py")], "# note\n", run)

    assert not marker.exists()
    assert edited == f"# note\nedited in {seen[0]}\n" and seen[0] != project
    assert not seen[0].exists(), "the folder goes with the edit"


def test_the_editor_is_visual_then_editor_then_vi() -> None:
    assert editor_words({"VISUAL": "code -w", "EDITOR": "nano"}) == ["code", "-w"]
    assert editor_words({"EDITOR": "hx"}) == ["hx"]
    assert editor_words({"EDITOR": "  "}) == ["vi"] and editor_words({}) == ["vi"]
