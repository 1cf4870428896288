"""Proof that a command line only reads: what `strict` and `plan` modes run without asking.

The opposite of the policy's question. The policy looks for what is dangerous and can miss a
program that runs programs; this accepts only what it can prove harmless and refuses the rest:
a line made of plain words (no variables, substitutions, globs out of the workspace, here-docs or
writes to files), joined by `|`, `&&`, `||` or `;`, where every command is a known reader with
only harmless options (`find` without `-exec`/`-delete`, `sort` without `-o`, git's read-only
subcommands without `grep -O`, …) and every path it names (an operand, or an option's value such
as `--from-file=PATH`) lies inside the working directory. Places that must not be read even
there (`excluded`: the hermes home, credentials) count as outside, and so does a glob or a
recursive search (`grep -r`, `diff -r`, `rg`) that could reach into them. `<program> --version`
and `--help` of a program found on PATH are allowed too. Pure: no I/O besides parsing.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable, Sequence
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
    # --hostname-bin (ripgrep 14) runs its value to learn the host name for hyperlinks.
    "rg": frozenset({"--pre", "--pre-glob", "-z", "--search-zip", "--hostname-bin"}),
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
    "du": frozenset({"--files0-from"}),
    "df": frozenset(),
    # --files0-from reads the files named in its input: names no proof has seen.
    "sort": frozenset(
        {"-o", "--output", "--compress-program", "-T", "--temporary-directory", "--files0-from"}
    ),
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
# git's own options (before the subcommand) a proof accepts, by exact name as git reads them;
# any other (`-c`, `--config-env`, `--exec-path`, `-p`, `--git-dir`, `--work-tree`, `--bare`,
# `--namespace`, …) runs a program, reads another config or names a repository not judged.
GIT_GLOBAL = frozenset(
    {
        "-C", "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
        "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects",
    }
)  # fmt: skip
# Subcommand arguments that turn a reader into a writer.
GIT_WRITES = {
    "branch": frozenset({"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy",
                         "--set-upstream-to", "-u", "--unset-upstream", "--edit-description",
                         "-f", "--force"}),
    # -v and --show-signature run gpg (or gpg.ssh.program) to verify signatures.
    "tag": frozenset({"-d", "--delete", "-a", "-s", "-m", "-f", "-F", "--force", "-v", "--verify"}),
    "remote": frozenset({"add", "remove", "rm", "rename", "set-url", "set-head", "prune",
                         "update", "set-branches"}),
    "reflog": frozenset({"expire", "delete"}),
    "diff": frozenset({"--output", "--ext-diff", "--textconv"}),
    # -O runs a program ("the pager") on the matching files.
    "grep": frozenset({"-O", "--open-files-in-pager", "--ext-grep", "--textconv"}),
    "show": frozenset({"--output", "--ext-diff", "--textconv", "--show-signature"}),
    "log": frozenset({"--output", "--ext-diff", "--textconv", "--show-signature"}),
    "cat-file": frozenset({"--textconv", "--filters"}),
    "blame": frozenset({"--textconv"}),
}  # fmt: skip
# Long options are matched as git's parse-options and GNU getopt read them: any unambiguous
# prefix of `--open-files-in-pager` (`--open-files-in=`) is that option; short ones in a
# cluster (`-iO./x.sh`, `sort -uo FILE`) count letter by letter.
Resolve = Callable[[str], str] | None
SAFE_REDIRECT_TARGETS = frozenset({"/dev/null", "&1", "&2"})
GLOB = frozenset("*?[")
# Readers that read the contents of whole trees, and the options that make them do so.
RECURSIVE = {
    "grep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "egrep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "fgrep": frozenset({"-r", "-R", "--recursive", "--dereference-recursive"}),
    "diff": frozenset({"-r", "--recursive"}),
}
ALWAYS_RECURSIVE = frozenset({"rg"})
# Short options whose value may be attached (`date -Iseconds`, `sort -k2o`): a cluster is read
# up to one of them, as getopt reads it.
TAKES_VALUE = {"date": "dfrI", "sort": "kSt", "tail": "nc", "head": "nc"}
# Options that exist under exactly this name though they begin another, unsafe one (git diff's
# `--text` and `--textconv`): an exact name is never taken for an abbreviation.
EXACT_SAFE = frozenset({"--text"})
JOINERS = frozenset({"|", "&&", "||", ";", "\n", "|&"})


@dataclass(frozen=True)
class ReadOnly:
    proven: bool
    reason: str  # why not, when not


def _no(reason: str) -> ReadOnly:
    return ReadOnly(False, reason)


def prove_read_only(
    command: str,
    cwd: str,
    workdir: str,
    realpath: Callable[[str], str] | None = None,
    excluded: Sequence[str] = (),
    git_config_risk: str | Callable[[str], str | None] | None = None,
) -> ReadOnly:
    """Whether `command` provably only reads inside `workdir` (see the module docstring).
    `realpath`, when given, also resolves each path (a link in the workspace to ~/.ssh is
    outside it); without it the function does no I/O. Paths under `excluded` count as
    outside even within the workspace. `git_config_risk`: why the repository's own git config
    makes git run a program (a hostile repository's `core.fsmonitor` runs at `git status`,
    `diff.external` at `git diff`); then no git command is proven harmless. As a function it
    is asked about the folder each git command starts in (`-C` applied), and answers for
    every repository git enters from there (nested ones, submodules)."""
    where = _Where(cwd, workdir, realpath, tuple(posixpath.normpath(e) for e in excluded))
    where.git_config_risk = git_config_risk
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
            if (problem := where.outside(node[1])) is not None:
                return _no(problem)
            continue
        words = [_plain(child) for child in node.children if child.type != "variable_assignment"]
        if any(child.type == "variable_assignment" for child in node.children):
            return _no("it sets variables for the program it runs")
        if any(word is None for word in words):
            return _no("it uses variables, substitutions or quoting that cannot be read here")
        result = _reader(words, where)  # type: ignore[arg-type]
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


def _reader(words: list[str], where: _Where) -> ReadOnly:
    program, *args = words
    if "/" not in program and args and all(a in ("--version", "-V", "--help", "-h") for a in args):
        return ReadOnly(True, "")
    name = program
    if name == "git":
        return _git(args, where)
    if "/" in program or name not in READERS:
        return _no(f"{program} is not a program strict mode knows to only read")
    unsafe = READERS[name]
    recursive = name in ALWAYS_RECURSIVE
    operands: list[str] = []
    options_end = value_next = False
    for arg in args:
        if options_end or value_next or not arg.startswith("-") or arg == "-":
            if not value_next:
                operands.append(arg)  # (an option's value, `-f FILE`, is checked as a path too)
            value_next = False
            if (problem := where.outside(arg)) is not None:
                return _no(problem)
            continue
        # grep's `-e PATTERN`, `-d recurse`: the next word is the option's, not a tree.
        value_next = (
            name in RECURSIVE and name != "diff" and arg[1] != "-" and arg[-1] in "efdmABCD"
        )
        if arg == "--":
            options_end = True  # what follows is a file, even when it starts with `-`
            continue
        if (option := _forbidden(name, arg, unsafe)) is not None:
            return _no(f"{name} {option} can write or run a program")
        recursive = recursive or _recursive_option(name, arg)
        if (problem := _option_value(arg, where)) is not None:
            return _no(problem)
    if len(operands) > MAX_OPERANDS.get(name, 10_000):
        return _no(f"{name} with {len(operands)} files writes the last one")
    if recursive:
        # Every operand of diff is a tree; grep's first is its pattern (checked too: with -e it
        # is a tree), and with one or none grep searches ".".
        trees = operands if name == "diff" else [*operands, *(["."] if len(operands) < 2 else [])]
        for tree in trees:
            if (problem := where.holds_excluded(tree)) is not None:
                return _no(problem)
    return ReadOnly(True, "")


def _abbreviates(arg: str, spellings: frozenset[str]) -> str | None:
    """The unsafe long option `arg` names, when it is one or (GNU getopt and git's
    parse-options accept any unambiguous prefix: `--compress` is `--compress-program`) a
    prefix of one; an option that exists under exactly that name is not a prefix."""
    name = arg.split("=", 1)[0]
    if len(name) <= 2 or name in EXACT_SAFE:
        return None
    return next((s for s in sorted(spellings) if s.startswith("--") and s.startswith(name)), None)


def _forbidden(program: str, arg: str, spellings: frozenset[str]) -> str | None:
    """The unsafe option among `spellings` that `arg` is: a long option or a prefix of one, or
    a cluster of short ones (`-uo`, `-To`: each letter counts, and a letter that takes a value
    such as sort's `-k1,2o` may count by mistake: that only asks)."""
    if arg.startswith("--"):
        return _abbreviates(arg, spellings)
    if program == "find":  # find's options are whole words after one dash, never abbreviated
        word = arg.split("=", 1)[0]
        return word if word in spellings or word.startswith("-fprint") else None
    letters = {s[1] for s in spellings if len(s) == 2 and s[0] == "-"}
    for letter in arg[1:]:
        if letter in letters:
            return f"-{letter}"
        if letter in TAKES_VALUE.get(program, ""):
            return None  # the rest of the word is that option's value (`sort -k1,2o`)
    return None


def _recursive_option(name: str, arg: str) -> bool:
    """Whether the option makes grep or diff read whole trees: a short cluster with r or R
    (grep's d too: `-d recurse`), a prefix of a recursive long option, or `--directories`
    (`--dir=rec` abbreviates both the option and its value)."""
    if name not in RECURSIVE:
        return False
    if not arg.startswith("--"):
        return any(c in arg[1:] for c in ("rR" if name == "diff" else "rRd"))
    long = RECURSIVE[name] | ({"--directories"} if name != "diff" else set())
    return _abbreviates(arg, frozenset(long)) is not None


def _option_value(arg: str, where: _Where) -> str | None:
    """Why an option's attached value (`--from-file=PATH`, `-f/PATH`) is a path outside."""
    if arg.startswith("--") and "=" in arg:
        value = arg.split("=", 1)[1]
    elif not arg.startswith("--") and "/" in arg:
        value = arg[arg.index("/") :]
    else:
        return None
    if "/" not in value and not GLOB & set(value) and not value.startswith("."):
        return None  # a word, a number, a pattern: not a path
    return where.outside(value)


def _git(args: list[str], where: _Where) -> ReadOnly:
    if isinstance(where.git_config_risk, str):
        return _no(where.git_config_risk)
    target = where.cwd  # where git starts looking for its repository: `-C` moves it
    i = 0
    while i < len(args) and args[i].startswith("-"):
        option = args[i]
        if option not in GIT_GLOBAL:
            return _no(f"git {option.split('=', 1)[0]} is not an option strict mode can judge")
        if option == "-C":
            value = args[i + 1] if i + 1 < len(args) else ""
            if (problem := where.outside(value)) is not None:
                return _no(problem)
            target = posixpath.normpath(posixpath.join(target, value))
            i += 2
            continue
        i += 1
    # Every repository git enters there (the one it finds from `target`, its submodules)
    # brings a config that may name a program: judged by the caller's function.
    if callable(where.git_config_risk) and (why := where.git_config_risk(target)):
        return _no(why)
    if i >= len(args):
        return ReadOnly(True, "")
    sub, rest = args[i], args[i + 1 :]
    if sub not in GIT_READERS:
        return _no(f"git {sub} is not one of git's read-only subcommands")
    writes = GIT_WRITES.get(sub, frozenset())
    for arg in rest:
        unsafe = _forbidden("git", arg, writes) if arg.startswith("-") else arg in writes
        if unsafe:
            return _no(f"git {sub} {arg} changes the repository or runs a program")
        # Paths (`diff --no-index FILE`, `blame --contents=FILE`) stay inside the workspace.
        if arg.startswith("-"):
            problem = _option_value(arg, where)
        else:
            problem = where.outside(arg) if arg != "/dev/null" else None
        if problem is not None:
            return _no(problem)
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


class _Where:
    """Where a proof may read: inside the workspace, not under an excluded path."""

    def __init__(
        self, cwd: str, workdir: str, realpath: Resolve, excluded: tuple[str, ...]
    ) -> None:
        self.cwd, self.work = cwd, posixpath.normpath(workdir)
        self.realpath, self.excluded = realpath, excluded
        self.git_config_risk: str | Callable[[str], str | None] | None = None

    def _inside(self, candidate: str) -> bool:
        return candidate == self.work or candidate.startswith(self.work.rstrip("/") + "/")

    def _in_excluded(self, candidate: str) -> str | None:
        for path in self.excluded:
            if candidate == path or candidate.startswith(path.rstrip("/") + "/"):
                return path
        return None

    def outside(self, arg: str) -> str | None:
        """Why a path argument may not be read (None when it may, or when the argument cannot
        be a path, such as a grep pattern without a slash)."""
        path = posixpath.normpath(posixpath.join(self.cwd, arg))
        if not self._inside(path):
            return f"{arg} is outside the working directory"
        if (hidden := self._in_excluded(path)) is not None:
            return f"{arg} lies in {hidden}, which commands may not read"
        if GLOB & set(arg) and (hidden := self._glob_reaches(path)) is not None:
            return f"{arg} could match {hidden}, which commands may not read"
        if self.realpath is not None:
            real = self.realpath(path)
            if not self._inside(real):
                return f"{arg} is a link to {real}, outside the working directory"
            if (hidden := self._in_excluded(real)) is not None:
                return f"{arg} is a link into {hidden}, which commands may not read"
        return None

    def holds_excluded(self, tree: str) -> str | None:
        """Why a recursive search of `tree` would read what may not be read."""
        root = posixpath.normpath(posixpath.join(self.cwd, tree))
        for path in self.excluded:
            if path.startswith(root.rstrip("/") + "/") or path == root:
                return f"searching {tree} recursively reads {path}, which commands may not read"
        return None

    def _glob_reaches(self, pattern: str) -> str | None:
        """An excluded path the glob could match, or lie under what it matches (a glob like
        `.*/.env` reaches `.hermes/.env`; `*` never matches a leading dot, as in bash)."""
        wanted = pattern.strip("/").split("/")
        for path in self.excluded:
            parts = path.strip("/").split("/")
            if all(_segment_matches(w, p) for w, p in zip(wanted, parts, strict=False)):
                return path
        return None


def _segment_matches(pattern: str, name: str) -> bool:
    if not GLOB & set(pattern):
        return pattern == name
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)
