"""`hermes-tui pending list` over held writes whose text carries terminal escape sequences."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_main

from hermes_tui.core.pending import PendingStore

ESC = "\x1b"


def stage_hostile_write(home: Path) -> None:
    PendingStore(home / "pending").stage(
        review_id=f"r1{ESC}]0;pwned\x07",
        kind="memory",
        target=f"memory{ESC}[2J",
        action="add",
        tool="memory",
        arguments={"content": f"new{ESC}]52;c;aGk=\x07"},
        before=f"old fact{ESC}[31m",
        after=f"new fact{ESC}]52;c;aGk=\x07\n\x9b2Jsecond line",
        origin="agent",
        reason=f"tainted{ESC}[H",
    )


def test_pending_list_shows_escape_sequences_in_a_held_write_instead_of_obeying_them(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stage_hostile_write(home)
    listing = run_main(capsys, home, "pending", "list")
    assert listing.returncode == 0, listing.stderr
    out = listing.stdout
    assert ESC not in out and "\x07" not in out and "\x9b" not in out
    assert "memory␛[2J add" in out
    assert "    -old fact␛[31m" in out
    assert "    +new fact␛]52;c;aGk=␇" in out and "    +␛[2Jsecond line" in out


def test_the_pending_command_neutralises_what_it_prints_whatever_its_stream(
    home: Path, capsys
) -> None:
    # main() wraps stdout too; the command must not depend on that (it is the text an
    # attacker chose), so it is called here on a plain stream.
    from hermes_tui import cli, cli_chat
    from hermes_tui.cli_args import build_parser

    stage_hostile_write(home)
    args = build_parser().parse_args(["pending", "list", "--home", str(home)])
    assert cli_chat.cmd_pending(args, cli._open_runtime) == 0
    out = capsys.readouterr().out
    assert ESC not in out and "\x9b" not in out
    assert "+new fact␛]52;c;aGk=␇" in out


def test_a_held_write_names_its_source_once_by_kind_not_by_searching_the_reason() -> None:
    import io

    from hermes_tui.cli_sink import ConsoleSink
    from hermes_tui.core.events import WriteHeld

    # Held for copying a tool result: the reason names the call (in its own words), so the
    # source is not added again; held for the conversation's taint: the source is added.
    copied = WriteHeld(
        *("p1", "memory", "memory", "add", "agent"),
        "copies 9 consecutive words of a tool result: read_file(path='notes.md')",
        "read_file(path='/home/u/notes.md')",
        copies=True,
    )
    tainted = WriteHeld(
        *("p2", "memory", "memory", "add", "agent"),
        "tainted: the conversation read untrusted content",
        "web_fetch(url='https://x.example'): a web page",
    )
    err = io.StringIO()
    sink = ConsoleSink(io.StringIO(), err, stream_text=False)
    sink(copied)
    sink(tainted)
    first, second = [line for line in err.getvalue().splitlines() if "held for approval" in line]
    assert "/home/u/notes.md" not in first
    assert "untrusted content — web_fetch(url='https://x.example'): a web page)" in second
