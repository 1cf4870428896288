"""The look for instruction files below the working directory after a command (attack7's
A7-17): core/agent/folder_walk.py against the bounded walk it replaced (gitdirs.files_named,
20,000 entries at most), in the same run on the same trees.

Trees (made in a temporary folder): a project of 400 folders of 25 files each (10,000 entries),
and the same with one folder padded with 200,000 empty files. For each: the old walk, the new
walk's first look (nothing remembered), and its look after a command that added one
AGENTS.md deep in the tree (one folder changed). Prints milliseconds (median of 5) and the
ratio of each to the old walk. Run: `PYTHONPATH=. .venv/bin/python bench/folder_walk.py`.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from timing import median_ms

from hermes_tui.core.tools import folder_walk, gitdirs

NAMES = frozenset({"AGENTS.md", "CLAUDE.md", ".hermes.md", ".cursorrules", "rules"})
SKIPPED = gitdirs.SKIPPED | {".git"}


def project(root: Path, padding: int) -> Path:
    for a in range(20):
        for b in range(20):
            folder = root / f"pkg{a}" / f"mod{b}"
            folder.mkdir(parents=True)
            for i in range(25):
                (folder / f"f{i}.py").touch()
    if padding:
        pad = root / "pad"
        (pad / "zz").mkdir(parents=True)
        for i in range(padding):
            (pad / f"p{i}").touch()
    return root


def measure(label: str, padding: int) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        root = project(Path(temporary), padding)
        base = str(root)
        old = median_ms(lambda: gitdirs.files_named(root, NAMES, SKIPPED))

        def first() -> None:
            folder_walk._KNOWN.clear()
            folder_walk.files_named(base, NAMES, SKIPPED)

        cold = median_ms(first)
        folder_walk._KNOWN.clear()
        old_clock = folder_walk._clock
        folder_walk._clock = lambda: time.time() + 10  # listed long after the tree was made
        try:
            folder_walk.files_named(base, NAMES, SKIPPED)
            deep = root / "pkg7" / "mod3"

            def after_a_command() -> None:
                (deep / "AGENTS.md").touch()
                found, complete = folder_walk.files_named(base, NAMES, SKIPPED)
                assert complete and str(deep / "AGENTS.md") in found
                os.unlink(deep / "AGENTS.md")
                folder_walk.files_named(base, NAMES, SKIPPED)

            warm = median_ms(after_a_command) / 2  # two looks per run
        finally:
            folder_walk._clock = old_clock
        print(
            f"{label}: old bounded walk {old:.1f} ms | first look {cold:.1f} ms "
            f"({cold / old:.2f}x) | after a command {warm:.2f} ms ({warm / old:.3f}x)"
        )


if __name__ == "__main__":
    measure("project, 10,000 entries", 0)
    measure("project + 200,000 padding files", 200_000)
