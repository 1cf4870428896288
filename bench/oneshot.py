"""Cold `hermes-tui chat -q` against a zero-latency model, beside `python -c "import openai"`.

A home with 200 skills; the loopback server (tests/fakes) answers at once. Each run is a fresh
process, so it pays every import: the ratio shows what a one-shot turn costs beyond the SDK
import it cannot avoid. Both sides run from compiled bytecode, as an installed package does
(PYTHONDONTWRITEBYTECODE in the caller's environment would otherwise charge hermes-tui for
compiling itself at every run). The first run, not timed, writes sessions.db and the scanner's
remembered verdicts (cache/scan_verdicts.json), as any earlier session would have. Target:
under 1.3x. Run: `.venv/bin/python bench/oneshot.py`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fakes.llm_server import FakeLLM, Reply  # noqa: E402

RUNS = 5


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed: {done.stderr[-500:]}")
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as temp, FakeLLM(default=Reply(text="ok")) as llm:
        home = Path(temp) / "home"
        for index in range(200):
            skill = home / "skills" / f"cat{index % 10}" / f"skill-{index}"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(
                f"---\nname: skill-{index}\ndescription: Does task {index} well.\n---\n\n1. Do it.\n"
            )
        env = {
            **os.environ,
            "OPENAI_API_KEY": "bench",
            "OPENAI_BASE_URL": llm.openai_url,
            "PYTHONPATH": str(REPO),
            # Both sides run from compiled bytecode, as an installed package does (pip compiles
            # it); kept in the temp dir, so the checkout gets no __pycache__ folders.
            "PYTHONPYCACHEPREFIX": str(Path(temp) / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        chat = [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "hi"]
        sdk = [sys.executable, "-c", "import openai"]
        # First runs: sessions.db, the scanner's verdicts, .pyc files for both.
        timed(chat, env)
        timed(sdk, env)
        chat_times, sdk_times = [], []
        for _ in range(RUNS):  # interleaved, so machine load hits both alike
            chat_times.append(timed(chat, env))
            sdk_times.append(timed(sdk, env))
        chat_median, sdk_median = statistics.median(chat_times), statistics.median(sdk_times)
        print(f"chat -q (200 skills, zero-latency model): median {chat_median * 1000:.0f} ms")
        print(f"python -c 'import openai':                median {sdk_median * 1000:.0f} ms")
        print(f"ratio {chat_median / sdk_median:.2f}x (target < 1.30x)")


if __name__ == "__main__":
    main()
