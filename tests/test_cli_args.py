"""The command line's grammar: each command's parser is built when chosen, and what the user
reads (help, errors, exit codes) is what a parser built whole up front would say."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from hermes_tui import cli_args

# Help pages, a bad option, a bad command, a missing argument, a bad choice, a clash.
ARGVS = [
    ["--help"],
    ["-h"],
    ["chat", "--help"],
    ["chat", "-q", "x", "--bogus"],
    ["chat", "--bogus"],
    ["chat"],
    ["bogus"],
    ["--mode", "bad", "chat", "-q", "x"],
    ["chat", "-q", "x", "--session", "a", "--continue"],
    ["skills"],
    ["skills", "install", "--help"],
    ["curator", "rollback", "--help"],
    ["eval", "--help"],
    ["mcp", "test", "--help"],
    ["sessions", "export", "1", "--format", "pdf"],
    ["acp", "--print-config", "vim"],
]


def _outcome(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parser.parse_args(argv))
        except SystemExit as stop:
            result = ("exit", stop.code)
    return result, out.getvalue(), err.getvalue()


def _built_whole(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser as argparse makes it when every command is added with add_parser up front."""

    def add_now(self, name, help, build, common) -> None:  # noqa: A002 - argparse's name
        build(self.add_parser(name, help=help, parents=[common]), common)

    with monkeypatch.context() as patch:
        patch.setattr(cli_args._Commands, "add_command", add_now)
        return cli_args.build_parser()


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_help_and_errors_read_as_from_a_parser_built_whole(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    lazy = _outcome(cli_args.build_parser(), argv)
    assert lazy == _outcome(_built_whole(monkeypatch), argv)
    assert lazy[1] or lazy[2]  # each says something


def test_a_run_builds_only_the_chosen_commands_parser() -> None:
    parser = cli_args.build_parser()
    args = parser.parse_args(["--home", "chat", "chat", "-q", "hi", "--json"])
    assert (args.home, args.command, args.query, args.json) == ("chat", "chat", "hi", True)
    commands = next(a for a in parser._actions if isinstance(a, cli_args._Commands))
    built = [n for n, p in dict.items(commands.choices) if isinstance(p, argparse.ArgumentParser)]
    assert built == ["chat"]
    help_text = parser.format_help()  # the command list needs no parser
    assert all(name in help_text for name, _, _ in cli_args.COMMANDS)
    assert [
        n for n, p in dict.items(commands.choices) if isinstance(p, argparse.ArgumentParser)
    ] == ["chat"]
