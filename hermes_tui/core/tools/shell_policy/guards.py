"""Questions the approval modes ask besides the policy's: does a command reach for hermes-tui
itself, and would it destroy work inside the workspace (which the sandbox leaves writable)?

Both look at every simple command of the line, however nested (`bash -c` bodies are parsed
too, through the policy's own parser). A word that cannot be known (a variable, a substitution)
counts against the command: these guards ask, they never allow.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

from hermes_tui.core.tools.shell_policy.readonly import _plain
from hermes_tui.core.tools.shell_policy.words import parse

SELF = re.compile(r"hermes[-_]tui")
SHELLS = frozenset({"bash", "sh", "zsh", "dash"})


def _commands(command: str, depth: int = 0) -> Iterator[list[str | None]]:
    """The words of every simple command (None for a word that cannot be known)."""
    root = parse(command)
    pending = [root]
    while pending:
        node = pending.pop()
        if node.type == "command":
            words = [_plain(c) for c in node.children if c.type != "variable_assignment"]
            yield words
            if depth < 3 and words and words[0] in SHELLS and "-c" in words[1:]:
                index = words.index("-c")
                if index + 1 < len(words) and words[index + 1] is not None:
                    yield from _commands(words[index + 1], depth + 1)  # type: ignore[arg-type]
        pending.extend(node.children)


def reaches_hermes(command: str, hermes_home: str, cwd: str | None = None) -> str | None:
    """Why `command` touches hermes-tui's own state or program, or None. With `cwd`, a path
    relative to it counts too (`.hermes/config.yaml` when the home lies in the workspace)."""
    text = command
    if SELF.search(text):
        return "it runs hermes-tui itself (approving its own held writes is for a human)"
    home = posixpath.normpath(hermes_home)
    if home and home != "/" and home in text:
        return f"it names the hermes home ({home}), where memory, skills and config live"
    if "HERMES_HOME" in text:
        return "it names $HERMES_HOME, where memory, skills and config live"
    if cwd is not None and home and home != "/" and not parse(command).has_error:
        for word in [w for words in _commands(command) for w in words] + _redirects(command):
            if word is not None:
                # `--home=.hermes`, `of=.hermes/x`: the value after `=` is a path too.
                for candidate in {word, word.split("=", 1)[-1]}:
                    if "/" not in candidate and not candidate.startswith("."):
                        continue  # a word, not a path (`echo 1` in the home itself)
                    path = posixpath.normpath(posixpath.join(cwd, candidate))
                    if path == home or path.startswith(home.rstrip("/") + "/"):
                        return (
                            f"it names the hermes home ({candidate} is in {home}), where memory, "
                            "skills and config live"
                        )
    return None


def _redirects(command: str) -> list[str | None]:
    """The targets of every file redirection in the line (`> .hermes/x`)."""
    found: list[str | None] = []
    pending = [parse(command)]
    while pending:
        node = pending.pop()
        if node.type == "file_redirect" and node.children:
            found.append(_plain(node.children[-1]))
        pending.extend(node.children)
    return found


def destroys_work(
    command: str,
    cwd: str,
    workdir: str,
    tracked: Callable[[str], bool],
    dirty: Callable[[], bool],
) -> str | None:
    """Why `command` would throw away work in the workspace, or None. `tracked(path)` says
    whether git tracks files at or under a path; `dirty()` whether there are uncommitted
    changes (both only asked when needed)."""
    for words in _commands(command):
        if not words or words[0] is None:
            continue
        program = posixpath.basename(words[0])
        args = words[1:]
        if program == "rm" and _recursive(args):
            targets = [a for a in args if a is None or not a.startswith("-")]
            for target in targets:
                if target is None:
                    return "it deletes folders recursively, and which ones cannot be known"
                path = posixpath.normpath(posixpath.join(cwd, target))
                inside = path == workdir or path.startswith(workdir.rstrip("/") + "/")
                if inside and tracked(path):
                    return f"it deletes {target}, which holds files git tracks"
        if program == "git":
            known = [a for a in args if a is not None]
            sub = next((a for a in known if not a.startswith("-")), None)
            if sub == "clean" and any(
                re.fullmatch(r"-[a-zA-Z]*f[a-zA-Z]*", a) or a == "--force" for a in known
            ):
                return "git clean -f deletes untracked files for good"
            if sub == "reset" and "--hard" in known and dirty():
                return "git reset --hard throws away uncommitted changes"
            if sub in ("checkout", "restore") and ("." in known or "--" in known) and dirty():
                return f"git {sub} over paths throws away uncommitted changes"
            if sub == "stash" and any(a in ("drop", "clear") for a in known):
                return "git stash drop/clear deletes saved changes"
    return None


def _recursive(args: list[str | None]) -> bool:
    for arg in args:
        if arg is None:
            continue
        if arg in ("--recursive",) or re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*", arg):
            return True
    return False


def quote(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)
