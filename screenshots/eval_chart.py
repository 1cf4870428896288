"""Render the README's eval chart from the current code: the bundled suite, both arms, N = 3,
with the offline scripted model (`hermes-tui eval --provider demo`); SVG, and PNG where
rsvg-convert exists. Run: `.venv/bin/python screenshots/eval_chart.py`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="hermes-eval-chart-") as scratch:
        subprocess.run(
            [sys.executable, "-m", "hermes_tui", "--home", scratch, "eval", "--provider", "demo"]
            + ["--repeat", "3", "--out", f"{scratch}/out"],
            check=True,
            capture_output=True,
        )
        shutil.copy(Path(scratch) / "out" / "report.svg", OUT / "eval-chart.svg")
    if shutil.which("rsvg-convert"):
        subprocess.run(
            ["rsvg-convert", str(OUT / "eval-chart.svg"), "-o", str(OUT / "eval-chart.png")],
            check=True,
        )
    print(OUT / "eval-chart.svg")


if __name__ == "__main__":
    main()
