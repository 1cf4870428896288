"""A secret the provider streams in two pieces is redacted all the same: the reply carries a
known secret (from the home's .env) and an `sk-` key nobody configured, each cut across two
deltas at every offset, and no piece of either reaches `chat -q`'s stdout (on a terminal, where
the text is written live, and on a pipe), `--stream-json`, or the app's screen. On a pipe, the
command runs through cli.main in this process (captured at the file descriptors); on a
terminal, as its own process writing to a pseudo-terminal."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import REPO, cli_env, make_app, run_main, wait_until, write_config

KNOWN = "Zq9-streamed-secret-7781xy"  # no shape: only the .env knows it
SHAPED = "sk-proj-STREAMSPLIT0123456789abcdefXYZ"  # configured nowhere
CHUNK = 48  # characters a delta: more than either secret is long


def cut_everywhere(*secrets: str) -> str:
    """A reply that, streamed CHUNK characters a delta, cuts each secret after each of its
    characters once (spaces before each copy, so it starts a word)."""
    text = "Here:"
    for secret in secrets:
        for offset in range(1, len(secret)):
            pad = (CHUNK - offset - len(text)) % CHUNK or CHUNK
            text += " " * pad + secret
    return text + " done."


REPLY = cut_everywhere(KNOWN, SHAPED)


def pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def assert_no_piece(output: str, where: str) -> None:
    for secret in (KNOWN, SHAPED):
        for piece in pieces(secret):
            assert piece not in output, f"{where}: {piece!r} of {secret!r} shown"


def reply() -> Reply:
    return Reply(text=REPLY, chunk=CHUNK)


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def chat_home(home: Path, llm: FakeLLM) -> Path:
    (home / ".env").write_text(f"OPENAI_API_KEY=test-key\nDB_TOKEN={KNOWN}\n", encoding="utf-8")
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    return home


def test_the_reply_cuts_each_secret_at_every_offset() -> None:
    for secret in (KNOWN, SHAPED):
        cuts = set()
        start = REPLY.find(secret)
        while start != -1:
            cuts.add(CHUNK - start % CHUNK)
            start = REPLY.find(secret, start + 1)
        assert cuts == set(range(1, len(secret)))


@pytest.fixture
def chat(capfd: pytest.CaptureFixture[str]):
    def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, "chat", "-q", "hi", *args, cwd=home)

    return run


@pytest.mark.parametrize("args", [(), ("--stream-json",)], ids=["pipe", "stream-json"])
def test_chat_q_on_a_pipe_and_in_stream_json_shows_no_piece(
    chat_home: Path, llm: FakeLLM, chat, args: tuple[str, ...]
) -> None:
    llm.script(reply())
    done = chat(chat_home, *args)
    assert done.returncode == 0, done.stderr
    assert_no_piece(done.stdout + done.stderr, f"chat -q {' '.join(args)}")
    assert "[REDACTED DB_TOKEN]" in done.stdout and "[REDACTED openai key]" in done.stdout
    assert "done." in done.stdout


def test_chat_q_on_a_terminal_writes_live_and_shows_no_piece(chat_home: Path, llm: FakeLLM) -> None:
    llm.script(reply())
    master, slave = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(chat_home), "chat", "-q", "hi"],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=chat_home,
        env=cli_env(TERM="xterm-256color", PYTHONPATH=str(REPO)),
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the other end closed: the process is done writing
                    break
                if not data:
                    break
                seen += data
            elif process.poll() is not None:
                break
        assert process.wait(timeout=30) == 0, process.stderr.read().decode()
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
        process.stderr.close()
    shown = seen.decode(errors="replace")
    assert_no_piece(shown, "chat -q on a terminal")
    assert "[REDACTED DB_TOKEN]" in shown and "done." in shown


def screen_text(app) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def test_the_app_shows_no_piece(chat_home: Path, llm: FakeLLM) -> None:
    llm.script(reply())
    app = make_app(chat_home, llm.openai_url, memory={"nudge_interval": 0})
    async with app.run_test(size=(200, 60)) as pilot:
        app.query_one("#chat-input").text = "hi"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await wait_until(lambda: "done." in screen_text(app), timeout=30)
        shown = screen_text(app)
    assert_no_piece(shown, "the app's screen")
    assert "[REDACTED DB_TOKEN]" in shown and "[REDACTED openai key]" in shown


@pytest.mark.parametrize("args", [(), ("--stream-json",)], ids=["pipe", "stream-json"])
def test_a_secret_split_across_two_model_calls_of_a_turn_shows_no_piece(
    chat_home: Path, llm: FakeLLM, chat, args: tuple[str, ...]
) -> None:
    import json

    todo = ("todo", {"todos": [{"id": "1", "content": "x", "status": "pending"}]})
    llm.script(
        Reply(text="key: " + KNOWN[:12], tool_calls=[todo]),
        Reply(text=KNOWN[12:] + " done."),
    )
    done = chat(chat_home, *args)
    assert done.returncode == 0, done.stderr
    shown = done.stdout
    if args:
        events = [json.loads(line) for line in done.stdout.splitlines()]
        shown = "".join(e.get("text", "") for e in events if e.get("type") == "text")
    assert "".join(shown.split()) == "key:[REDACTEDDB_TOKEN]done."
    assert_no_piece(shown + done.stderr, f"chat -q {' '.join(args)}")
