"""Project-level rules: layering, lint, and the README's commands being the ones CI runs."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

import hermes_tui


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_textual() -> None:
    package = Path(hermes_tui.__file__).parent
    offenders = [
        str(path.relative_to(package))
        for path in (package / "core").rglob("*.py")
        if _imports(path) & {"textual", "rich"}
    ]
    assert offenders == []


def test_core_does_not_import_the_ui_package() -> None:
    package = Path(hermes_tui.__file__).parent
    for path in (package / "core").rglob("*.py"):
        assert "hermes_tui.ui" not in path.read_text(encoding="utf-8"), path


def _modules_imported(path: Path) -> set[str]:
    """Full dotted names of the modules a file imports, at any depth (lazy imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_import_linter_contracts_hold() -> None:
    """pyproject.toml's [tool.importlinter]: the core imports no UI, configuration loading,
    face or composition root, and its sibling packages import each other without cycles."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_session_store_and_messages_do_not_import_the_provider_layer() -> None:
    core = Path(hermes_tui.__file__).parent / "core"
    for path in (core / "sessions.py", core / "messages.py"):
        provider_imports = {
            m for m in _modules_imported(path) if m.startswith("hermes_tui.core.llm")
        }
        assert provider_imports == set(), path


def test_skills_index_and_library_do_not_import_each_other() -> None:
    skills = Path(hermes_tui.__file__).parent / "core" / "skills"
    assert "hermes_tui.core.skills.library" not in _modules_imported(skills / "index.py")
    # The library builds the index, so exactly one direction remains.
    assert "hermes_tui.core.skills.index" in _modules_imported(skills / "library.py")


def _readme_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:40])
    return re.findall(r"^```(?:sh|bash)\n(.+?)\n```", first_screen, flags=re.M | re.S)


def test_readme_first_screen_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert "hermes-tui" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_commands()[1] in ci


def test_ruff_check_and_format_are_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is a test dependency; install the [test] extra"
    for args in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run([ruff, *args], cwd=REPO, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_modules_stay_small_enough_to_read() -> None:
    """Issue 24: no module over 600 lines, ui/app.py under 400."""
    too_long = {}
    for path in sorted((REPO / "hermes_tui").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > 600:
            too_long[name] = lines
    assert too_long == {}
    app = (REPO / "hermes_tui" / "ui" / "app.py").read_text(encoding="utf-8").splitlines()
    assert len(app) < 400


def test_no_home_made_by_a_test_is_committed() -> None:
    """A test that once built its home path from a stringified argv left a hermes home (a
    sessions.db, curator logs) in the repository root, and it was committed with other work."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: nothing is tracked")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    homes = [
        path
        for path in tracked
        if re.search(r"(?:^|/)(?:sessions\.db[^/]*|\.curator_state|scan_verdicts\.json)$", path)
        and not path.startswith("tests/data/")
    ]
    assert homes == [], homes
