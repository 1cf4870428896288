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


LEAKY_SOURCE = f'''
def connect(token):
    fallback = "{SECRET}"
    raise Boom("failed with " + token)  # {SHAPED}


class Boom(RuntimeError):
    pass
'''


def leaky_module(tmp_path: Path, name: str):
    """A module whose raising line carries a secret hard-coded in its source."""
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(LEAKY_SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_crash_before_the_app_runs_prints_its_traceback_redacted(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Start-up fails after the home is read but before the screen takes over: the traceback
    (its message, and a source line with a secret written in it) is printed redacted."""
    from hermes_tui import cli
    from hermes_tui.ui import app as app_module

    (home / ".env").write_text(f"DB_TOKEN={SECRET}\n", encoding="utf-8")
    module = leaky_module(tmp_path, "leaky_start")

    def failing_app(runtime, *args, **kwargs):
        module.connect(f"{SECRET} {SECRET.encode().hex()}")

    monkeypatch.setattr(app_module, "HermesApp", failing_app)
    assert cli.main(["--home", str(home), "--provider", "demo"]) == 1
    printed = capsys.readouterr()
    output = printed.out + printed.err
    assert "Traceback" in output
    assert "Boom: failed with [REDACTED DB_TOKEN] [REDACTED DB_TOKEN]" in output
    assert "+ token)  # [REDACTED openai key]" in output  # the source line, redacted
    for secret in (SECRET, SHAPED, SECRET.encode().hex()):
        assert secret not in output


def test_a_crash_before_the_home_is_open_redacts_its_env_values(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in opening the runtime itself: the traceback still knows the home's .env."""
    from hermes_tui import cli, runtime

    (home / ".env").write_text(f"DB_TOKEN={SECRET}\n", encoding="utf-8")

    def failing_open(*args, **kwargs):
        raise Boom(f"could not parse {SECRET[::-1]}")

    monkeypatch.setattr(runtime.Runtime, "open", failing_open)
    for argv in (["sessions", "list"], []):
        assert cli.main(["--home", str(home), *argv]) == 1
        output = "".join(capsys.readouterr())
        assert "Boom: could not parse [REDACTED DB_TOKEN]" in output, output
        assert SECRET[::-1] not in output


async def test_a_crash_in_the_app_redacts_the_source_lines_it_shows(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / ".env").write_text(f"DB_TOKEN={SECRET}\n", encoding="utf-8")
    module = leaky_module(tmp_path, "leaky_app")
    app = make_app(home)
    with pytest.raises(module.Boom):
        async with app.run_test() as pilot:
            app.call_later(module.connect, "x")  # the secrets are in its source alone
            await pilot.pause()
            await pilot.pause()
    printed = capsys.readouterr()
    output = printed.out + printed.err
    assert "fallback = " in output  # the source lines are shown
    assert "[REDACTED DB_TOKEN]" in output and "[REDACTED openai key]" in output, output
    for secret in (SECRET, SHAPED):
        assert secret not in output
    assert (tmp_path / "leaky_app.py").read_text(encoding="utf-8") == LEAKY_SOURCE
