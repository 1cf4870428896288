"""What reading what hooks, hook runners and an `.envrc` run by path (runs_named.py) adds to the
run-later list each command builds (run_later.protected: the sandbox's read-only list, the files
tools' questions; the terminal tool builds it again for its sweep).

Times (CPU time, interleaved), in the same run on the same tree, the list without that reading (the fixed names and the
repositories' git folders) and with it, and prints the ratio. The tree: a repository with a hook
linked into it, a hook running a script, an `.envrc` sourcing two files and `use flake`, a
pre-commit config, lefthook and mise configs naming scripts, and 2,000 ordinary files.
Run: `.venv/bin/python bench/runs_named.py`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from hermes_tui.core.tools import gitdirs, run_later

ROUNDS = 200


def _world(work: Path) -> None:
    files = {
        "tools/hooks/pre-commit": "#!/bin/sh\n./scripts/lint.sh\n",
        "scripts/lint.sh": "#!/bin/sh\nexit 0\n",
        "scripts/prepush.sh": "#!/bin/sh\nsh scripts/lint.sh\n",
        "scripts/dev-env.sh": "export A=1\n",
        ".envrc": "source_env_if_exists .envrc.local\nsource scripts/dev-env.sh\nuse flake\n",
        ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: "
        "./scripts/lint.sh\n",
        "lefthook.yml": "pre-push:\n  commands:\n    x:\n      run: sh scripts/prepush.sh\n",
        "mise.toml": '[env]\n_.source = "./scripts/dev-env.sh"\n',
    }
    files.update({f"src/m{i // 100}/f{i}.py": "x = 1\n" for i in range(2000)})
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    os.symlink("../../tools/hooks/pre-commit", work / ".git" / "hooks" / "pre-commit")
    (work / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\nexec ./scripts/prepush.sh\n")


def _medians(*calls) -> list[float]:  # noqa: ANN002
    """Each call's median CPU time (this process's: the machine is shared), interleaved."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(ROUNDS):
        for call, found in zip(calls, times, strict=True):
            start = time.process_time()
            call()
            found.append(time.process_time() - start)
    return [statistics.median(found) for found in times]


def _without(work: Path, repositories: list[gitdirs.GitDirs]) -> list[Path]:
    """The run-later list as it was before runs_named: fixed names and the git folders."""
    found = [work / name for name, _ in run_later.RUN_LATER_IN_WORKDIR]  # (no mise.<env>.toml)
    return found + [path for dirs in repositories for path in dirs.run_later()]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        _world(work)
        repositories = gitdirs.repositories(work)
        held = run_later.named(work, repositories)
        before, full = _medians(
            lambda: _without(work, repositories), lambda: run_later.protected(work, repositories)
        )
        print(
            f"held by path: {len(held)} ({', '.join(str(i.path.relative_to(work)) for i in held)})"
        )
        print(f"run-later list without the reading: {before * 1000:7.3f} ms")
        print(f"run-later list with it:             {full * 1000:7.3f} ms")
        print(f"ratio: {full / before:.1f}x ({(full - before) * 1000:.2f} ms more per list)")


if __name__ == "__main__":
    main()
