"""The app's responsiveness, measured on the real widgets (headless, via Textual's test driver).

1. Start-up: process start to app ready, for a home with 1,000 skills and a resumed
   2,000-message session, against an empty home (ratio). Target: under 1.5 s.
2. Keystroke latency while a reply streams at 200 tokens/s: from a key event reaching the input
   to the input's text holding it (painting follows on the next frame). Target: median under 50 ms.
3. How long after its last token a reply has finished rendering. Target: under 250 ms.
Run: `.venv/bin/python bench/tui.py`.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from textual import events

from hermes_tui.config import Overrides
from hermes_tui.core import events as ev
from hermes_tui.core.messages import Message
from hermes_tui.core.sessions import SessionStore
from hermes_tui.runtime import Runtime
from hermes_tui.ui.app import CoreEvent, EventForwarder, HermesApp
from hermes_tui.ui.widgets.chat import AssistantMessage, ChatView

TOKENS_PER_SECOND = 200


def populate(home: Path) -> str:
    for i in range(1000):
        directory = home / "skills" / f"cat-{i % 40:02d}" / f"skill-{i:04d}"
        directory.mkdir(parents=True)
        (directory / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Playbook {i}.\n---\n\nSteps.\n"
        )
    store = SessionStore(home / "sessions.db")
    info = store.create(provider="demo", model="hermes-demo", system_prompt="S")
    for i in range(1000):
        store.append(info.id, Message("user", f"question {i} about the build"))
        store.append(
            info.id, Message("assistant", f"answer {i}: run `make test` and read the **summary**.")
        )
    return info.id


async def child_startup(home: Path, session_id: str | None, started: float) -> None:
    forwarder = EventForwarder()
    runtime = Runtime.open(home, Overrides(provider="demo"), sink=forwarder)
    app = HermesApp(runtime, forwarder, watch_files=False)
    async with app.run_test(size=(140, 40)) as pilot:
        if session_id:
            app.resume(session_id)
            await app.workers.wait_for_complete()
        await pilot.pause()
        print(time.time() - started)


def startup(home: Path, session_id: str | None) -> float:
    samples = []
    for _ in range(3):
        started = time.time()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(home), session_id or "-", str(started)],
            capture_output=True,
            text=True,
            check=True,
        )
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


async def streaming(home: Path) -> tuple[float, float]:
    forwarder = EventForwarder()
    runtime = Runtime.open(home, Overrides(provider="demo"), sink=forwarder)
    app = HermesApp(runtime, forwarder, watch_files=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await app.query_one(ChatView).add_user("stream please")
        tokens = [f"word{i} " + ("\n\n" if i % 40 == 39 else "") for i in range(600)]
        done = threading.Event()
        last_token = [0.0]

        def produce() -> None:
            for token in tokens:
                app.post_message(CoreEvent(ev.TextDelta(token)))
                time.sleep(1 / TOKENS_PER_SECOND)
            last_token[0] = time.perf_counter()
            done.set()

        threading.Thread(target=produce, daemon=True).start()
        box = app.query_one("#chat-input")
        box.focus()
        latencies = []
        while not done.is_set():
            before = box.text
            start = time.perf_counter()
            box.post_message(events.Key("x", "x"))
            while box.text == before:
                await asyncio.sleep(0.001)
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(0.05)
        expected = "".join(tokens)
        message = app.query(AssistantMessage).last()
        while message.text != expected:
            await asyncio.sleep(0.001)
        await message.finish()
        await pilot.pause()
        finished = time.perf_counter() - last_token[0]
        return statistics.median(latencies), finished


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        home, session_id, started = Path(sys.argv[2]), sys.argv[3], float(sys.argv[4])
        asyncio.run(child_startup(home, None if session_id == "-" else session_id, started))
        return
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as full:
        session_id = populate(Path(full))
        base = startup(Path(empty), None)
        loaded = startup(Path(full), session_id)
        print(f"start-up, empty home                        {base:6.2f} s")
        print(
            f"start-up, 1,000 skills + 2,000-msg session  {loaded:6.2f} s   ratio {loaded / base:.2f} (target < 1.5 s)"
        )
        latency, finished = asyncio.run(streaming(Path(empty)))
        print(
            f"keystroke handled while streaming 200 tok/s median {latency * 1000:6.1f} ms (target < 50 ms;"
            " the screen repaints on the next frame, at most 1/60 s later)"
        )
        print(
            f"reply rendered after its last token          {finished * 1000:6.1f} ms (target < 250 ms)"
        )


if __name__ == "__main__":
    main()
