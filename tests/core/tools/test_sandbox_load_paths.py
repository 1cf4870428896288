"""attack8's A8-4: with an empty (the current folder), `.` or relative entry in the user's
LD_LIBRARY_PATH or PYTHONPATH (`export PYTHONPATH=$PYTHONPATH:/x` while it was unset), a
sandboxed command's `libselinux.so.1` ran in the user's next `ls` in the project, and its
`json.py` in any Python tool there. What a command leaves under a system library's or module's
name in such a folder is moved aside after it, and said. Judged by what the user's own programs
do afterwards, the command run as the unprivileged user."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from sandbox_user import as_user, own, place, terminal
from sandbox_world import REPO, SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture
sandboxed = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
LIBRARY = (
    "#include <fcntl.h>\n#include <unistd.h>\n"
    "__attribute__((constructor)) static void c(void) "
    '{ close(open("%s", O_CREAT | O_WRONLY, 0600)); }\n'
)


@sandboxed
def test_what_a_command_leaves_on_the_loaders_paths_is_not_loaded_by_the_users_programs(
    place: Path,
) -> None:
    work = place / "ws"
    (work / "json").mkdir(parents=True)  # the user's folder: no `__init__`, nothing to import
    (work / "json" / "notes.txt").write_text("mine\n")
    (work / "src").mkdir()
    own(place)
    marker = place / "PWNED"
    env = {
        # A project's src/ first (its .envrc's `export PYTHONPATH=$PWD/src`), then the app's
        # code, then the empty entry: the folder a program starts in.
        "PYTHONPATH": f"{work}/src:{work}/lib:{REPO}:",
        "LD_LIBRARY_PATH": ":/nonexistent/cuda/lib64",
        "PATH": SYSTEM_PATH,
        "HOME": str(place),
    }
    module = f"open({str(marker)!r}, 'w').write('ran')\\n"
    compile_library = ""
    if shutil.which("gcc"):
        source = LIBRARY.replace("%s", str(marker)).replace('"', '\\"').replace("\n", "\\n")
        # (mkdir first: the command's own programs load the library once it is there)
        build = "gcc -shared -fPIC /tmp/a.c -o "
        compile_library = (
            f'mkdir -p glibc-hwcaps/x86-64-v2 tls && printf "{source}" > /tmp/a.c && '
            f"{build}libselinux.so.1 && {build}glibc-hwcaps/x86-64-v2/libselinux.so.1 && "
            f"{build}tls/libselinux.so.1 && "
        )

    results = terminal(
        work,
        env,
        compile_library + f"printf '{module}' > json.py && printf '{module}' > sitecustomize.py",
        f"printf '{module}' > json/__init__.py && printf '{module}' > src/app.py && echo ok",
        f"mkdir src/hermes_tui && printf '{module}' > src/hermes_tui/__init__.py && "
        f"printf '{module}' > src/yaml.py",
        # Left unlistable (a loader opens a name with search permission alone): A9-10's trick.
        f"mkdir lib && printf '{module}' > lib/sitecustomize.py && chmod 311 lib src",
    )

    assert not results[0]["success"] and "json.py" in results[0]["error"], results[0]
    assert "moved aside" in results[0]["error"]
    assert "ok" in results[1]["output"] and "json/__init__.py" in results[1]["error"]
    listed = as_user(["ls"], env, work)
    imported = as_user(["python3", "-c", "import json; print(json.dumps(1))"], env, work)
    assert listed.returncode == 0 and imported.stdout.strip() == "1", imported.stderr
    assert "src/hermes_tui" in results[2]["error"] and "src/yaml.py" in results[2]["error"]
    assert "lib/sitecustomize.py" in results[3]["error"], results[3]
    app = as_user([sys.executable, "-m", "hermes_tui", "--version"], env, work)
    assert app.returncode == 0 and "hermes-tui" in app.stdout, app.stderr
    assert not marker.exists()
    # The user's own folder stays, and so does the project's code.
    assert (work / "json" / "notes.txt").read_text() == "mine\n"
    assert (work / "src" / "app.py").exists() and (work / "tls").is_dir()
    if compile_library:
        assert not (work / "glibc-hwcaps" / "x86-64-v2" / "libselinux.so.1").exists()
        assert not (work / "tls" / "libselinux.so.1").exists()
