"""`chat -q`'s command line read without argparse, when it is plainly written.

argparse and the gettext it imports are ~0.33 MiB of code a one-shot turn would carry to its
end (bench/oneshot.py). A command line made only of the exact flags below, each value a
separate word not starting with "-", means one thing, and this reads it into the namespace
argparse would make (cli_args.build_parser: tests/test_cli_quick.py compares the two).
Anything else (help, abbreviations, `--flag=value`, a value starting with "-", two flags
argparse would refuse together, an unknown word) returns None and argparse reads it as ever,
so its errors and help are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

# Flags accepted before or after the command (cli_args._common_flags): flag -> (dest, value?).
_COMMON = {
    "--home": ("home", True),
    "--provider": ("provider", True),
    "--model": ("model", True),
    "--base-url": ("base_url", True),
    "--mode": ("mode", True),
    "--no-sandbox": ("no_sandbox", False),
}
MODES = ("sandboxed", "strict", "plan", "yolo")
# chat's own (cli_args._chat); -s/--skill appends.
_CHAT = {
    "-q": ("query", True),
    "--query": ("query", True),
    "--session": ("session", True),
    "--continue": ("continue_", False),
    "--yolo": ("yolo", False),
    "--json": ("json", False),
    "--stream-json": ("stream_json", False),
    "-s": ("skill", True),
    "--skill": ("skill", True),
}
CHAT_DEFAULTS = {
    "query": None,
    "session": None,
    "continue_": False,
    "yolo": False,
    "json": False,
    "stream_json": False,
}
# Pairs argparse refuses together (mutually exclusive groups).
_EXCLUSIVE = (("session", "continue_"), ("json", "stream_json"))


def parse_chat(argv: Sequence[str]) -> SimpleNamespace | None:
    """What `hermes-tui ARGV` means when it is a plainly written `chat` command, else None."""
    values: dict[str, object] = dict.fromkeys(
        ("home", "provider", "model", "base_url", "mode", "no_sandbox", "resume")
    )
    values.update(demo=False, continue_=False, command=None)
    chat: dict[str, object] = {}
    words = list(argv)
    index = 0
    while index < len(words):
        word = words[index]
        flags = _COMMON if values["command"] is None else {**_COMMON, **_CHAT}
        if word == "chat" and values["command"] is None:
            values["command"] = "chat"
            values.update(CHAT_DEFAULTS, skill=[])
            index += 1
            continue
        if word not in flags:
            return None
        dest, takes_value = flags[word]
        if not takes_value:
            value: object = True
            index += 1
        else:
            if index + 1 >= len(words) or words[index + 1].startswith("-"):
                return None
            value = words[index + 1]
            index += 2
        if dest == "mode" and value not in MODES:
            return None
        if dest == "skill":
            values["skill"] = [*values["skill"], value]  # type: ignore[misc]
        else:
            values[dest] = value
        if word in _CHAT:
            chat[dest] = value
    if values["command"] != "chat" or values["query"] is None:
        return None
    if any(first in chat and second in chat for first, second in _EXCLUSIVE):
        return None
    return SimpleNamespace(**values)
