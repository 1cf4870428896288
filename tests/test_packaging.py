"""The wheel carries the top-level themes/, skills_bundled/ and evals/ into the package (DESIGN.md section 2)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import REPO


def test_wheel_installed_in_a_fresh_venv_finds_themes_and_bundled_skills(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("hermes_tui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped_skills = {Path(n).parent.name for n in names if n.endswith("/SKILL.md")}
    repo_skills = {p.parent.name for p in (REPO / "skills_bundled").rglob("SKILL.md")}
    assert shipped_skills == repo_skills
    assert {f"hermes_tui/themes/{p.name}" for p in (REPO / "themes").glob("*.yaml")} <= set(names)
    assert "hermes_tui/schemas/stream-json.schema.json" in names  # chat -q --stream-json's
    repo_evals = {
        f"hermes_tui/{p.relative_to(REPO)}" for p in (REPO / "evals").rglob("*") if p.is_file()
    }
    assert repo_evals and repo_evals <= set(names)  # fixtures, checkers and solutions alike

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(  # this venv's pip installs into the fresh one (no ensurepip needed)
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + [str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = (
        "from hermes_tui.resources import bundled_evals_dir, bundled_skills_dir, themes_dir;"
        "print(themes_dir()); print(bundled_skills_dir());"
        "print(len(list(themes_dir().glob('*.yaml'))), len(list(bundled_skills_dir().rglob('SKILL.md'))));"
        "print(bundled_evals_dir())"
    )
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [python, "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path, env=clean
    ).stdout.split("\n")
    assert str(venv) in out[0] and str(venv) in out[1]  # the installed copy, not the checkout
    themes, skills = map(int, out[2].split())
    assert themes == len(list((REPO / "themes").glob("*.yaml")))
    assert skills == len(repo_skills)
    assert str(venv) in out[3]
