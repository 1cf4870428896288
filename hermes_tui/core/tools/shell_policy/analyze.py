"""The walk: every simple command a bash line can run, and what each one would do.

1. Parse with tree-sitter-bash; a parse error is "cannot tell what this runs".
2. Collect literal variable assignments (flow-insensitively: every value a name is given).
3. Walk every node. Pipelines, lists, subshells, groups, loops, functions, substitutions and
   here-docs are descended into; `cd` adds a possible working directory for what follows.
4. Each simple command is resolved to words and judged; wrappers (`nice`, `env`, `xargs`,
   `find -exec`, `bash -c`, `eval`, ...) are unwrapped and their inner command judged too,
   and programs with rules of their own (programs.py) are judged by those.
Findings collect on the shared `Analysis`; the policy in __init__ turns them into a verdict.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.interpreters import Interpreters
from hermes_tui.core.tools.shell_policy.model import (
    CANNOT_TELL,
    MAX_DEPTH,
    NONE,
    SETS_VARIABLES,
    Analysis,
    Finding,
    Scope,
    Stream,
    fetcher_in,
    git_without_globals,
    prefix_matches,
    suggest_prefix,
)
from hermes_tui.core.tools.shell_policy.programs import Programs
from hermes_tui.core.tools.shell_policy.secrets import (
    LISTERS,
    judge_redirect,
    judge_words,
    listed_secrets,
)
from hermes_tui.core.tools.shell_policy.words import Node, Resolver, Word, literal, node_text, parse


class Script(Programs, Interpreters):
    """One bash program (the whole line, or the text of a `bash -c`, `eval`, alias...)."""

    def __init__(self, analysis: Analysis, depth: int, via: str) -> None:
        self.analysis = analysis
        self.rules = analysis.rules
        self.depth = depth
        self.via = via
        self.variables: dict[str, tuple[str, ...] | None] = {"HOME": (self.rules.home,)}
        self.resolver = Resolver(self.variables)
        self.function_stack: list[str] = []
        self.recursive: set[str] = set()

    # ---- entry ---------------------------------------------------------------------------

    def run(self, source: str, cwds: tuple[str, ...] | None, stdin: Stream = NONE) -> None:
        if self.depth > MAX_DEPTH:
            self._unknown(f"commands nested more than {MAX_DEPTH} levels deep")
            return
        if "\x00" in source:
            self._unknown("the command contains a NUL character")
            return
        root = parse(source)
        if root.has_error:
            self._unknown(f"the shell grammar cannot parse it ({_error_hint(root)})")
            return
        self._collect_variables(root, cwds)
        self.statement(root, Scope(cwds), stdin)

    def _unknown(self, why: str) -> None:
        where = f" {self.via}" if self.via else ""
        self.analysis.add(Finding("unknown", f"{CANNOT_TELL}{where}: {why}"))

    # ---- variables ---------------------------------------------------------------------------

    def _collect_variables(self, root: Node, cwds: tuple[str, ...] | None) -> None:
        if cwds is not None:
            self.variables["PWD"] = cwds
        assigned: dict[str, list[Node | None]] = {}
        namerefs = False
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "variable_assignment":
                name = node.child_by_field_name("name")
                value = node.child_by_field_name("value")
                if name is not None:
                    key = node_text(name)
                    if node_text(node).startswith(key + "+="):
                        assigned.setdefault(key, []).append(None)
                    else:
                        assigned.setdefault(key, []).append(value)
            elif node.type == "for_statement":
                var = node.child_by_field_name("variable")
                values = node.children_by_field_name("value")
                if var is not None:
                    assigned.setdefault(node_text(var), []).extend(values or [None])
            elif (
                node.type == "variable_name"
                and node.parent is not None
                and (
                    node.parent.type not in ("variable_assignment", "simple_expansion", "expansion")
                    and node.parent.type not in ("for_statement", "subscript")
                )
            ):
                # Arithmetic, `local x`, `unset x`: set in ways we do not follow.
                assigned.setdefault(node_text(node), []).append(None)
            elif node.type == "declaration_command" and any(
                node_text(c).startswith("-") and "n" in node_text(c) for c in node.children
            ):
                namerefs = True
            elif node.type == "command":
                name = node.child_by_field_name("name")
                if name is not None and node_text(name) in SETS_VARIABLES:
                    for arg in node.children_by_field_name("argument"):
                        assigned.setdefault(node_text(arg), []).append(None)
                if name is not None and node_text(name) in ("cd", "pushd", "popd"):
                    assigned.setdefault("PWD", []).append(None)
            stack.extend(node.children)
        if "IFS" in assigned or namerefs:
            # Word splitting now follows rules we do not model; trust no variable.
            self.variables.clear()
            return
        for _ in range(2):  # a second round resolves A=x; B=$A/y
            for name, nodes in assigned.items():
                values: list[str] = []
                for value_node in nodes:
                    if value_node is None:
                        values = []
                        break
                    word = self.resolver.word(value_node)
                    if word.values is None or word.glob or value_node.type == "array":
                        values = []
                        break
                    values.extend(word.values)
                if values and len(values) <= 32 and nodes:
                    self.variables[name] = tuple(dict.fromkeys(values))
                else:
                    self.variables[name] = None
        for name in [n for n, v in self.variables.items() if v is None]:
            del self.variables[name]

    # ---- statements --------------------------------------------------------------------------

    def statement(self, node: Node, scope: Scope, stdin: Stream) -> Stream:
        kind = node.type
        if kind == "command":
            return self.command(node, scope, stdin, ())
        if kind == "pipeline":
            return self.pipeline(node.named_children, scope, stdin)
        if kind == "redirected_statement":
            return self.redirected(node, scope, stdin)
        if kind in ("subshell", "command_substitution", "process_substitution"):
            inner = scope.copy()
            for child in node.named_children:
                self.statement(child, inner, NONE)
            return (
                Stream("unknown", source="a subshell") if _has_fetch(node) is None else _net(node)
            )
        if kind == "function_definition":
            return self.function(node, scope)
        if kind == "for_statement":
            values = [self.resolver.word(v) for v in node.children_by_field_name("value")]
            # `for f in ~/.ssh/*; do cat "$f"; done`: the loop hands those paths to its body.
            for finding in judge_words("for", values, scope.cwds, self.rules.home, "for"):
                self.analysis.add(replace(finding, prefix=None))
        if kind == "variable_assignment":
            self.assignment(node, scope)
            return NONE
        if kind == "heredoc_body" or kind == "herestring_redirect":
            for child in node.named_children:
                self.statement(child, scope.copy(), NONE)
            return NONE
        if kind == "list":
            children = node.named_children
            for child in children:
                self.statement(child, scope, stdin)
            return NONE
        for child in node.named_children:
            self.statement(child, scope, stdin)
        return NONE

    def pipeline(self, stages: Sequence[Node], scope: Scope, stdin: Stream) -> Stream:
        flowing = stdin
        for stage in stages:
            # Each stage runs in its own subshell: a `cd` there does not leak out.
            flowing = self.statement(stage, scope.copy(), flowing)
        return flowing

    def redirected(self, node: Node, scope: Scope, stdin: Stream) -> Stream:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c.type.endswith("redirect")]
        stdin, after, writes = self.redirects(redirects, scope, stdin)
        out = self.statement(body, scope, stdin) if body is not None else NONE
        for path in writes:
            self._record_write(path, out, scope)
        if after:
            out = self.pipeline(after, scope, out)
        return out

    def redirects(
        self, redirects: Sequence[Node], scope: Scope, stdin: Stream
    ) -> tuple[Stream, list[Node], list[str]]:
        """Judge redirect targets; return the new stdin, pipeline stages that follow a
        here-doc (`cat <<EOF | sh`), and the files stdout is written to."""
        after: list[Node] = []
        writes: list[str] = []
        for redirect in redirects:
            if redirect.type == "heredoc_redirect":
                body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
                if body is not None:
                    self.statement(body, scope.copy(), NONE)
                    stdin = Stream("literal", node_text(body), "a here-document")
                    if any(c.type != "heredoc_content" for c in body.named_children):
                        stdin = Stream("unknown", source="a here-document with substitutions")
                for child in redirect.named_children:
                    if child.type in ("pipeline", "command", "list", "redirected_statement"):
                        after.append(child)
                continue
            if redirect.type == "herestring_redirect":
                for child in redirect.named_children:
                    self.statement(child, scope.copy(), NONE)
                    word = self.resolver.word(child)
                    stdin = (
                        Stream("literal", word.values[0] + "\n", "a here-string")
                        if word.value is not None
                        else Stream("unknown", source="a here-string")
                    )
                continue
            destination = redirect.child_by_field_name("destination")
            operator = "".join(
                node_text(c) for c in redirect.children if not c.is_named and c.type != "ERROR"
            )
            if destination is None:
                continue
            self.statement(destination, scope.copy(), NONE)
            word = self.resolver.word(destination)
            for finding in judge_redirect(word, operator, scope.cwds, self.rules.home):
                self.analysis.add(finding)
            for value in word.values or ():
                kind = cmds.device_kind(value)
                if kind == "network":
                    self.analysis.add(
                        Finding("network", f"opens a network connection through {value}")
                    )
                elif kind == "device" and ">" in operator:
                    self.analysis.add(
                        Finding("device", f"writes straight to the device {value}", None)
                    )
            if ">" in operator and "&" not in operator.replace("&>", ""):
                if word.value is not None and not word.value.isdigit():
                    writes.append(word.value)
            elif operator.startswith("<") and word.value is not None:
                written = self.analysis.written.get(word.value)
                if word.value in self.analysis.written:
                    stdin = (
                        Stream("literal", written, word.value)
                        if written is not None
                        else Stream("unknown", source=word.value)
                    )
                else:
                    stdin = Stream("unknown", source=word.value)
        return stdin, after, writes

    def _record_write(self, path: str, out: Stream, scope: Scope) -> None:
        if out.kind == "network":
            self.analysis.downloaded.add(path)
        self.analysis.written[path] = out.text if out.kind == "literal" else None

    def function(self, node: Node, scope: Scope) -> Stream:
        name_node = node.child_by_field_name("name")
        name = node_text(name_node) if name_node is not None else ""
        self.function_stack.append(name)
        for child in node.named_children:
            if child is not name_node:
                self.statement(child, scope.copy(), NONE)
        self.function_stack.pop()
        if name in self.recursive and _forks(node.child_by_field_name("body")):
            self.analysis.add(
                Finding(
                    "fork bomb",
                    f"defines {name}(), which starts copies of itself in a pipe or the "
                    "background without end: a fork bomb",
                )
            )
        return NONE

    def assignment(self, node: Node, scope: Scope) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if value_node is not None:
            self.statement(value_node, scope.copy(), NONE)
        if name_node is None:
            return
        word = self.resolver.word(value_node) if value_node is not None else literal("")
        self.env_assignment(node_text(name_node), word, scope)

    def env_assignment(self, name: str, word: Word, scope: Scope) -> None:
        if name in cmds.CODE_LOADING_VARIABLES and word.value != "":
            self._unknown(f"{name} makes programs load code from {word.text or 'elsewhere'}")
        elif name in cmds.COMMAND_VARIABLES:
            if word.value is None:
                self._unknown(f"{name} is set to a command only known when it runs")
            elif word.value.strip():
                self.nested(word.value.lstrip("|").replace("%s", "FILE"), scope, f"in {name}")

    def nested(self, source: str, scope: Scope, via: str, stdin: Stream = NONE) -> None:
        """Analyse shell text that something here will run (bash -c, eval, an alias...)."""
        inner = Script(self.analysis, self.depth + 1, via)
        inner.run(source, scope.cwds, stdin)

    # ---- simple commands ---------------------------------------------------------------------

    def command(
        self, node: Node, scope: Scope, stdin: Stream, env: tuple[tuple[str, Word], ...]
    ) -> Stream:
        name_node = node.child_by_field_name("name")
        redirects = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child, scope)
            elif child.type.endswith("redirect"):
                redirects.append(child)
            elif child is name_node:
                for inner in child.named_children:
                    self.statement(inner, scope.copy(), NONE)
            else:
                self.statement(child, scope.copy(), NONE)
        if redirects:
            stdin, _after, _writes = self.redirects(redirects, scope, stdin)
        if name_node is None:
            return NONE
        argv = [self.resolver.word(name_node)]
        argv += [self.resolver.word(a) for a in node.children_by_field_name("argument")]
        return self.invoke(argv, scope, stdin)

    def invoke(self, argv: Sequence[Word], scope: Scope, stdin: Stream) -> Stream:
        if not argv:
            return NONE
        name, args = argv[0], list(argv[1:])
        if name.values is None:
            if fetcher_in(name.sources):
                self._network(f"runs a command named by the output of {fetcher_in(name.sources)}")
            else:
                self._unknown(f"the command name {name.text} is only known when it runs")
            return Stream("unknown", source=name.text)
        if name.glob:
            self._unknown(f"the command name {name.text} is a pattern the shell expands")
            return Stream("unknown", source=name.text)
        out = NONE
        for value in name.values:
            expanded = cmds.brace_expand(value)
            if expanded is None:
                self._unknown(f"the command name {name.text} expands to too many words")
            elif len(expanded) > 1:
                out = self.invoke([literal(w) for w in expanded] + args, scope, stdin)
            else:
                out = self.invoke_one(value, args, scope, stdin)
        return out

    def invoke_one(self, path: str, args: list[Word], scope: Scope, stdin: Stream) -> Stream:
        base = posixpath.basename(path) or path
        base = self.analysis.renames.get(base, base)
        if path.startswith("/proc/") or path.startswith("/dev/fd/"):
            self._unknown(f"{path} is a program only known when it runs")
            return Stream("unknown", source=path)
        words = [path, *(a.value for a in args)]
        rules = self.rules
        if all(w is not None for w in words):
            known = [w for w in words if w is not None]
            forms = [known, [base, *known[1:]]]
            if base == "git" and (plain := git_without_globals([base, *known[1:]])) is not None:
                forms.append(plain)  # `git -C . push` is still `git push` to a deny rule
            for rule in rules.deny:
                if any(prefix_matches(rule, form) for form in forms):
                    self.analysis.add(
                        Finding("deny", f"matches the terminal.deny rule {' '.join(rule)!r}")
                    )
        own: list[Finding] = _Targeted(" ".join([path, *(a.text for a in args)]))
        if cmds.unwrap(base, args) is None:
            # A wrapper's words are the command it runs: judged when that one is.
            own += judge_words(base, args, scope.cwds, self.rules.home, suggest_prefix(base, args))
        mark = len(self.analysis.findings)
        out = self.judge(base, path, args, scope, stdin, own)
        if base in LISTERS:
            folder = listed_secrets(args, scope.cwds, self.rules.home)
            if folder is not None:
                out = replace(out, names=folder)
        allowed = None
        if own and all(w is not None for w in words):
            known = [w for w in words if w is not None]
            allowed = next(
                (
                    rule
                    for rule in rules.allow
                    if prefix_matches(rule, known) or prefix_matches(rule, [base, *known[1:]])
                ),
                None,
            )
        if allowed is None and own and rules.grants:
            own = self._ungranted(base, path, args, own)
            if not own:
                return out
        if allowed is not None:
            self.analysis.allowed_by.append(" ".join(allowed))
        else:
            # The command's own findings come before those of what it runs.
            fresh = [f for f in own if f not in self.analysis.findings]
            self.analysis.findings[mark:mark] = list(dict.fromkeys(fresh))
        return out

    def _ungranted(
        self, base: str, path: str, args: list[Word], own: list[Finding]
    ) -> list[Finding]:
        """`own` without the findings a session grant covers (noting the grants used)."""
        if any(a.value is None for a in args):
            return own
        known = [a.value or "" for a in args]
        forms = [[path, *known], [base, *known]]
        if base == "git" and (plain := git_without_globals([base, *known])) is not None:
            forms.append(plain)
        left: list[Finding] = []
        for finding in own:
            grant = next(
                (g for g in self.rules.grants if g.covers(finding, forms, self.rules.realpath)),
                None,
            )
            if grant is None:
                left.append(finding)
            else:
                self.analysis.allowed_by.append(grant.describe())
        return left

    def _network(self, why: str, own: list[Finding] | None = None, prefix: str | None = None):
        finding = Finding("network", why, prefix)
        if own is None:
            self.analysis.add(finding)
        else:
            own.append(finding)

    def judge(
        self,
        base: str,
        path: str,
        args: list[Word],
        scope: Scope,
        stdin: Stream,
        own: list[Finding],
    ) -> Stream:
        """Findings for one program run with `args`; inner commands are judged recursively."""
        prefix = suggest_prefix(base, args)
        if base in self.function_stack:
            self.recursive.add(base)
        if base in cmds.PRIVILEGE:
            own.append(
                Finding(
                    "privilege",
                    f"runs a command with root or another user's rights ({base})",
                    prefix,
                    # No target: the whole command line is (_Targeted), so a session grant
                    # covers exactly this line as root again, never another program or args.
                )
            )
            if base in ("su", "sg"):
                options, _rest = cmds.split_options(args, ("-c", "--command", "-s", "--shell"))
                for option, value in options:
                    if option in ("-c", "--command") and value is not None:
                        self._script_text(value, scope, f"inside {base} -c", stdin)
                return NONE
        unwrapped = cmds.unwrap(base, args)
        if unwrapped is not None:
            return self._run_unwrapped(base, unwrapped, scope, stdin)
        if base in cmds.SHELLS:
            return self._shell(base, args, scope, stdin, own, prefix)
        family = cmds.interpreter_family(base)
        if family is not None:
            return self._interpreter(base, family, args, scope, stdin, own, prefix)
        handler = getattr(self, "_cmd_" + re.sub(r"\W", "_", base), None)
        if handler is not None:
            return handler(base, args, scope, stdin, own, prefix)
        if base.startswith("mkfs") or base in cmds.DEVICE_TOOLS:
            own.append(Finding("device", f"formats or repartitions a disk ({base})", prefix))
        elif base in cmds.POWER:
            own.append(Finding("system", f"shuts down or restarts the machine ({base})", prefix))
        if "/" in path:
            self._runs_file(path, scope, own, f"runs {path}")
        return Stream("unknown", source=base)


class _Targeted(list):
    """A command's own findings; one added without a target gets the whole command as its
    target, so a session grant for it covers that same command again and nothing else."""

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command

    def append(self, finding: Finding) -> None:
        if finding.target is None and finding.prefix is not None:
            finding = replace(finding, target=self.command)
        super().append(finding)

    def __iadd__(self, findings):  # type: ignore[override]
        for finding in findings:
            self.append(finding)
        return self


def _has_fetch(node: Node) -> str | None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command_name":
            name = posixpath.basename(node_text(current).strip("'\""))
            if name in cmds.FETCHERS:
                return name
        stack.extend(current.children)
    return None


def _net(node: Node) -> Stream:
    return Stream("network", source=_has_fetch(node) or "a download")


def _forks(body: Node | None) -> bool:
    if body is None:
        return False
    stack = [body]
    while stack:
        current = stack.pop()
        if current.type == "pipeline" or (not current.is_named and current.type == "&"):
            return True
        stack.extend(current.children)
    return False


def _error_hint(root: Node) -> str:
    stack = [root]
    while stack:
        node = stack.pop(0)
        if node.type == "ERROR" or node.is_missing:
            text = node_text(node).strip()[:30]
            return f"near {text!r}" if text else f"at byte {node.start_byte}"
        stack.extend(node.children)
    return "unbalanced quotes or brackets"
