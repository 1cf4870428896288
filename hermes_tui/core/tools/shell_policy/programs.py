"""Rules for particular programs: `_cmd_<name>` methods the walk calls by program name.

`Programs` is mixed into `analyze.Script`, whose walk helpers (`invoke`, `nested`,
`_unknown`, `_script_text`, `_runs_file`, ...) these rules use to judge inner commands.
Each takes (base, args, scope, stdin, own, prefix), appends its own findings to `own`, and
returns what the program writes to stdout.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.model import NONE, Finding, Scope, Stream, fetcher_in
from hermes_tui.core.tools.shell_policy.secrets import METADATA_ONLY
from hermes_tui.core.tools.shell_policy.services import ServicePrograms
from hermes_tui.core.tools.shell_policy.words import Word, literal


class Programs(ServicePrograms):
    def _cmd_eval(self, base, args, scope, stdin, own, prefix) -> Stream:
        if all(a.value is not None for a in args):
            self.nested(" ".join(a.value or "" for a in args), scope, "inside eval", stdin)
            return NONE
        sources = frozenset().union(*(a.sources for a in args))
        fetcher = fetcher_in(sources)
        if fetcher:
            self._network(f"runs what {fetcher} downloads (eval)")
        elif not (sources and sources <= cmds.ENV_PRINTERS):
            text = " ".join(a.text for a in args)
            self._unknown(f"eval runs text only known when it runs ({text})")
        return NONE

    def _cmd_source(self, base, args, scope, stdin, own, prefix) -> Stream:
        if args:
            self._script_file(base, "shell", args[0], scope, own)
        return NONE

    _cmd__ = _cmd_source  # `.` resolves to "_"

    def _cmd_alias(self, base, args, scope, stdin, own, prefix) -> Stream:
        for arg in args:
            if arg.value is None:
                self._unknown(f"an alias is set to text only known when it runs ({arg.text})")
            elif "=" in arg.value:
                name, _, body = arg.value.partition("=")
                self.nested(body, scope, f"in the alias {name}")
        return NONE

    def _cmd_trap(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(args, ())
        if rest and not any(name in ("-l", "-p") for name, _ in options):
            self._script_text(rest[0], scope, "in a trap")
        return NONE

    def _cmd_watch(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(
            args, ("-n", "--interval", "-d", "--differences", "-q", "--equexit")
        )
        if any(name in ("-x", "--exec") for name, _ in options):
            return self.invoke(rest, scope, NONE)
        if rest:
            if all(a.value is not None for a in rest):
                self.nested(" ".join(a.value or "" for a in rest), scope, "inside watch")
            else:
                self._unknown("watch runs text only known when it runs")
        return NONE

    def _cmd_script(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, _rest = cmds.split_options(args, ("-c", "--command", "-t", "-T", "-I", "-O"))
        for name, value in options:
            if name in ("-c", "--command") and value is not None:
                self._script_text(value, scope, "inside script -c")
        return NONE

    def _cmd_xargs(self, base, args, scope, stdin, own, prefix) -> Stream:
        takes = ("-I", "-i", "-L", "-l", "-n", "-P", "-d", "-E", "-e", "-s", "-a", "--arg-file")
        takes += ("--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace")
        takes += ("--eof", "--max-chars", "--process-slot-var")
        options, rest = cmds.split_options(args, takes)
        if stdin.names and rest and rest[0].value not in METADATA_ONLY:
            own.append(
                Finding(
                    "secret",
                    f"runs {rest[0].text} on the names it is fed from {stdin.names}, which "
                    "holds secret files",
                    prefix,
                    stdin.names,
                )
            )
        replace = None
        for name, value in options:
            if name in ("-I", "-i", "--replace"):
                replace = value.value if value is not None and value.value else "{}"
        if not rest:
            rest = [literal("echo")]
        unknown = Word("(input to xargs)", None)
        if replace is None:
            return self.invoke([*rest, unknown], scope, NONE)
        # The input replaces the marker: an unknown word, or inside a script's text a
        # variable whose value we cannot know (`xargs -I{} sh -c 'rm -rf {}'`).
        runs_text = cmds.interpreter_family(rest[0].value or "") or rest[0].value in cmds.SHELLS
        argv = [rest[0]]
        for arg in rest[1:]:
            if arg.value is None or replace not in arg.value:
                argv.append(arg)
            elif runs_text:
                argv.append(literal(arg.value.replace(replace, '"$XARGS_INPUT"')))
            else:
                argv.append(unknown)
        return self.invoke(argv, scope, NONE)

    def _cmd_parallel(self, base, args, scope, stdin, own, prefix) -> Stream:
        cut = next((i for i, a in enumerate(args) if a.value in (":::", "::::")), len(args))
        _options, command = cmds.split_options(args[:cut], ("-j", "--jobs", "-S", "--sshlogin"))
        if command:
            self.invoke([*command, Word("(input to parallel)", None)], scope, NONE)
        return NONE

    def _cmd_find(self, base, args, scope, stdin, own, prefix) -> Stream:
        _options, rest = cmds.split_options(args, ("-D", "-O"))
        starts: list[Word] = []
        while rest and (rest[0].value is None or not rest[0].value.startswith(("-", "(", "!"))):
            starts.append(rest.pop(0))
        if not starts:
            starts = [literal(".")]
        i = 0
        while i < len(rest):
            token = rest[i].value
            i += 1
            if token == "-delete":
                for start in starts:
                    self._deletion(
                        start, scope, own, prefix, "deletes what it finds under {}", root_ok=True
                    )
            elif token in ("-exec", "-execdir", "-ok", "-okdir"):
                end = i
                while end < len(rest) and rest[end].value not in (";", "+"):
                    end += 1
                inner = rest[i:end]
                i = end + 1
                starts_values = [s.value for s in starts]
                if any(v is None for v in starts_values):
                    argv = [Word(a.text, None) if "{}" in a.text else a for a in inner]
                else:
                    argv = [
                        Word(
                            a.text,
                            tuple(
                                a.value.replace("{}", posixpath.join(s or ".", cmds.FOUND))
                                for s in starts_values
                            ),
                            a.glob,
                        )
                        if a.value is not None and "{}" in a.value
                        else a
                        for a in inner
                    ]
                inner_scope = scope
                if token in ("-execdir", "-okdir"):
                    inner_scope = scope.copy()
                    for start in starts:
                        inner_scope.cd(start, self.rules.home)
                self.invoke(argv, inner_scope, NONE)
        return Stream("unknown", source="find")

    def _cmd_cd(self, base, args, scope, stdin, own, prefix) -> Stream:
        _options, rest = cmds.split_options(args, ())
        target = rest[0] if rest else literal(self.rules.home)
        if base == "popd" or (target.value == "-"):
            scope.cwds = None
        else:
            scope.cd(target, self.rules.home)
        return NONE

    _cmd_pushd = _cmd_cd
    _cmd_popd = _cmd_cd

    def _cmd_rm(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(args, ("--interactive",))
        rest = [a for a in rest if a.value is None or not a.value.startswith("-") or a.value == "-"]
        recursive = any(
            name in ("-r", "-R", "--recursive", "--dir", "-d") for name, _ in options
        ) or base in ("rmdir",)
        verb = "recursively deletes" if recursive and base == "rm" else "deletes"
        if any(name == "--no-preserve-root" for name, _ in options):
            own.append(Finding("deletion", "deletes with --no-preserve-root", prefix))
        for target in rest:
            self._deletion(target, scope, own, prefix, verb)
        return NONE

    _cmd_rmdir = _cmd_rm
    _cmd_unlink = _cmd_rm

    def _cmd_shred(self, base, args, scope, stdin, own, prefix) -> Stream:
        _options, rest = cmds.split_options(args, ("-n", "--iterations", "-s", "--size"))
        for target in rest:
            if target.value and cmds.device_kind(target.value) == "device":
                own.append(Finding("device", f"overwrites the device {target.value}", prefix))
            else:
                self._deletion(target, scope, own, prefix, "overwrites")
        return NONE

    def _deletion(
        self,
        target: Word,
        scope: Scope,
        own: list[Finding],
        prefix: str | None,
        verb: str,
        root_ok: bool = False,
    ) -> None:
        """Ask when `target` may lie outside the working directory (or be the directory
        itself, unless `root_ok`). `verb` may hold {} where the path goes."""
        workdir = self.rules.workdir
        if "{}" not in verb:
            verb += " {}"
        if target.values is None:
            own.append(
                Finding(
                    "deletion",
                    verb.format(target.text) + ", a path only known when it runs",
                    prefix,
                )
            )
            return
        if scope.cwds is None and any(not v.startswith("/") for v in target.values):
            own.append(
                Finding(
                    "deletion", verb.format(target.text) + " after a cd we cannot follow", prefix
                )
            )
            return
        for value in target.values:
            for expanded in cmds.brace_expand(value) or [".."]:
                for cwd in scope.cwds or ("/",):
                    where = cmds.judged_path(expanded, cwd)
                    if not cmds.inside(where, workdir) and not (root_ok and where == workdir):
                        shown = value if where == value else f"{value} ({where})"
                        place = (
                            f"the working directory {workdir} itself"
                            if where == workdir
                            else f"outside the working directory {workdir}"
                        )
                        # One finding per place, each its own grant target: a session
                        # answer must not cover a path it was never shown.
                        own.append(
                            Finding("deletion", f"{verb.format(shown)}, {place}", prefix, where)
                        )

    def _cmd_rsync(self, base, args, scope, stdin, own, prefix) -> Stream:
        self._cmd_rsync_shell(args, scope)
        values = [a.value or "" for a in args]
        deleting = any(v.startswith("--del") or v == "--remove-source-files" for v in values)
        operands = [a for a in args if not (a.value or "").startswith("-")]
        if deleting and operands:
            destination = operands[-1]
            if destination.value and re.match(r"^[^/]*:", destination.value):
                own.append(
                    Finding(
                        "deletion",
                        f"deletes files on {destination.value} (rsync --delete to another machine)",
                        prefix,
                    )
                )
            else:
                self._deletion(
                    destination, scope, own, prefix, "deletes files in {} (rsync --delete)"
                )
        return NONE

    def _cmd_chmod(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(args, ("--reference", "--from"))
        recursive = any(name in ("-R", "--recursive") for name, _ in options)
        # A mode like -x or -w looks like an option; chmod takes it as the mode.
        if not recursive:
            return NONE
        has_reference = any(name == "--reference" for name, _ in options)
        targets = rest if has_reference else rest[1:]
        what = "ownership" if base in ("chown", "chgrp") else "permissions"
        for target in targets:
            self._deletion(
                target, scope, own, prefix, f"recursively changes {what} of {{}}", root_ok=True
            )
        for finding in own:
            if finding.category == "deletion":
                own[own.index(finding)] = replace(finding, category="permissions")
        return NONE

    _cmd_chown = _cmd_chmod
    _cmd_chgrp = _cmd_chmod
    _cmd_chattr = _cmd_chmod

    def _cmd_dd(self, base, args, scope, stdin, own, prefix) -> Stream:
        for arg in args:
            if arg.value and arg.value.startswith("of="):
                target = arg.value[3:]
                if cmds.device_kind(target) == "device":
                    own.append(
                        Finding("device", f"writes raw bytes to the device {target}", prefix)
                    )
            elif arg.value is None and arg.text.startswith("of="):
                own.append(Finding("device", f"writes raw bytes to {arg.text[3:]}", prefix))
        return Stream("unknown", source="dd")

    def _cmd_tee(self, base, args, scope, stdin, own, prefix) -> Stream:
        for arg in args:
            if arg.value and cmds.device_kind(arg.value) == "device" and base != "ln":
                own.append(Finding("device", f"writes to the device {arg.value}", prefix))
        if base == "tee":
            for arg in args:
                if arg.value and not arg.value.startswith("-"):
                    self.analysis.written[arg.value] = (
                        stdin.text if stdin.kind == "literal" else None
                    )
                    if stdin.kind == "network":
                        self.analysis.downloaded.add(arg.value)
            return stdin
        operands = [a.value for a in args if a.value and not a.value.startswith("-")]
        if len(operands) >= 2:
            destination = posixpath.basename(operands[-1].rstrip("/"))
            for source in operands[:-1]:
                name = posixpath.basename(source)
                self.analysis.renames[destination] = self.analysis.renames.get(name, name)
                self.analysis.renames.setdefault(name, name)
        return NONE

    _cmd_cp = _cmd_tee
    _cmd_mv = _cmd_tee
    _cmd_install = _cmd_tee
    _cmd_ln = _cmd_tee

    def _cmd_echo(self, base, args, scope, stdin, own, prefix) -> Stream:
        if all(a.value is not None for a in args):
            values = [a.value or "" for a in args]
            if base == "echo":
                while values and values[0] in ("-n", "-e", "-E", "-ne", "-en"):
                    values.pop(0)
                return Stream("literal", " ".join(values) + "\n", "echo")
            return Stream("literal", values[0] if values else "", "printf")
        fetcher = fetcher_in(frozenset().union(*(a.sources for a in args)))
        if fetcher:
            return Stream("network", source=fetcher)
        return Stream("unknown", source=base)

    _cmd_printf = _cmd_echo

    def _cmd_cat(self, base, args, scope, stdin, own, prefix) -> Stream:
        files = [a for a in args if not (a.value or "").startswith("-") or a.value == "-"]
        if not files or all(a.value == "-" for a in files):
            return stdin
        if len(files) == 1 and files[0].value in self.analysis.written:
            text = self.analysis.written[files[0].value or ""]
            if text is not None:
                return Stream("literal", text, files[0].value or "")
        if any(a.value in self.analysis.downloaded for a in files):
            return Stream("network", source="a downloaded file")
        return Stream("unknown", source=f"cat {' '.join(a.text for a in files)}")

    def _cmd_base64(self, base, args, scope, stdin, own, prefix) -> Stream:
        if stdin.kind == "network":
            return stdin
        return Stream("unknown", source=base)

    _cmd_xxd = _cmd_base64
    _cmd_gunzip = _cmd_base64
    _cmd_zcat = _cmd_base64
    _cmd_rev = _cmd_base64
    _cmd_tr = _cmd_base64
    _cmd_sed = _cmd_base64
    _cmd_head = _cmd_base64
    _cmd_tail = _cmd_base64
    _cmd_openssl = _cmd_base64
    _cmd_gpg = _cmd_base64

    def _cmd_hash(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(args, ("-p",))
        for name, value in options:
            if name == "-p" and value is not None:
                if value.value is None or not rest or rest[0].value is None:
                    self._unknown("hash -p maps a name to a program only known when it runs")
                else:
                    target = posixpath.basename(value.value)
                    self.analysis.renames[rest[0].value] = self.analysis.renames.get(target, target)
        return NONE

    def _cmd_enable(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any((a.value or "-f").startswith("-f") for a in args):
            self._unknown("enable -f loads a builtin from a shared library")
        return NONE

    def _cmd_at(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, _rest = cmds.split_options(args, ("-f", "-q", "-t"))
        if any(name in ("-l", "-d", "-r", "-c") for name, _ in options):
            return NONE
        if any(name == "-f" for name, _ in options):
            self._unknown(f"{base} schedules a script file to run later")
        else:
            self._program_from_stdin(base, "shell", stdin, scope, own)
        return NONE

    _cmd_batch = _cmd_at

    def _cmd_crontab(self, base, args, scope, stdin, own, prefix) -> Stream:
        if not any(a.value in ("-l", "-r", "-e") for a in args) or any(
            a.value == "-r" for a in args
        ):
            self._unknown("crontab installs commands that run later, unseen")
        return NONE

    def _cmd_make(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, _rest = cmds.split_options(args, ("-f", "--file", "--makefile", "-C", "-j"))
        for name, value in options:
            if name in ("-f", "--file", "--makefile") and value is not None:
                if value.value is None or value.value in ("-", "/dev/stdin"):
                    self._unknown("make reads a makefile only known when it runs")
                else:
                    self._runs_file(value.value, scope, own, f"make -f {value.value}", "make")
            if name == "--eval":
                self._unknown("make --eval adds rules given on the command line")
        return Stream("unknown", source=base)

    _cmd_gmake = _cmd_make

    def _cmd_tar(self, base, args, scope, stdin, own, prefix) -> Stream:
        for arg in args:
            text = arg.value
            if text is None:
                continue
            for option in cmds.TAR_COMMAND_OPTIONS:
                if text.startswith(option + "="):
                    value = text[len(option) + 1 :]
                    value = value.split("exec=", 1)[1] if "exec=" in value else value
                    if option == "--checkpoint-action" and "exec=" not in text:
                        continue
                    self.nested(value, scope, f"in tar {option}")
        options, _rest = cmds.split_options(args, ("-I", "-F", "--rsh-command"))
        for name, value in options:
            if name in ("-I", "-F", "--rsh-command") and value is not None:
                self._script_text(value, scope, f"in tar {name}")
        return Stream("unknown", source=base)

    def _cmd_ssh(self, base, args, scope, stdin, own, prefix) -> Stream:
        options, rest = cmds.split_options(
            args, ("-o", "-p", "-i", "-l", "-F", "-J", "-L", "-R", "-D", "-W", "-E", "-S", "-b")
        )
        for name, value in options:
            if name == "-o" and value is not None:
                setting = value.value
                if setting is None:
                    self._unknown("ssh -o sets an option only known when it runs")
                    continue
                key, command = [*re.split(r"[= ]", setting, maxsplit=1), ""][:2]
                if key.lower() in ("proxycommand", "localcommand", "knownhostscommand"):
                    self.nested(command, scope, f"in ssh's {key}")
        if rest and rest[0].value in cmds.LOCAL_HOSTS and len(rest) > 1:
            remote = rest[1:]
            if all(a.value is not None for a in remote):
                self.nested(
                    " ".join(a.value or "" for a in remote),
                    Scope((self.rules.home,)),
                    "over ssh to this machine",
                )
            else:
                self._unknown("ssh to this machine runs a command only known when it runs")
        return Stream("unknown", source=base)

    def _cmd_vim(self, base, args, scope, stdin, own, prefix) -> Stream:
        for i, arg in enumerate(args):
            text = arg.value
            command = None
            if text is not None and text.startswith("+") and len(text) > 1:
                command = text[1:]
            elif text in ("-c", "--cmd") and i + 1 < len(args):
                command = args[i + 1].value if args[i + 1].value is not None else "!"
            if command is not None and re.search(r"!|system\(|terminal|py|lua|perl|ruby", command):
                self._unknown(f"{base} runs the editor command {command!r}")
        return Stream("unknown", source=base)

    _cmd_vi = _cmd_vim
    _cmd_nvim = _cmd_vim
    _cmd_view = _cmd_vim

    def _cmd_rsync_shell(self, args, scope) -> None:
        options, _rest = cmds.split_options(args, ("-e", "--rsh", "--rsync-path"))
        for name, value in options:
            if name in ("-e", "--rsh", "--rsync-path") and value is not None:
                self._script_text(value, scope, f"in rsync {name}")

    def _fetcher(self, base, args, scope, stdin, own, prefix) -> Stream:
        values = [a.value or "" for a in args]
        shell_flags = {"-e", "-c", "--sh-exec", "--exec", "--lua-exec"}
        if base in ("nc", "ncat", "netcat") and any(v in shell_flags for v in values):
            own.append(Finding("network", f"connects a program to the network ({base} -e)", prefix))
        if base == "socat" and any(re.match(r"(?i)(exec|system):", v) for v in values):
            own.append(Finding("network", "connects a program to the network (socat exec)", prefix))
        if base == "curl":
            options, _rest = cmds.split_options(
                args,
                ("-o", "--output", "-d", "--data", "-H", "-X", "-u", "-A"),
            )
            for name, value in options:
                if name in ("-o", "--output") and value is not None:
                    self.analysis.downloaded.add(value.value or "*")
                if name in ("-O", "--remote-name", "--remote-name-all"):
                    self.analysis.downloaded.add("*")
        if base == "wget":
            options, _rest = cmds.split_options(args, ("-O", "--output-document", "-P"))
            target = next((v for n, v in options if n in ("-O", "--output-document")), None)
            if target is None:
                self.analysis.downloaded.add("*")
            elif target.value != "-":
                self.analysis.downloaded.add(target.value or "*")
        urls = [a.value or a.text for a in args if not (a.value or "").startswith("-")]
        return Stream("network", source=base, target=" ".join([base, *urls]))


for _fetcher_name in cmds.FETCHERS:
    setattr(Programs, "_cmd_" + re.sub(r"\W", "_", _fetcher_name), Programs._fetcher)
