"""The app's responsiveness as a user feels it: the real `python -m hermes_tui` in a pseudo-terminal.

1. Start-up: process start to app ready, for a home with 1,000 skills and a resumed
   2,000-message session, against an empty home (ratio). Target: under 1.0 s.
   Also a home with 3 MCP servers configured (real stdio servers from tests/fakes), against the
   empty home: the servers start behind the first screen, so the ratio should stay near 1.
2. Key-to-screen latency: from a key's bytes being written to the pty to the first output frame
   that draws the character, during the 1st, 5th and 10th 20 KB Markdown reply of one session,
   streamed by the loopback server in 7-character chunks at full speed and at 1,000 chars/s;
   beside the same figure for the idle app before the first reply. Targets: p95 under 50 ms at
   every point, and app CPU under 30 % of one core at 1,000 chars/s. The CPU is given while
   the typist types (its own share is the idle column) and for one more reply with nobody
   typing ("no typing"), which is the figure the target is about. It is taken over the same
   window as the wall time: from typing the message to the reply's end on screen.

Every typed key is a character that appears nowhere else (a fresh CJK ideograph, erased again with
backspace), so its first appearance in the output is the frame that shows it. The app's CPU is
read from /proc. Run: `.venv/bin/python bench/tui.py` (a few minutes); `--quick` runs the streaming
part with 5 replies (1st and 5th measured) and no start-up part.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import fcntl
import os
import pty
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from fakes.llm_server import FakeLLM, Reply  # noqa: E402
from helpers import cli_env, write_config  # noqa: E402

COLUMNS, ROWS = 160, 48
REPLY_CHARS = 20_000
CHUNK = 7
PACED = 1000.0  # chars/s
KEY_TIMEOUT = 5.0  # a key not drawn by then counts as this late (and as lost)
TICKS = os.sysconf("SC_CLK_TCK")


# ---- start-up (headless, in a child process) ----------------------------------------------


def populate(home: Path) -> str:
    from hermes_tui.core.messages import Message
    from hermes_tui.core.sessions import SessionStore

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


def mcp_home(home: Path) -> Path:
    """A home whose config starts three MCP servers (the SDK's own server, over stdio)."""
    import yaml

    server = {"command": sys.executable, "args": [str(REPO / "tests" / "fakes" / "mcp_server.py")]}
    config = {"mcp_servers": {name: dict(server) for name in ("one", "two", "three")}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return home


async def child_startup(home: Path, session_id: str | None, started: float) -> None:
    from hermes_tui.config import Overrides
    from hermes_tui.runtime import Runtime
    from hermes_tui.ui.app import HermesApp
    from hermes_tui.ui.turn import EventForwarder

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
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


# ---- the app in a pseudo-terminal ---------------------------------------------------------


class Terminal:
    """A child process on a pty; a thread drains its output and notes when strings first appear."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self._lock = threading.Condition()
        self._watched: dict[str, float | None] = {}
        self._tail = ""
        self.output_bytes = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            now = time.perf_counter()
            text = decoder.decode(data)
            with self._lock:
                self.output_bytes += len(data)
                window = self._tail + text
                for needle, seen in self._watched.items():
                    if seen is None and needle in window:
                        self._watched[needle] = now
                self._tail = window[-64:]
                self._lock.notify_all()

    def watch(self, needle: str) -> None:
        with self._lock:
            self._watched[needle] = None

    def seen(self, needle: str) -> float | None:
        with self._lock:
            return self._watched.get(needle)

    def wait_for(self, needle: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._watched.get(needle) is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(left)
            return self._watched[needle]

    def write(self, text: str) -> float:
        os.write(self.master, text.encode())
        return time.perf_counter()

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def markdown_reply(number: int) -> str:
    """About 20 KB of the Markdown a model writes: headings, prose, lists, code, a table."""
    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < REPLY_CHARS - 600:
        section += 1
        parts.append(f"## Step {section} of reply {number}\n\n")
        parts.append(
            "The build reads **its configuration** from `pyproject.toml`, then runs the "
            "checks in order; a failure stops the run and prints the *first* error with its "
            "file and line, so fix that one and run again. " * 2 + "\n\n"
        )
        parts.append(
            "- install the dependencies with `pip install -e .`\n"
            "- run `pytest -x` and read the summary\n"
            "- commit with a message that says **why**\n\n"
        )
        if section % 2:
            parts.append(
                "```python\n"
                f"def step_{section}(path: str) -> int:\n"
                "    with open(path) as handle:\n"
                "        return sum(1 for line in handle if line.strip())\n"
                "```\n\n"
            )
        else:
            parts.append(
                "| check | time | result |\n|---|---|---|\n"
                f"| lint | {section}.2 s | ok |\n| tests | {section * 3}.1 s | ok |\n\n"
            )
    text = "".join(parts)
    # The reply ends with a marker in a chunk of its own, so its first drawing is the last frame.
    text += " " * (-len(text) % CHUNK)
    return text + end_marker(number)


def end_marker(number: int) -> str:
    return f"ZQEND{number:02d}"[:CHUNK]


@dataclass
class Point:
    latencies: list[float] = field(default_factory=list)
    cpu: float = 0.0
    lost: int = 0  # keys not drawn within KEY_TIMEOUT

    def p95(self) -> float:
        if not self.latencies and not self.lost:
            return float("nan")
        ordered = sorted(self.latencies + [KEY_TIMEOUT] * self.lost)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    def median(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")


class Typist:
    """Types keys nobody else draws and times each one to the frame that shows it.

    Between two keys it waits 30-90 ms at random (seeded): a typist who waited a fixed time
    after each key was drawn fell into step with the app's own timer, every key landing at the
    same moment of a drawing step, which measured that moment rather than typing.
    """

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.next_char = 0x4E00
        self.pauses = random.Random(15)

    def pause(self) -> None:
        time.sleep(self.pauses.uniform(0.03, 0.09))

    def key(self) -> float | None:
        char = chr(self.next_char)
        self.next_char += 1
        self.terminal.watch(char)
        sent = self.terminal.write(char)
        shown = self.terminal.wait_for(char, KEY_TIMEOUT)
        self.terminal.write("\x7f")  # backspace: the box stays one line
        return None if shown is None else shown - sent


def measure_idle(terminal: Terminal, typist: Typist, seconds: float = 3.0) -> Point:
    point = Point()
    cpu, wall = terminal.cpu_seconds(), time.monotonic()
    while time.monotonic() - wall < seconds:
        latency = typist.key()
        if latency is None:
            point.lost += 1
        else:
            point.latencies.append(latency)
        typist.pause()
    point.cpu = (terminal.cpu_seconds() - cpu) / (time.monotonic() - wall)
    return point


def send(terminal: Terminal, llm: FakeLLM, text: str) -> None:
    """Type a message and press enter until the server sees its request (a turn may still run)."""
    before = len(llm.requests)
    for _ in range(200):
        terminal.write(text)
        time.sleep(0.05)
        terminal.write("\r")
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            if len(llm.requests) > before:
                return
            time.sleep(0.01)
        terminal.write("\x15")  # ctrl+u: clear whatever is left before typing again
    raise RuntimeError(f"the app never sent {text!r}")


def session(label: str, chars_per_second: float, replies: int, measured: list[int]) -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as llm:
        home = Path(tmp)
        write_config(
            home,
            llm.openai_url,
            memory={"nudge_interval": 0},
            skills={"creation_nudge_interval": 0},
        )
        env = cli_env(
            OPENAI_API_KEY="test-key",
            TERM="xterm-256color",
            COLORTERM="truecolor",
            PYTHONPATH=str(REPO),
        )
        terminal = Terminal([sys.executable, "-m", "hermes_tui", "--home", str(home)], env)
        try:
            terminal.watch("review")
            if terminal.wait_for("review", 60) is None:
                raise RuntimeError("the app did not start")
            time.sleep(1.5)
            typist = Typist(terminal)
            results["idle"] = measure_idle(terminal, typist)
            for number in range(1, replies + 1):
                timed = number in measured
                llm.script(
                    Reply(
                        text=markdown_reply(number),
                        chunk=CHUNK,
                        chars_per_second=chars_per_second if timed else 0,
                    )
                )
                marker = end_marker(number)
                terminal.watch(marker)
                cpu, wall = terminal.cpu_seconds(), time.monotonic()  # one window for both
                send(terminal, llm, f"reply {number} please")
                point = Point()
                while timed and terminal.seen(marker) is None:
                    latency = typist.key()
                    if latency is None:
                        point.lost += 1
                    else:
                        point.latencies.append(latency)
                    typist.pause()
                shown = terminal.wait_for(marker, 600)
                if shown is None:
                    raise RuntimeError(f"reply {number} never finished drawing")
                if timed:
                    point.cpu = (terminal.cpu_seconds() - cpu) / (time.monotonic() - wall)
                    results[number] = point
                print(f"  {label}: reply {number} drawn", file=sys.stderr, flush=True)
            # One more reply with nobody typing: the CPU that streaming alone costs (the
            # typist's own share is the idle figure).
            number = replies + 1
            llm.script(
                Reply(text=markdown_reply(number), chunk=CHUNK, chars_per_second=chars_per_second)
            )
            marker = end_marker(number)
            terminal.watch(marker)
            cpu, wall = terminal.cpu_seconds(), time.monotonic()
            send(terminal, llm, f"reply {number} please")
            if terminal.wait_for(marker, 600) is None:
                raise RuntimeError(f"reply {number} never finished drawing")
            results["no typing"] = Point(
                cpu=(terminal.cpu_seconds() - cpu) / (time.monotonic() - wall)
            )
            time.sleep(1.0)
            results["idle after"] = measure_idle(terminal, typist)
        finally:
            terminal.close()
    return results


def report(label: str, results: dict) -> None:
    columns = list(results)
    names = [c if isinstance(c, str) else f"reply {c}" for c in columns]
    print(f"\n{label}")
    print("  " + " " * 18 + "".join(f"{name:>12}" for name in names))
    rows = [
        ("key p95 (ms)", lambda p: f"{p.p95() * 1000:.1f}"),
        ("key median (ms)", lambda p: f"{p.median() * 1000:.1f}"),
        (
            "keys timed",
            lambda p: f"{len(p.latencies)}" + (f" +{p.lost} lost" if p.lost else ""),
        ),
        ("app CPU (% core)", lambda p: f"{p.cpu * 100:.0f}"),
    ]
    for title, cell in rows:
        print(f"  {title:<18}" + "".join(f"{cell(results[c]):>12}" for c in columns))


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        home, session_id, started = Path(sys.argv[2]), sys.argv[3], float(sys.argv[4])
        asyncio.run(child_startup(home, None if session_id == "-" else session_id, started))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="5 replies, no start-up part")
    parser.add_argument("--replies", type=int, default=10)
    args = parser.parse_args()
    replies = 5 if args.quick else args.replies
    measured = [n for n in (1, 2, 5, 10) if n <= replies] if args.replies < 5 else [1, 5, 10]
    if not args.quick:
        with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as full:
            session_id = populate(Path(full))
            base = startup(Path(empty), None)
            loaded = startup(Path(full), session_id)
            print(f"start-up, empty home                        {base:6.2f} s")
            print(
                f"start-up, 1,000 skills + 2,000-msg session  {loaded:6.2f} s   "
                f"ratio {loaded / base:.2f} (target < 1.0 s)"
            )
        with tempfile.TemporaryDirectory() as with_mcp:
            with_servers = startup(mcp_home(Path(with_mcp)), None)
            print(
                f"start-up, 3 MCP servers configured          {with_servers:6.2f} s   "
                f"ratio {with_servers / base:.2f} (target: not delayed, ~1.0)"
            )
    full = session("full speed", 0, replies, measured)
    report(f"20 KB replies in {CHUNK}-char chunks at full speed (target: p95 < 50 ms)", full)
    paced = session("1,000 chars/s", PACED, replies, measured)
    report(
        f"20 KB replies in {CHUNK}-char chunks at {PACED:,.0f} chars/s "
        "(targets: p95 < 50 ms, CPU < 30 %)",
        paced,
    )


if __name__ == "__main__":
    main()
