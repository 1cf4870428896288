"""attack9's A9-5: hermes-tui run from a virtual environment inside the project it works on
(README's install in its checkout, a project's dev dependency): a `.pth` a sandboxed command
left in that venv's site-packages ran at every later start of hermes-tui, anywhere, outside the
sandbox. The app's own prefix, site-packages and package folder are read-only to commands, and
in a folder of its import path that stays writable (an editable install's checkout root) what
a command leaves under a module's name is moved aside. Judged by the app's next start, the
commands run as the unprivileged user by the app running from that venv."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_user import as_user, own, place, terminal
from sandbox_world import REPO, SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture
sandboxed = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])


@sandboxed
def test_a_command_cannot_plant_code_in_the_apps_own_environment(place: Path) -> None:
    work = place / "ws"
    work.mkdir()
    venv = work / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (packages,) = (venv / "lib").glob("python3*/site-packages")
    # The app's packages, and the project's root on the import path (an editable install).
    lines = [*site.getsitepackages(), str(REPO), str(work)]
    (packages / "_deps.pth").write_text("\n".join(lines) + "\n")
    own(place)
    marker = place / "PWNED"
    code = f"open({str(marker)!r}, 'w').write('ran')"
    relative = packages.relative_to(work)
    env = {"PATH": SYSTEM_PATH, "HOME": str(place)}

    results = terminal(
        work,
        env,
        f'printf "import os; {code}\\n" > {relative}/zz_cache.pth',
        f'printf "{code}\\n" > sitecustomize.py; printf "{code}\\n" > yaml.py; echo ok',
        "echo 'x = 1' > app.py && echo ok",
        python=str(venv / "bin" / "python"),
    )

    assert "Read-only file system" in results[0]["output"], results[0]
    assert "sitecustomize.py" in results[1]["error"] and "yaml.py" in results[1]["error"]
    assert "ok" in results[2]["output"] and (work / "app.py").exists()
    started = as_user([str(venv / "bin" / "python"), "-m", "hermes_tui", "--version"], env, place)
    assert started.returncode == 0 and "hermes-tui" in started.stdout, started.stderr
    assert not marker.exists()


def test_the_files_tools_ask_before_writing_the_apps_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_tui.core.tools import own_code
    from hermes_tui.core.tools.approvals import Approvals
    from hermes_tui.core.tools.files import make_file_tools
    from hermes_tui.core.tools.registry import ToolContext, ToolRegistry

    work = tmp_path / "ws"
    (work / ".venv" / "lib").mkdir(parents=True)
    # As when the app runs from the project's venv, with the project's root on its import path.
    monkeypatch.setattr(own_code, "locked_paths", lambda: (work / ".venv",))
    monkeypatch.setattr(own_code, "import_folders", lambda: (str(work),))
    asked: list[str] = []
    registry = ToolRegistry(make_file_tools(hermes_home=tmp_path / "hermes"))
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(lambda r: asked.append(r.reason) or "deny")
    )

    pth = registry.call("write_file", {"path": ".venv/lib/zz.pth", "content": "x"}, context)
    custom = registry.call("write_file", {"path": "sitecustomize.py", "content": "x"}, context)
    ordinary = registry.call("write_file", {"path": "app.py", "content": "x = 1\n"}, context)

    assert pth.get("denied") and custom.get("denied") and ordinary["success"]
    assert "hermes-tui's own code" in asked[0] and "hermes-tui's import path" in asked[1]
    assert len(asked) == 2 and not (work / ".venv" / "lib" / "zz.pth").exists()
