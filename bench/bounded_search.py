"""What the bounds on search_files and patch cost, and what they save (A4-32).

1. search_files' regex: Python's re in this process against the bounded search (a child
   Python running re, fed in batches, core/tools/bounded_regex.py) over the same 200 files of
   1,000 ordinary lines, an ordinary pattern: the ratio is the price of the bound.
2. The fuzzy patch: a 40-line old_string quoted with other indentation (found by line_trimmed)
   in a 60,000-line file, against attack4's near miss (400 lines that match nowhere exactly),
   which ran for minutes before the work bound: the ratio says it now costs about as much.

Run: `.venv/bin/python bench/bounded_search.py`.
"""

from __future__ import annotations

import re
import statistics
import threading
import time

from hermes_tui.core.skills.fuzzy import FuzzyMatchError, find
from hermes_tui.core.tools.bounded_regex import BoundedSearch


def _median(run, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def regex_cost() -> None:
    files = [
        (f"f{n}.py", "\n".join(f"value_{i % 97} = compute({i % 13}, {i % 7})" for i in range(1000)))
        for n in range(200)
    ]
    pattern = r"compute\(1[0-2], \d\)"
    plain = re.compile(pattern)

    def with_re() -> None:
        for _name, text in files:
            [n for n, line in enumerate(text.splitlines(), 1) if plain.search(line)]

    def with_bound() -> None:
        with BoundedSearch(pattern, threading.Event()) as search:
            for _found in search.search(files):
                pass

    base, bound = _median(with_re), _median(with_bound)
    print(
        f"search, 200 files of 1,000 lines: re {base * 1000:.0f} ms, bounded {bound * 1000:.0f} ms"
    )
    print(f"  ratio bounded/re: {bound / base:.2f}")


def fuzzy_cost() -> None:
    line = "value_{0} = compute({1}, {2})"
    content = "".join(line.format(i % 97, i % 13, i % 7) + "\n" for i in range(60_000))
    quoted = "".join("  " + line.format(i % 97, i % 13, i % 7) + "\n" for i in range(40))
    near_miss = "".join(line.format(i % 97, i % 13, i % 7) + f" # x{i}\n" for i in range(400))

    def legit() -> None:
        assert find(content, quoted)[0] == "line_trimmed"

    def attack() -> None:
        try:
            find(content, near_miss)
        except FuzzyMatchError:
            return
        raise AssertionError("the near miss matched")

    base, bound = _median(legit, 3), _median(attack, 3)
    print(f"patch, 60,000-line file: 40 lines re-indented {base * 1000:.0f} ms, ", end="")
    print(f"400-line near miss {bound * 1000:.0f} ms (no unique match)")
    print(f"  ratio near miss/legit: {bound / base:.2f}")


if __name__ == "__main__":
    regex_cost()
    fuzzy_cost()
