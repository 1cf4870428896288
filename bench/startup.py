"""Start-up cost of `hermes-tui --version` against a bare `python -c pass`.

Prints the median wall time of each over N runs and their ratio; the ratio is the figure to
watch, since absolute times on a shared machine are noisy. Run: `.venv/bin/python bench/startup.py`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = 15


def median_seconds(argv: list[str]) -> float:
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    baseline = median_seconds([sys.executable, "-c", "pass"])
    version = median_seconds([sys.executable, "-m", "hermes_tui", "--version"])
    memory = median_seconds([sys.executable, "-m", "hermes_tui", "memory", "show", "--json"])
    print(f"python -c pass          median {baseline * 1000:7.1f} ms")
    print(
        f"hermes-tui --version    median {version * 1000:7.1f} ms   ratio {version / baseline:5.2f}x"
    )
    print(
        f"hermes-tui memory show  median {memory * 1000:7.1f} ms   ratio {memory / baseline:5.2f}x"
    )


if __name__ == "__main__":
    main()
