"""Proof that a command line only reads: what `strict` and `plan` modes run without asking.

The opposite of the policy's question. The policy looks for what is dangerous and can miss a
program that runs programs; this accepts only what it can prove harmless and refuses the rest:
a line made of plain words (no variables, substitutions, globs out of the workspace, here-docs or
writes to files), joined by `|`, `&&`, `||` or `;`, where every command is a known reader with
only harmless options (`find` without `-exec`/`-delete`, `sort` without `-o`, git's read-only
subcommands, …) and every path it names lies inside the working directory. `<program> --version`
and `--help` of a program found on PATH are allowed too. Pure: no I/O besides parsing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from hermes_tui.core.tools.shell_policy.words import node_text, parse

# Programs that only read, and the options that would make them write or run something.
READERS: dict[str, frozenset[str]] = {
    "ls": frozenset(),
    "cat": frozenset(),
    "head": frozenset(),
    "tail": frozenset({"-f", "-F", "--follow"}),
    "wc": frozenset({"--files0-from"}),
    "grep": frozenset(),
    "egrep": frozenset(),
    "fgrep": frozenset(),
    "rg": frozenset({"--pre", "--pre-glob", "-z", "--search-zip"}),
    "find": frozenset(
        {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
    ),
    "pwd": frozenset(),
    "echo": frozenset(),
    "printf": frozenset(),
    "true": frozenset(),
    "false": frozenset(),
    "stat": frozenset(),
    "file": frozenset({"-C", "--compile"}),
    "which": frozenset(),
    "type": frozenset(),
    "tree": frozenset({"-o"}),
    "du": frozenset(),
    "df": frozenset(),
    "sort": frozenset({"-o", "--output", "--compress-program", "-T", "--temporary-directory"}),
    "uniq": frozenset(),
    "cut": frozenset(),
    "tr": frozenset(),
    "diff": frozenset(),
    "cmp": frozenset(),
    "nl": frozenset(),
    "basename": frozenset(),
    "dirname": frozenset(),
    "realpath": frozenset(),
    "readlink": frozenset(),
    "date": frozenset({"-s", "--set"}),
    "whoami": frozenset(),
    "id": frozenset(),
    "uname": frozenset(),
    "column": frozenset(),
    "od": frozenset(),
    "hexdump": frozenset(),
    "strings": frozenset(),
    "tac": frozenset(),
    "rev": frozenset(),
    "seq": frozenset(),
    "test": frozenset(),
    "[": frozenset(),
    "md5sum": frozenset(),
    "sha1sum": frozenset(),
    "sha256sum": frozenset(),
    "jq": frozenset(),
}
# At most this many plain (non-option) arguments: `uniq in out` and `xxd -r in out` write.
MAX_OPERANDS = {"uniq": 1}
GIT_READERS = frozenset(
    {
        "status",
        "log",
        "show",
        "diff",
        "branch",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "blame",
        "describe",
        "shortlog",
        "grep",
        "cat-file",
        "rev-list",
        "reflog",
        "tag",
        "remote",
    }
)
# git options that run programs or read another config.
GIT_UNSAFE = frozenset({"-c", "--config-env", "--exec-path", "--upload-pack", "-p", "--paginate"})
# Subcommand arguments that turn a reader into a writer.
GIT_WRITES = {
    "branch": frozenset({"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy",
                         "--set-upstream-to", "-u", "--unset-upstream", "--edit-description",
                         "-f", "--force"}),
    "tag": frozenset({"-d", "--delete", "-a", "-s", "-m", "-f", "-F", "--force"}),
    "remote": frozenset({"add", "remove", "rm", "rename", "set-url", "set-head", "prune",
                         "update", "set-branches"}),
    "reflog": frozenset({"expire", "delete"}),
    "diff": frozenset({"--output", "--ext-diff", "--textconv"}),
    "show": frozenset({"--output", "--ext-diff", "--textconv"}),
    "log": frozenset({"--output", "--ext-diff", "--textconv"}),
}  # fmt: skip
Resolve = Callable[[str], str] | None
SAFE_REDIRECT_TARGETS = frozenset({"/dev/null", "&1", "&2"})
JOINERS = frozenset({"|", "&&", "||", ";", "\n", "|&"})


@dataclass(frozen=True)
class ReadOnly:
    proven: bool
    reason: str  # why not, when not


def _no(reason: str) -> ReadOnly:
    return ReadOnly(False, reason)


def prove_read_only(
    command: str, cwd: str, workdir: str, realpath: Callable[[str], str] | None = None
) -> ReadOnly:
    """Whether `command` provably only reads inside `workdir` (see the module docstring).
    `realpath`, when given, also resolves each path (a link in the workspace to ~/.ssh is
    outside it); without it the function does no I/O."""
    if not command.strip():
        return ReadOnly(True, "")
    root = parse(command)
    if root.has_error:
        return _no("the command does not parse as bash")
    commands: list = []
    problem = _collect(root, commands)
    if problem:
        return _no(problem)
    for node in commands:
        if isinstance(node, tuple):
            if (problem := _outside(node[1], cwd, workdir, realpath)) is not None:
                return _no(problem)
            continue
        words = [_plain(child) for child in node.children if child.type != "variable_assignment"]
        if any(child.type == "variable_assignment" for child in node.children):
            return _no("it sets variables for the program it runs")
        if any(word is None for word in words):
            return _no("it uses variables, substitutions or quoting that cannot be read here")
        result = _reader(words, cwd, workdir, realpath)  # type: ignore[arg-type]
        if not result.proven:
            return result
    return ReadOnly(True, "")


def _collect(node, commands: list) -> str | None:
    """The simple commands of a line built only of lists, pipelines and harmless redirects."""
    kind = node.type
    if kind in ("program", "list", "pipeline"):
        for child in node.children:
            if child.type in JOINERS or child.type == "comment":
                continue
            if problem := _collect(child, commands):
                return problem
        return None
    if kind == "redirected_statement":
        body, *redirects = node.children
        for redirect in redirects:
            if redirect.type != "file_redirect":
                return "it redirects input from a here-document or another command"
            target = redirect.children[-1]
            operator = next(
                (
                    c.type
                    for c in redirect.children
                    if c.type in (">", ">>", "&>", ">&", "<", "&>>", ">|")
                ),
                None,
            )
            text = node_text(target)
            if operator == "<":
                commands.append(("<", text))  # reading a file: its path is checked
                continue
            if operator in (">&",) and text in ("1", "2"):
                continue
            if text not in SAFE_REDIRECT_TARGETS:
                return f"it writes to {text!r}"
        return _collect(body, commands)
    if kind == "command":
        commands.append(node)
        return None
    return f"it uses `{kind.replace('_', ' ')}`, which strict mode cannot prove harmless"


def _plain(node) -> str | None:
    """The text of a word with no expansion in it, or None."""
    if node.type == "command_name":
        return _plain(node.children[0]) if node.child_count == 1 else None
    if node.type in ("word", "number"):
        text = node_text(node)
        if any(c in text for c in "$`\\") or text.startswith("~"):
            return None
        return text
    if node.type == "raw_string":
        return node_text(node)[1:-1]
    if node.type == "string":
        if any(c.type not in ('"', "string_content") for c in node.children):
            return None
        return "".join(node_text(c) for c in node.children if c.type == "string_content")
    if node.type == "concatenation":
        parts = [_plain(c) for c in node.children]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    return None


def _reader(words: list[str], cwd: str, workdir: str, realpath: Resolve) -> ReadOnly:
    program, *args = words
    if "/" not in program and args and all(a in ("--version", "-V", "--help", "-h") for a in args):
        return ReadOnly(True, "")
    name = program
    if name == "git":
        return _git(args, cwd, workdir, realpath)
    if "/" in program or name not in READERS:
        return _no(f"{program} is not a program strict mode knows to only read")
    unsafe = READERS[name]
    operands = 0
    for arg in args:
        option = arg.split("=", 1)[0]
        if option in unsafe or (name == "find" and arg.startswith("-fprint")):
            return _no(f"{name} {option} can write or run a program")
        if arg.startswith("-") and arg != "-":
            continue
        operands += 1
        if (problem := _outside(arg, cwd, workdir, realpath)) is not None:
            return _no(problem)
    if operands > MAX_OPERANDS.get(name, 10_000):
        return _no(f"{name} with {operands} files writes the last one")
    return ReadOnly(True, "")


def _git(args: list[str], cwd: str, workdir: str, realpath: Resolve) -> ReadOnly:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i].split("=", 1)[0]
        if option in GIT_UNSAFE:
            return _no(f"git {option} can run another program")
        if option in ("-C", "--git-dir", "--work-tree"):
            value = (
                args[i].split("=", 1)[1]
                if "=" in args[i]
                else (args[i + 1] if i + 1 < len(args) else "")
            )
            if (problem := _outside(value, cwd, workdir, realpath)) is not None:
                return _no(problem)
            i += 1 if "=" in args[i] else 2
            continue
        i += 1
    if i >= len(args):
        return ReadOnly(True, "")
    sub, rest = args[i], args[i + 1 :]
    if sub not in GIT_READERS:
        return _no(f"git {sub} is not one of git's read-only subcommands")
    writes = GIT_WRITES.get(sub, frozenset())
    for arg in rest:
        if arg.split("=", 1)[0] in writes:
            return _no(f"git {sub} {arg} changes the repository or runs a program")
    if sub == "branch" and any(not a.startswith("-") for a in rest):
        return _no("git branch NAME creates a branch")
    if (
        sub == "tag"
        and any(not a.startswith("-") for a in rest)
        and "-l" not in rest
        and "--list" not in rest
    ):
        return _no("git tag NAME creates a tag")
    if sub == "remote" and any(not a.startswith("-") for a in rest):
        return _no(f"git remote {rest[0]} changes the repository's remotes")
    return ReadOnly(True, "")


def _outside(arg: str, cwd: str, workdir: str, realpath: Resolve) -> str | None:
    """Why a path argument is not inside the working directory (None when it is, or when the
    argument cannot be a path, such as a grep pattern without a slash)."""
    path = posixpath.normpath(posixpath.join(cwd, arg))
    work = posixpath.normpath(workdir)

    def inside(candidate: str) -> bool:
        return candidate == work or candidate.startswith(work.rstrip("/") + "/")

    if not inside(path):
        return f"{arg} is outside the working directory"
    if realpath is not None and not inside(realpath(path)):
        return f"{arg} is a link to {realpath(path)}, outside the working directory"
    return None
