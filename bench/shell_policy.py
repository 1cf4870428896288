"""The shell policy's decision time per command, beside running `true` through the terminal tool.

Every line of the corpus (tests/data/shell_policy_corpus.yaml: dangerous and everyday commands)
is decided repeatedly in one process after a warm-up (the tree-sitter grammar loads on the first
call, once per process). The baseline is the terminal tool running `true` (policy, environment,
sandbox when bwrap is there, bash): the share of a command's cost that the decision adds.
Target: median under 2 ms. Run: `.venv/bin/python bench/shell_policy.py`.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import yaml

from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.core.tools.shell_policy import decide
from hermes_tui.core.tools.terminal import make_terminal_tools

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "shell_policy_corpus.yaml"
ROUNDS = 5


def main() -> None:
    data = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    context = data["context"]
    lines = [row["command"] for row in data["dangerous"]] + list(data["everyday"])
    decide("true", context["cwd"], context["workdir"], context["home"])  # grammar load
    per_command: list[float] = []
    for command in lines:
        samples = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            decide(command, context["cwd"], context["workdir"], context["home"])
            samples.append(time.perf_counter() - started)
        per_command.append(statistics.median(samples))
    per_command.sort()
    median = statistics.median(per_command)
    p95 = per_command[int(len(per_command) * 0.95)]

    (terminal,) = [t for t in make_terminal_tools() if t.name == "terminal"]
    with tempfile.TemporaryDirectory() as work:
        run_context = ToolContext(cwd=Path(work), workdir=Path(work))
        terminal.handler({"command": "true"}, run_context)  # warm-up
        runs = []
        for _ in range(20):
            started = time.perf_counter()
            terminal.handler({"command": "true"}, run_context)
            runs.append(time.perf_counter() - started)
    baseline = statistics.median(runs)
    print(f"{len(lines)} corpus lines, median of {ROUNDS} decisions each")
    print(
        f"decision: median {median * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms (target median < 2 ms)"
    )
    print(f"terminal tool running `true`: median {baseline * 1000:.1f} ms")
    print(f"the decision is {median / baseline:.1%} of running `true`")


if __name__ == "__main__":
    main()
