"""Skill discovery and index cost for a large library.

Generates 1,000 skills in 40 categories in a temp dir, then prints: cold discovery + index
time, warm (unchanged) re-index time and their ratio (target: warm under 10 % of cold), and
the index size for 200 and 1,000 skills against the unbudgeted listing (target: within the
budget). Run: `.venv/bin/python bench/skills_index.py`.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from hermes_tui.core.skills.index import build_index
from hermes_tui.core.skills.library import SkillLibrary

BUDGET = 6000
WORDS = [
    "deploy",
    "build",
    "test",
    "lint",
    "release",
    "rollback",
    "migrate",
    "profile",
    "debug",
    "cache",
    "monitor",
]


def generate(root: Path, count: int) -> None:
    for i in range(count):
        category = f"category-{i % 40:02d}"
        name = f"{WORDS[i % len(WORDS)]}-{i:04d}"
        directory = root / category / name
        directory.mkdir(parents=True)
        body = "\n".join(f"{n}. Step {n} of the {name} playbook." for n in range(1, 30))
        (directory / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: How to {WORDS[i % len(WORDS)]} service {i} safely "
            f"and verify the result before telling the user.\nmetadata:\n  hermes:\n    tags: [a, b]\n"
            f"---\n\n# {name}\n\n{body}\n"
        )


def timed(library: SkillLibrary) -> tuple[float, str]:
    start = time.perf_counter()
    index = library.index(BUDGET)
    return time.perf_counter() - start, index


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        generate(root, 1000)
        colds, warms = [], []
        for _ in range(5):
            library = SkillLibrary(root)
            cold, index = timed(library)
            warm, again = timed(library)
            assert index == again
            colds.append(cold)
            warms.append(warm)
        cold, warm = statistics.median(colds), statistics.median(warms)
        print(f"cold discovery + index (1,000 skills)  {cold * 1000:8.1f} ms")
        print(
            f"warm re-index, nothing changed         {warm * 1000:8.1f} ms   ratio {warm / cold:.3f} (target < 0.10)"
        )
        for count in (200, 1000):
            skills = library.scan()[:count]
            full = build_index(skills, {}, 10**9)
            budgeted = build_index(skills, {}, BUDGET)
            print(
                f"index for {count:>5} skills: {len(budgeted):6,} chars (budget {BUDGET:,}); "
                f"unbudgeted {len(full):7,} chars; ratio {len(budgeted) / len(full):.3f}"
            )


if __name__ == "__main__":
    main()
