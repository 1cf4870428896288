"""Cancel latency with the server hung, in `chat -q` and in the app. Target: under 0.5 s.

`chat -q`: the loopback server (tests/fakes) streams half a reply and then sends nothing; Ctrl-C
(SIGINT) is sent once the client has read what came. Timed: from the key to the server seeing
the connection close, and to the process's exit. Baseline beside it: SIGINT to the exit of a
plain `python -c` sleeping, the floor any process pays.

The app: the same hung stream, Esc pressed through Pilot. Timed: from the key to the turn's end
and to the connection closing. Baseline beside it: Esc while a reply streams steadily (a read
returns every few milliseconds, so a cancel checked between chunks is as fast as it gets).
Run: `.venv/bin/python bench/cancel.py`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from fakes.llm_server import FakeLLM, Reply  # noqa: E402
from helpers import cli_env, make_app, write_config  # noqa: E402

RUNS = 5
TEXT = "The first half of this reply arrives, and then the server hangs for good. " * 4
SETTLE = 0.5  # seconds after the hang begins: the client has read what came


def _wait(predicate, bound: float = 30.0) -> None:
    deadline = time.monotonic() + bound
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("bench: timed out")
        time.sleep(0.005)


def chat_cancel(home: Path, llm: FakeLLM) -> tuple[float, float]:
    llm.hanging.clear()
    llm.hang_closed.clear()
    llm.script(Reply(text=TEXT, fault="hang_mid_stream"))
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "hi", "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=cli_env(OPENAI_API_KEY="bench", PYTHONPATH=str(REPO)),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _wait(llm.hanging.is_set)
    time.sleep(SETTLE)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    _wait(lambda: bool(llm.hang_closed))
    closed = llm.hang_closed[0] - pressed
    process.wait(30)
    return closed, time.monotonic() - pressed


def plain_sigint() -> float:
    process = subprocess.Popen(
        [sys.executable, "-c", "import time, sys; print(flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    process.stdout.readline()
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.wait(30)
    return time.monotonic() - pressed


async def app_cancel(home: Path, llm: FakeLLM, hung: bool) -> tuple[float, float | None]:
    llm.hanging.clear()
    llm.hang_closed.clear()
    if hung:
        llm.script(Reply(text=TEXT, fault="hang_mid_stream"))
    else:
        llm.script(Reply(text=TEXT * 20, chars_per_second=400))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=(130, 40)) as pilot:
        app.query_one("#chat-input").text = "hi"
        await pilot.press("enter")
        deadline = time.monotonic() + 30
        while not (llm.hanging.is_set() if hung else len(llm.requests)):
            if time.monotonic() > deadline:
                raise SystemExit("bench: the app never called the server")
            await pilot.pause(0.01)
        await pilot.pause(SETTLE)
        pressed = time.monotonic()
        await pilot.press("escape")
        while app.turn_running:
            await pilot.pause(0.005)
        ended = time.monotonic() - pressed
        closed = None
        if hung:
            while not llm.hang_closed:
                await pilot.pause(0.005)
            closed = llm.hang_closed[0] - pressed
    return ended, closed


def main() -> None:
    with tempfile.TemporaryDirectory() as temp, FakeLLM() as llm:
        home = Path(temp) / "home"
        home.mkdir()
        write_config(home, llm.openai_url, memory={"nudge_interval": 0})
        os.environ.update(cli_env(OPENAI_API_KEY="bench"))
        chat_cancel(home, llm)  # first run: sessions.db, bytecode
        closes, exits, floors = [], [], []
        for _ in range(RUNS):  # interleaved, so machine load hits both alike
            closed, exited = chat_cancel(home, llm)
            closes.append(closed)
            exits.append(exited)
            floors.append(plain_sigint())
        close, exit_, floor = (statistics.median(v) for v in (closes, exits, floors))
        print(f"chat -q, server hung mid-stream: Ctrl-C → connection closed {close * 1000:.0f} ms,")
        print(f"                                 Ctrl-C → process exit {exit_ * 1000:.0f} ms")
        print(f"plain python, SIGINT → exit:     {floor * 1000:.0f} ms")
        print(
            f"ratio {exit_ / floor:.2f}x the floor; target: under 500 ms to the connection closing"
        )

        app_ends, app_closes, steady = [], [], []
        for _ in range(RUNS):
            ended, closed = asyncio.run(app_cancel(home, llm, hung=True))
            app_ends.append(ended)
            app_closes.append(closed or 0.0)
            steady.append(asyncio.run(app_cancel(home, llm, hung=False))[0])
        ended, closed, base = (statistics.median(v) for v in (app_ends, app_closes, steady))
        print(f"app, server hung mid-stream:     Esc → turn ended {ended * 1000:.0f} ms,")
        print(f"                                 Esc → connection closed {closed * 1000:.0f} ms")
        print(f"app, reply streaming steadily:   Esc → turn ended {base * 1000:.0f} ms")
        print(f"ratio {ended / base:.2f}x the streaming case; target: under 500 ms")


if __name__ == "__main__":
    main()
