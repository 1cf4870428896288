"""Rules for programs that reach past the command itself: other processes and sessions
(kill, tmux, screen, systemd, D-Bus) and git, whose configuration and aliases run programs.

`ServicePrograms` is mixed into `programs.Programs` (and so into `analyze.Script`) like the
rest of the per-program rules; each `_cmd_<name>` takes (base, args, scope, stdin, own,
prefix), appends its own findings to `own`, and returns what the program writes to stdout.
"""

from __future__ import annotations

from hermes_tui.core.tools.shell_policy import commands as cmds
from hermes_tui.core.tools.shell_policy.model import NONE, Finding, Scope, Stream
from hermes_tui.core.tools.shell_policy.words import literal


class ServicePrograms:
    def _cmd_kill(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any(a.value == "-1" for a in args[-1:]) or any(
            a.value == "-1" and i > 0 for i, a in enumerate(args)
        ):
            own.append(Finding("system", "signals every process you may signal (kill -1)", prefix))
        return NONE

    def _cmd_systemctl(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any(a.value in ("poweroff", "reboot", "halt", "kexec") for a in args):
            own.append(Finding("system", "shuts down or restarts the machine (systemctl)", prefix))
        return NONE

    # Programs that hand a command to a process started outside this one (a terminal
    # multiplexer's server, the session bus): it runs outside the sandbox, with the user's
    # whole environment, so nothing here can vouch for it.
    _TMUX_RUNNERS = frozenset(
        {
            "send-keys", "send", "new-session", "new", "new-window", "neww", "split-window",
            "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell",
            "run", "if-shell", "if", "pipe-pane", "pipep", "source-file", "source",
            "command-prompt", "display-popup", "popup",
        }
    )  # fmt: skip

    def _cmd_tmux(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any(a.value in self._TMUX_RUNNERS or a.value is None for a in args):
            own.append(
                Finding(
                    "system",
                    "runs a command in a tmux session, outside the sandbox and this terminal",
                    prefix,
                )
            )
        return NONE

    def _cmd_screen(self, base, args, scope, stdin, own, prefix) -> Stream:
        values = [a.value for a in args]
        if "-X" in values or "-x" in values or any(v is None for v in values):
            own.append(
                Finding(
                    "system", "sends a command to a screen session, outside the sandbox", prefix
                )
            )
        return NONE

    def _cmd_busctl(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any(a.value in ("call", "set-property", "emit") or a.value is None for a in args):
            own.append(
                Finding(
                    "system",
                    f"calls the system or session bus ({base}), which can start programs outside "
                    "the sandbox",
                    prefix,
                )
            )
        return NONE

    _cmd_gdbus = _cmd_busctl

    def _cmd_dbus_send(self, base, args, scope, stdin, own, prefix) -> Stream:
        if not any(a.value in ("--help", "-h") for a in args):
            own.append(
                Finding(
                    "system", "sends a message on the bus (dbus-send), outside the sandbox", prefix
                )
            )
        return NONE

    def _cmd_systemd_run(self, base, args, scope, stdin, own, prefix) -> Stream:
        own.append(
            Finding("system", "starts a program through systemd, outside the sandbox", prefix)
        )
        return NONE

    def _cmd_init(self, base, args, scope, stdin, own, prefix) -> Stream:
        if any(a.value in ("0", "6") for a in args):
            own.append(Finding("system", "shuts down or restarts the machine (init)", prefix))
        return NONE

    _cmd_telinit = _cmd_init

    def _cmd_git(self, base, args, scope, stdin, own, prefix) -> Stream:
        i = 0
        aliases: dict[str, str] = {}
        while i < len(args):
            text = args[i].value
            if text is None or not text.startswith("-"):
                break
            name, eq, glued = text.partition("=")
            value = literal(glued) if eq else (args[i + 1] if i + 1 < len(args) else None)
            i += 1 if eq or name not in cmds.GIT_VALUE_OPTIONS else 2
            if name == "-c" and value is not None:
                self._git_config(value.value, aliases, scope, own, value.text)
        if i >= len(args):
            return NONE
        sub = args[i].value
        rest = args[i + 1 :]
        if sub in aliases:
            expansion = cmds._split_string(aliases[sub])
            sub, rest = expansion[0], [literal(w) for w in expansion[1:]] + rest
        if sub == "push":
            danger = cmds.push_danger(rest)
            if danger:
                own.append(Finding("git", danger, "git push"))
        elif sub == "config":
            operands = [a for a in rest if not (a.value or "").startswith("-")]
            if len(operands) >= 2 and operands[0].value:
                joined = f"{operands[0].value}={operands[1].value or ''}"
                self._git_config(
                    joined if operands[1].value is not None else operands[0].value,
                    {},
                    scope,
                    own,
                    operands[0].text,
                )
        return Stream("unknown", source="git")

    def _git_config(
        self,
        setting: str | None,
        aliases: dict[str, str],
        scope: Scope,
        own: list[Finding],
        text: str,
    ) -> None:
        if setting is None:
            self._unknown(f"git -c {text} sets a value only known when it runs")
            return
        key, eq, value = setting.partition("=")
        risk = cmds.git_config_risk(key, value if eq else None)
        if risk:
            self._unknown(risk)
        if key.lower().startswith("alias.") and eq:
            if value.startswith("!"):
                self.nested(value[1:], scope, f"in the git alias {key[6:]}")
            else:
                aliases[key[6:]] = value
