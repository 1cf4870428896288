"""What the loaders' search paths (core/tools/load_paths.py, attack8's A8-4) add to each
sandboxed command: the look before it and the sweep after it, with the user's
`LD_LIBRARY_PATH=:/usr/local/cuda/lib64`, `PYTHONPATH=<x>:`, `PERL5LIB=lib` and
`NODE_PATH=.`, against the per-command work the sweep did already (the protected paths'
identities and PATH's shadows with `.` on PATH), in the same run on the same folders.

Folders (made in a temporary folder): a project of 200 top-level entries, and one of 5,000.
Prints milliseconds (median of 20) for the existing sweep's look and for the load paths' look
(before + after, names already listed), the ratio of the second to the first, and the one-time
listing of the system's names (first command only). Run:
`PYTHONPATH=. .venv/bin/python bench/load_paths.py`.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from timing import median_ms

from hermes_tui.core.tools import load_paths, run_later, sweep
from hermes_tui.core.tools.sandbox_probe import search_path_entries


def project(root: Path, entries: int) -> Path:
    for i in range(entries // 2):
        (root / f"mod{i}.py").touch()
        (root / f"dir{i}").mkdir()
    (root / "lib").mkdir()
    return root


def measure(label: str, entries: int) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        work = project(Path(temporary), entries)
        path = search_path_entries(".:/usr/local/bin:/usr/bin:/bin")
        environ = {
            "LD_LIBRARY_PATH": ":/usr/local/cuda/lib64",
            "PYTHONPATH": "/opt/x:",
            "PERL5LIB": "lib",
            "NODE_PATH": ".",
        }
        written = load_paths.entries(environ)
        quarantine = Path(temporary) / "quarantine"

        def existing() -> None:
            shadowing = run_later.shadowing_folders(path, [work], [], work)
            sweep.identities(sweep.swept_paths(work))
            sweep.shadow_programs(shadowing)

        def loads() -> None:
            found = load_paths.folders(written, [work], work)
            before = load_paths.loadable(found)
            load_paths.sweep(found, before, quarantine)

        start = time.perf_counter()
        loads()  # the first command lists the system's names
        first = (time.perf_counter() - start) * 1000
        old, new = median_ms(existing, 20), median_ms(loads, 20)
        print(
            f"{label}: existing sweep look {old:.2f} ms, load paths' look {new:.2f} ms "
            f"(ratio {new / old:.2f}); first command, names listed: {first:.1f} ms"
        )


if __name__ == "__main__":
    measure("200 entries", 200)
    measure("5,000 entries", 5_000)
