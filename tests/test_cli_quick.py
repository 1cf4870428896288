"""chat -q's command line read without argparse means what argparse makes of it, or is left to it."""

from __future__ import annotations

import pytest

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
