"""`hermes-tui eval` on the bundled suite with the offline scripted model, both arms, N = 3.
Target: under 60 s on this machine (the issue's acceptance).

Timed: the whole command as a user runs it (`--provider demo`: the scripted model's eval mode,
every command really run in the sandbox, every checker too). Baseline beside it, in the same
run: one family, one repetition, one arm (one run's fixed cost: start-up, a home, a session, a
review-free turn), so the ratio says how the eval scales with its 36 runs.
Run: `.venv/bin/python bench/eval.py`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = 60.0


def timed(*args: str) -> float:
    with tempfile.TemporaryDirectory(prefix="hermes-bench-eval-") as scratch:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "hermes_tui", "--home", scratch, "eval", "--provider", "demo"]
            + ["--out", f"{scratch}/out", *args],
            check=True,
            capture_output=True,
            cwd=REPO,
        )
        return time.perf_counter() - started


def main() -> None:
    baseline = timed("--families", "env-var", "--repeat", "1", "--arms", "control")
    whole = timed("--repeat", "3")
    print(f"one run (baseline):                {baseline:6.2f} s")
    print(f"bundled suite, both arms, N = 3:   {whole:6.2f} s  (36 runs, 18 reviews)")
    print(f"ratio whole / baseline:            {whole / baseline:6.1f}×")
    print(f"target < {TARGET:.0f} s:                     {'met' if whole < TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
