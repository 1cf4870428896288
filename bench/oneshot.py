"""Cold `hermes-tui chat -q` against a zero-latency model, beside `python -c "import openai"`.

A home with 200 skills; the loopback server (tests/fakes) answers at once. Each run is a fresh
process, so it pays every import: the ratio shows what a one-shot turn costs beyond the SDK
import it cannot avoid. Both sides run from compiled bytecode, as an installed package does
(PYTHONDONTWRITEBYTECODE in the caller's environment would otherwise charge hermes-tui for
compiling itself at every run). The first run, not timed, writes sessions.db and the scanner's
remembered verdicts (cache/scan_verdicts.json), as any earlier session would have. The turn
calls one tool (`skills_list`, its arguments validated) before it answers, as most turns do.
Targets: time at most 1.0x `import openai`; peak RSS of the whole turn at most 1.15x that of
`import openai` (each measured in a fresh process by a small wrapper that reads its child's
maximum resident set size). The same wrapper reads the child's CPU time (user + system): on a
shared machine it moves less with other people's load than the wall time the target is about,
but it cannot credit the SDK's import running beside our own start-up.

The RSS floor is printed beside it: the `openai` SDK alone making the turn's two streamed calls
(no hermes-tui code), and the same with the session written to an SQLite database with a
full-text index, as sessions.db is (the SQLite library's pages alone are ~1.3 MiB). What
hermes-tui adds is read against those, not against the bare import, and split in two: its
code (the same floor, then importing every module a `chat -q` turn loads, as listed by one
such turn in this run) and the rest, the turn's own data (skills, remembered verdicts,
sessions.db's pages) less what the floor's client loads and ours, for a plain-http server,
does not: the TLS trust store (~1.6 MiB, core/llm/transport.py) and httpcore2 (~1.4 MiB,
core/llm/plain_http.py). Run: `.venv/bin/python bench/oneshot.py`.
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
TIME_TARGET, RSS_TARGET = 1.0, 1.15
# Runs the command given as its arguments and prints that child's peak RSS in KiB (Linux)
# and its CPU time (user + system) in seconds.
PEAK_RSS = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
    "capture_output=True); usage = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)"
)


# The SDK's own share of the turn: the same two streamed calls with no hermes-tui code; with
# "sqlite" in argv, the conversation also goes to an SQLite database with a full-text index.
SDK_TURN = """
import sys, openai
client = openai.OpenAI(max_retries=0)
tools = [{"type": "function", "function": {"name": "skills_list", "description": "List skills.",
          "parameters": {"type": "object", "properties": {}}}}]
messages = [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "hi"}]
for _ in range(2):
    stream = client.chat.completions.create(model="bench", messages=messages, tools=tools,
                                            stream=True, stream_options={"include_usage": True})
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    messages.append({"role": "assistant", "content": text})
if "sqlite" in sys.argv:
    import sqlite3, tempfile, os
    with tempfile.TemporaryDirectory() as folder:
        db = sqlite3.connect(os.path.join(folder, "sessions.db"))
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, role TEXT, content TEXT)")
        db.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages')")
        for m in messages:
            db.execute("INSERT INTO messages (role, content) VALUES (?, ?)", (m["role"], m["content"]))
        db.commit()
        db.close()
if "code" in sys.argv:  # then hermes-tui's modules, each imported, none run
    import importlib
    for name in sys.argv[sys.argv.index("code") + 1:]:
        importlib.import_module(name)
"""

# Runs the `chat -q` turn given as its arguments in process and prints, after a marker line on
# stderr, the modules it loaded that the floor does not: hermes_tui's and their own imports.
LOADED = """
import sys
before = set(sys.modules)
from hermes_tui.cli import main
main(sys.argv[1:])
print("LOADED", *sorted(set(sys.modules) - before), file=sys.stderr)
"""


def peak_rss(command: list[str], env: dict[str, str]) -> tuple[int, float]:
    """The child's peak RSS (KiB) and CPU time (s)."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *command], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed: {done.stderr[-500:]}")
    rss, cpu = done.stdout.split()[-2:]
    return int(rss), float(cpu)


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

        def sdk_turn(*extra: str) -> list[str]:
            llm.script(Reply(tool_calls=[("skills_list", {})]), Reply(text="ok"))
            return [sys.executable, "-c", SDK_TURN, *extra]

        def turn() -> list[str]:
            llm.script(Reply(tool_calls=[("skills_list", {})]), Reply(text="ok"))
            return chat

        # First runs: sessions.db, the scanner's verdicts, .pyc files for both.
        timed(turn(), env)
        timed(sdk, env)
        chat_times, sdk_times, chat_rss, sdk_rss = [], [], [], []
        for _ in range(RUNS):  # interleaved, so machine load hits both alike
            chat_times.append(timed(turn(), env))
            sdk_times.append(timed(sdk, env))
        loaded = (
            subprocess.run(
                [sys.executable, "-c", LOADED, *turn()[3:]], env=env, capture_output=True, text=True
            )
            .stderr.split("LOADED")[-1]
            .split()
        )
        modules = [name for name in loaded if name.startswith("hermes_tui")]
        floor_rss, floor_db_rss, code_rss = [], [], []
        for _ in range(3):
            chat_rss.append(peak_rss(turn(), env))
            sdk_rss.append(peak_rss(sdk, env))
            floor_rss.append(peak_rss(sdk_turn(), env))
            floor_db_rss.append(peak_rss(sdk_turn("sqlite"), env))
            code_rss.append(peak_rss(sdk_turn("sqlite", "code", *modules), env))
        chat_median, sdk_median = statistics.median(chat_times), statistics.median(sdk_times)
        chat_peak = statistics.median(rss for rss, _ in chat_rss)
        sdk_peak = statistics.median(rss for rss, _ in sdk_rss)
        chat_cpu = statistics.median(cpu for _, cpu in chat_rss)
        sdk_cpu = statistics.median(cpu for _, cpu in sdk_rss)
        print(f"chat -q (200 skills, one tool call): median {chat_median * 1000:.0f} ms")
        print(f"python -c 'import openai':           median {sdk_median * 1000:.0f} ms")
        print(f"time ratio {chat_median / sdk_median:.2f}x (target <= {TIME_TARGET:.2f}x)")
        print(
            f"CPU time: chat -q {chat_cpu * 1000:.0f} ms, import openai {sdk_cpu * 1000:.0f} ms"
            f" (ratio {chat_cpu / sdk_cpu:.2f}x)"
        )
        print(
            f"peak RSS: chat -q {chat_peak / 1024:.1f} MiB, import openai {sdk_peak / 1024:.1f} MiB"
        )
        print(f"RSS ratio {chat_peak / sdk_peak:.2f}x (target <= {RSS_TARGET:.2f}x)")
        floor = statistics.median(rss for rss, _ in floor_rss)
        floor_db = statistics.median(rss for rss, _ in floor_db_rss)
        print(
            f"floor: the SDK alone making the two streamed calls {floor / 1024:.1f} MiB"
            f" ({floor / sdk_peak:.2f}x), with the session in SQLite + FTS5"
            f" {floor_db / 1024:.1f} MiB ({floor_db / sdk_peak:.2f}x);"
            f" hermes-tui adds {(chat_peak - floor_db) / 1024:.1f} MiB above the latter"
        )
        code = statistics.median(rss for rss, _ in code_rss) - floor_db
        print(
            f"of which its code (the {len(modules)} hermes_tui modules the turn loads, imported"
            f" after the floor's turn) {code / 1024:.1f} MiB, the turn's own data less the TLS"
            f" trust store and httpcore2 the floor loads and it does not"
            f" {(chat_peak - floor_db - code) / 1024:.1f} MiB"
        )


if __name__ == "__main__":
    main()
