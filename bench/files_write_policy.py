"""What judging a files-tool write costs now that it asks about what runs later (run_later.py).

A write is judged with the workspace's repositories found (a bounded scan, up to 20,000
entries) and the folders above it looked at for a git directory; a read is judged without
either. Both are timed in the same run on the same tree, and the ratio printed: the write's
extra cost is one scan per write, paid once per write_file/patch call (never per read).
Run: `.venv/bin/python bench/files_write_policy.py [WORKSPACE]` (default: this checkout, about
25,000 files with its .venv, which the scan skips).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from hermes_tui.core.tools.path_policy import decide, gather, resolve_rules

ROUNDS = 30


def judged(work: Path, write: bool) -> float:
    """Seconds to judge one write of src/x.py in `work` (median of ROUNDS)."""
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        rules = resolve_rules(work, write=write)
        decide("write", gather("src/x.py", work, rules, write=write), rules)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    judged(work, True)  # warm the filesystem caches
    plain = judged(work, False)
    full = judged(work, True)
    print(f"workspace {work}")
    print(f"judged as before (no scan):      {plain * 1000:7.2f} ms")
    print(f"judged with what runs later:     {full * 1000:7.2f} ms")
    print(f"ratio: {full / plain:.1f}x ({(full - plain) * 1000:.1f} ms more per write)")


if __name__ == "__main__":
    main()
