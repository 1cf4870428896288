"""A secret the model splits between its reasoning and its reply (the first half ends the
thought, the second begins the answer) is one secret: no half of it reaches `chat -q`'s output
(plain or `--stream-json`), sessions.db, `sessions show` or an export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

KNOWN = "Zq9-qwpxmv-vbnkjt-7781xy"  # no shape: only the .env knows it
SHAPED = "ghp_R2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6"  # configured nowhere


def halves(secret: str) -> list[str]:
    """Every piece of 6 characters: a half of the secret holds some."""
    return [secret[i : i + 6] for i in range(len(secret) - 5)]


def assert_no_half(text: str, where: str) -> None:
    for secret in (KNOWN, SHAPED):
        for piece in halves(secret):
            assert piece not in text, f"{where}: {piece!r} of {secret!r}"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.mark.parametrize("secret", [KNOWN, SHAPED], ids=["known", "shaped"])
@pytest.mark.parametrize("args", [(), ("--stream-json",)], ids=["plain", "stream-json"])
def test_a_secret_split_between_reasoning_and_reply_is_nowhere(
    home: Path, llm: FakeLLM, capsys, secret: str, args: tuple[str, ...]
) -> None:
    (home / ".env").write_text(f"OPENAI_API_KEY=test-key\nDB_TOKEN={KNOWN}\n", encoding="utf-8")
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    half = len(secret) // 2
    llm.script(
        Reply(reasoning="the key is " + secret[:half], text=secret[half:] + " done.", chunk=3)
    )
    done = run_main(capsys, home, "chat", "-q", "hi", *args, cwd=home)
    assert done.returncode == 0, done.stderr
    assert "done." in done.stdout
    if args:
        events = [json.loads(line) for line in done.stdout.splitlines()]
        kinds = {e["type"] for e in events}
        assert {"reasoning", "text"} <= kinds, kinds
    assert_no_half(done.stdout + done.stderr, f"chat -q {' '.join(args)}")
    stored = b"".join(p.read_bytes() for p in home.glob("sessions.db*") if p.is_file())
    assert_no_half(stored.decode("utf-8", "replace"), "sessions.db")
    session = done.stderr.strip().splitlines()[-1].split()[-1]
    shown = run_main(capsys, home, "sessions", "show", session, cwd=home)
    assert_no_half(shown.stdout + shown.stderr, "sessions show")


async def test_the_app_shows_no_half_of_a_secret_split_between_reasoning_and_reply(
    home: Path, llm: FakeLLM
) -> None:
    from helpers import make_app, wait_until

    (home / ".env").write_text(f"DB_TOKEN={KNOWN}\n", encoding="utf-8")
    half = len(KNOWN) // 2
    llm.script(Reply(reasoning="the key is " + KNOWN[:half], text=KNOWN[half:] + " done.", chunk=3))
    app = make_app(home, llm.openai_url, memory={"nudge_interval": 0})
    async with app.run_test(size=(160, 50)) as pilot:
        app.query_one("#chat-input").text = "hi"
        await pilot.press("enter")
        await app.workers.wait_for_complete()

        def screen() -> str:
            strips = app.screen._compositor.render_strips()
            return "\n".join("".join(segment.text for segment in strip) for strip in strips)

        await wait_until(lambda: "done." in screen(), timeout=30)
        blocks = list(app.query("ReasoningBlock"))
        for block in blocks:  # open the thought, so its text is drawn
            block.collapsed = False
        await pilot.pause()
        shown = screen()
        thought = "".join(block.text for block in blocks)
    assert "the key is [REDACTED DB_TOKEN]" in thought and "the key is" in shown
    assert_no_half(shown + thought, "the app's screen")
