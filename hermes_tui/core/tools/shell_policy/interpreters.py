"""How the walk judges programs that run other code: wrappers (env, nice, timeout…),
shells and interpreters given inline code, a script file or code on stdin.

`Interpreters` is mixed into `analyze.Script`, whose walk (`invoke`, `nested`, `_unknown`,
`judge`, ...) it uses for what it finds inside.
"""

from __future__ import annotations

from collections.abc import Sequence

from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.model import (
    NONE,
    Finding,
    Scope,
    Stream,
    fetcher_in,
)
from hermes_tui.core.tools.shell_policy.secrets import code_secret
from hermes_tui.core.tools.shell_policy.words import Word


class Interpreters:
    def _run_unwrapped(
        self, base: str, unwrapped: cmds.Unwrapped, scope: Scope, stdin: Stream
    ) -> Stream:
        if unwrapped.dry or not unwrapped.argv:
            return NONE
        inner_scope = scope
        if unwrapped.chdir is not None:
            inner_scope = scope.copy()
            inner_scope.cd(unwrapped.chdir, self.rules.home)
        for name, value in unwrapped.assignments:
            self.env_assignment(name, value, scope)
        return self.invoke(unwrapped.argv, inner_scope, stdin)

    def _script_text(self, word: Word, scope: Scope, via: str, stdin: Stream = NONE) -> None:
        if word.value is None:
            fetcher = fetcher_in(word.sources)
            if fetcher:
                self._network(f"runs what {fetcher} downloads ({via})")
            else:
                self._unknown(f"the script {via} is only known when it runs ({word.text})")
            return
        self.nested(word.value, scope, via, stdin)

    def _shell(
        self,
        base: str,
        args: list[Word],
        scope: Scope,
        stdin: Stream,
        own: list[Finding],
        prefix: str,
    ) -> Stream:
        source = cmds.shell_source(args)
        if source.kind == "inline" and source.code is not None:
            self._script_text(source.code, scope, f"inside {base} -c")
        elif source.kind == "file" and source.code is not None:
            self._script_file(base, "shell", source.code, scope, own)
        elif source.kind == "stdin":
            self._program_from_stdin(base, "shell", stdin, scope, own)
        return Stream("unknown", source=base)

    def _interpreter(
        self,
        base: str,
        family: str,
        args: list[Word],
        scope: Scope,
        stdin: Stream,
        own: list[Finding],
        prefix: str,
    ) -> Stream:
        source = cmds.program_source(family, args)
        if source.kind == "inline" and source.code is not None:
            self._inline_code(base, family, source.code, args)
        elif source.kind == "file" and source.code is not None:
            self._script_file(base, family, source.code, scope, own)
        elif source.kind == "stdin" and family != "awk":
            self._program_from_stdin(base, family, stdin, scope, own)
        return Stream("unknown", source=base)

    def _inline_code(self, base: str, family: str, code: Word, args: Sequence[Word]) -> None:
        if code.value is None:
            fetcher = fetcher_in(code.sources)
            if fetcher:
                self._network(f"runs code downloaded by {fetcher} with {base}")
            else:
                self._unknown(f"the {base} code is only known when it runs")
            return
        what = code_secret(code.value)
        if what is not None:
            self.analysis.add(
                Finding("secret", f"the inline {base} code names a secret file ({what})")
            )
        extra = " ".join(a.value for a in args if a.value and a.value.startswith("-M"))
        hit = cmds.risky_code(family, code.value + " " + extra)
        if hit is not None:
            self._unknown(f"the inline {base} code uses {hit}, which can run or delete anything")

    def _script_file(
        self, base: str, family: str, script: Word, scope: Scope, own: list[Finding]
    ) -> None:
        if script.value is None:
            fetcher = fetcher_in(script.sources)
            if fetcher:
                own.append(Finding("network", f"runs what {fetcher} downloads with {base}"))
            elif script.sources:
                self._unknown(f"{base} runs the output of {', '.join(sorted(script.sources))}")
            return
        self._runs_file(script.value, scope, own, f"{base} runs {script.value}", family)

    def _runs_file(
        self, path: str, scope: Scope, own: list[Finding], what: str, family: str = "shell"
    ) -> None:
        analysis = self.analysis
        if path in analysis.downloaded or (
            "*" in analysis.downloaded and not path.startswith("/usr/")
        ):
            own.append(Finding("network", f"downloads a file and runs it in one line ({what})"))
            return
        if path in analysis.written:
            text = analysis.written[path]
            if text is None:
                self._unknown(f"{what}, written earlier in this line with content we cannot see")
            elif family == "shell":
                self.nested(text, scope, f"in {path}")
            else:
                hit = cmds.risky_code(family, text)
                if hit is not None:
                    self._unknown(f"{what}, whose code uses {hit}")

    def _program_from_stdin(
        self, base: str, family: str, stdin: Stream, scope: Scope, own: list[Finding]
    ) -> None:
        if stdin.kind == "network":
            own.append(
                Finding(
                    "network",
                    f"feeds what {stdin.source} downloads into {base}",
                    base,
                    f"{stdin.target or stdin.source} | {base}",
                )
            )
        elif stdin.kind == "literal":
            if family == "shell":
                self.nested(stdin.text, scope, f"in the script fed to {base}")
            else:
                hit = cmds.risky_code(family, stdin.text)
                if hit is not None:
                    self._unknown(f"the {base} code fed on stdin uses {hit}")
        elif stdin.kind == "unknown":
            self._unknown(f"{base} reads its program from {stdin.source or 'a pipe'}")
