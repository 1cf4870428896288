"""chat -q's command line read without argparse means what argparse makes of it, or is left to it."""

from __future__ import annotations

import argparse

import pytest

from hermes_tui import cli_quick
from hermes_tui.cli_args import build_parser
from hermes_tui.cli_quick import parse_chat

# Each is read by cli_quick: the namespace must be argparse's, attribute for attribute.
PLAIN = [
    ["chat", "-q", "hi"],
    ["--home", "/h", "chat", "-q", "hi"],
    ["chat", "--query", ""],
    ["chat", "-q", "chat"],
    ["--home", "a", "chat", "--home", "b", "-q", "x"],
    ["--home", "chat", "chat", "-q", "x"],
    ["--provider", "openai", "--model", "m", "--base-url", "http://x", "chat", "-q", "x"],
    ["--mode", "strict", "chat", "-q", "x", "--mode", "plan"],
    ["--no-sandbox", "chat", "-q", "x", "--no-sandbox"],
    ["chat", "-q", "a", "-q", "b", "--session", "abc", "--yolo", "--json"],
    ["chat", "--continue", "--continue", "-q", "x", "--stream-json", "--stream-json"],
    ["chat", "-s", "one", "--skill", "two", "-q", "x", "-s", "one"],
    ["chat", "-q", "hi\x1b]52;c;ZWNobyBwd25lZA==\x07 $(rm -rf ~) `id`; --yolo"],
    ["chat", "-q", "x y", "--model", "gpt 5"],
]

# Each is left to argparse: help, errors, and forms whose meaning argparse decides.
NOT_PLAIN = [
    [],
    ["chat"],
    ["--help"],
    ["chat", "--help"],
    ["--version"],
    ["chat", "-q"],
    ["chat", "-q", "-1"],
    ["chat", "-q", "--json"],
    ["chat", "-qhi"],
    ["chat", "--query=hi"],
    ["chat", "--que", "hi"],
    ["chat", "-q", "x", "--", "y"],
    ["chat", "-q", "x", "extra"],
    ["chat", "-q", "x", "chat"],
    ["chat", "-q", "x", "--mode", "wild"],
    ["chat", "-q", "x", "--session", "a", "--continue"],
    ["chat", "-q", "x", "--json", "--stream-json"],
    ["--yolo", "chat", "-q", "x"],
    ["--demo", "chat", "-q", "x"],
    ["--continue", "chat", "-q", "x"],
    ["--resume", "a", "chat", "-q", "x"],
    ["memory", "show"],
    ["sessions", "list"],
    ["chat", "-q", "x", "-s"],
    ["", "chat", "-q", "x"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_chat_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    quick = parse_chat(argv)
    assert quick is not None
    assert vars(quick) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", NOT_PLAIN, ids=" ".join)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert parse_chat(argv) is None


def test_a_skill_list_is_the_runs_own() -> None:
    first, second = parse_chat(["chat", "-q", "x"]), parse_chat(["chat", "-q", "x"])
    assert first is not None and second is not None
    first.skill.append("mine")
    assert second.skill == []


# The flags cli_quick does not read: a line with one is left to argparse (top level: help,
# version and the app's own; chat: help). A flag added to cli_args must be read by cli_quick
# or listed here.
TOP_LEFT_TO_ARGPARSE = {"-h", "--help", "--version", "--demo", "--resume", "--continue"}
CHAT_LEFT_TO_ARGPARSE = {"-h", "--help"}


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: action for action in parser._actions for flag in action.option_strings}


def test_cli_quick_knows_every_flag_as_argparse_defines_it() -> None:
    top = build_parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    chat = commands.choices["chat"]
    top_flags, chat_flags = _options(top), _options(chat)
    # Every flag is read by cli_quick, or explicitly left to argparse.
    assert set(top_flags) - TOP_LEFT_TO_ARGPARSE == set(cli_quick._COMMON)
    assert set(chat_flags) - CHAT_LEFT_TO_ARGPARSE == set(cli_quick._COMMON) | set(cli_quick._CHAT)
    for flags, table in ((top_flags, cli_quick._COMMON), (chat_flags, cli_quick._COMMON)):
        for flag, (dest, takes_value) in table.items():
            action = flags[flag]
            assert (action.dest, action.nargs is None) == (dest, takes_value), flag
            assert action.nargs in (None, 0) and action.type is None, flag
            assert action.default is (None if flags is top_flags else argparse.SUPPRESS), flag
            assert action.const is (None if takes_value else True), flag
            assert tuple(action.choices or ()) == (cli_quick.MODES if dest == "mode" else ()), flag
    for flag, (dest, takes_value) in cli_quick._CHAT.items():
        action = chat_flags[flag]
        assert (action.dest, action.nargs is None) == (dest, takes_value), flag
        assert action.nargs in (None, 0) and action.type is None and not action.choices, flag
        appends = isinstance(action, argparse._AppendAction)
        assert appends == (dest == "skill"), flag  # the one flag cli_quick appends
        assert action.default == ([] if appends else cli_quick.CHAT_DEFAULTS[dest]), flag
        assert action.required == (dest == "query"), flag  # cli_quick needs -q
        assert action.const is (None if takes_value else True), flag
    groups = {frozenset(a.dest for a in g._group_actions) for g in chat._mutually_exclusive_groups}
    assert groups == {frozenset(pair) for pair in cli_quick._EXCLUSIVE}
    # What cli_quick starts from: the top level's defaults, then chat's own.
    plain = parse_chat(["chat", "-q", "x"])
    assert plain is not None
    for action in top._actions:
        if action.option_strings and action.dest not in ("help", "version"):
            expected = cli_quick.CHAT_DEFAULTS.get(action.dest, action.default)
            assert getattr(plain, action.dest) == expected, action.dest
