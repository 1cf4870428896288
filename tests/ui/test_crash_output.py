"""When the app crashes, the traceback Textual prints after leaving the alternate screen is
redacted and neutralised like every other output: a secret in the exception's message or in a
local variable, and an escape sequence in the message, never reach the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_app

SECRET = "Zq9-crash-secret-7781xy"  # known from the home's .env only
SHAPED = "sk-proj-CRASHLEAK0123456789abcdefXYZ"  # configured nowhere


class Boom(RuntimeError):
    pass


async def test_a_crash_traceback_shows_no_secret_and_no_escape(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / ".env").write_text(f"DB_TOKEN={SECRET}\n", encoding="utf-8")
    app = make_app(home)

    def connect() -> None:
        token = SECRET  # a local: the traceback lists locals
        header = f"Bearer {SHAPED}"
        raise Boom(f"connect failed with {token} ({header}) \x1b]0;pwned\x07\x1b[2J")

    with pytest.raises(Boom):
        async with app.run_test() as pilot:
            app.call_later(connect)
            await pilot.pause()
            await pilot.pause()
    printed = capsys.readouterr()
    output = printed.out + printed.err
    assert "Boom" in output and "connect failed with" in output  # the traceback was printed
    assert "[REDACTED DB_TOKEN]" in output  # its message and its locals, redacted
    for secret in (SECRET, SHAPED, SECRET[::-1]):
        assert secret not in output
    assert "\x1b" not in output and "\x07" not in output
    assert "␛]0;pwned" in output  # shown as text, not obeyed


def test_a_cli_command_that_crashes_prints_its_traceback_redacted(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hermes_tui import cli, cli_chat

    (home / ".env").write_text(f"DB_TOKEN={SECRET}\n", encoding="utf-8")

    def crashing(args, open_runtime) -> int:
        open_runtime(args)  # the home's secrets are known from here on
        raise Boom(f"listing failed with {SECRET} and Bearer {SHAPED}")

    monkeypatch.setattr(cli_chat, "cmd_sessions", crashing)
    assert cli.main(["--home", str(home), "sessions", "list"]) == 1
    printed = capsys.readouterr()
    assert "Traceback" in printed.err and "Boom: listing failed with" in printed.err
    assert "[REDACTED DB_TOKEN]" in printed.err
    for secret in (SECRET, SHAPED):
        assert secret not in printed.out + printed.err
