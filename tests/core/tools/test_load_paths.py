"""load_paths: which entries of the loaders' search paths lead into a writable place, what a
command must not leave there, the sweep's outcome on disk, the files tools' question and the
warning at start (attack8's A8-4)."""

from __future__ import annotations

import os
from pathlib import Path

from hermes_tui.core.tools import load_paths
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry


def test_an_empty_dot_or_relative_entry_is_the_working_directory_and_others_are_left_out(
    tmp_path: Path,
) -> None:
    work, outside = tmp_path / "ws", tmp_path / "cuda"
    (work / "lib").mkdir(parents=True)
    outside.mkdir()
    (outside / "libcudart.so.12").write_text("")
    written = load_paths.entries(
        {
            "LD_LIBRARY_PATH": f":{outside}:$ORIGIN/../lib",  # (the program's own place)
            "PYTHONPATH": ".",
            "PERL5LIB": "lib",
            "RUBYOPT": "-W0 -I lib",
            "CLASSPATH": ".",
            "NODE_PATH": str(outside),
        }
    )

    found = {(f.variable, f.folder) for f in load_paths.folders(written, [work], work)}
    by_variable = {f.variable: f for f in load_paths.folders(written, [work], work)}

    assert found == {
        ("LD_LIBRARY_PATH", work),
        ("PYTHONPATH", work),
        ("PERL5LIB", work / "lib"),
        ("RUBYOPT", work / "lib"),
    }  # CLASSPATH is warned about only; NODE_PATH's entry lies outside
    # A later entry's libraries count, and so do the system's and the standard library's.
    assert {"libcudart.so.12", "libc.so.6"} <= by_variable["LD_LIBRARY_PATH"].names
    assert {"json", "os", "sitecustomize", "yaml", "hermes_tui"} <= by_variable["PYTHONPATH"].names
    assert "tests" not in by_variable["PYTHONPATH"].names


def test_the_sweep_moves_aside_what_a_command_left_and_keeps_the_users_own(
    tmp_path: Path,
) -> None:
    work, quarantine = tmp_path / "ws", tmp_path / "aside"
    (work / "json").mkdir(parents=True)  # the user's, without __init__
    (work / "types.py").write_text("# the user's own shadow, there before\n")
    (work / "http").mkdir()  # the project's own package of that name, there before
    (work / "http" / "__init__.py").write_text("# mine\n")
    (work / "email").mkdir()  # a command's folder without __init__: nothing to import
    written = load_paths.entries({"PYTHONPATH": ":", "LD_LIBRARY_PATH": "."})
    found = load_paths.folders(written, [work], work)
    before = load_paths.loadable(found)

    (work / "json.py").write_text("planted")
    (work / "json" / "__init__.py").write_text("planted")
    (work / "os").mkdir()
    (work / "os" / "__init__.py").write_text("planted")
    (work / "email" / "message.py").write_text("")
    (work / "libc.so.6").write_text("planted")
    (work / "app.py").write_text("project code")
    os.replace(_written(tmp_path / "t", "# edited\n"), work / "types.py")  # `sed -i`, a checkout
    os.replace(_written(tmp_path / "i", "# edited\n"), work / "http" / "__init__.py")
    moved = load_paths.sweep(found, before, quarantine)

    assert {old for old, _ in moved} == {
        work / "json.py",
        work / "json" / "__init__.py",
        work / "os",
        work / "libc.so.6",
    }
    assert (work / "json").is_dir() and (work / "types.py").exists() and (work / "app.py").exists()
    assert (work / "http" / "__init__.py").read_text() == "# edited\n"
    assert (work / "email" / "message.py").exists()
    assert (quarantine / "json.py").read_text() == "planted"


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_the_files_tools_ask_before_writing_a_module_name_on_pythonpath(
    tmp_path: Path, monkeypatch
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    monkeypatch.setenv("PYTHONPATH", "/opt/tools:")
    asked: list[str] = []
    registry = ToolRegistry(make_file_tools(hermes_home=tmp_path / "hermes"))
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(lambda r: asked.append(r.reason) or "deny")
    )

    refused = registry.call("write_file", {"path": "json.py", "content": "x"}, context)
    package = registry.call("write_file", {"path": "os/__init__.py", "content": "x"}, context)
    ordinary = registry.call("write_file", {"path": "app.py", "content": "x = 1\n"}, context)

    assert refused.get("denied") and package.get("denied") and "PYTHONPATH" in asked[0]
    assert ordinary["success"] and len(asked) == 2
    assert not (work / "json.py").exists()


def test_the_warning_names_each_exposed_entry_and_is_empty_without_one(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    exposed = load_paths.entries({"LD_LIBRARY_PATH": ":/usr/local/cuda/lib64", "CLASSPATH": "."})
    safe = load_paths.entries({"PYTHONPATH": "/opt/lib", "LD_LIBRARY_PATH": "/usr/lib/x"})

    said = load_paths.warning(exposed, [work], work)

    assert "LD_LIBRARY_PATH=(empty)" in said and "CLASSPATH=." in said
    assert "outside the sandbox" in said
    assert load_paths.warning(safe, [work], work) == ""
