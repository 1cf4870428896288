"""What individual programs mean: wrappers and their options, interpreters, paths, git.

Plain tables and functions over already-resolved words; the walk in analyze.py calls them.
Every table errs towards asking: an option we do not know is read as "takes no value".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Which git config keys run a program: gitconfig.py (the git guard judges configs with them too).
from hermes_tui.core.tools.gitconfig import RISKY_GIT_KEY, git_config_risk  # noqa: F401
from hermes_tui.core.tools.shell_policy.words import Word, literal

PRIVILEGE = frozenset({"sudo", "doas", "su", "pkexec", "runuser", "run0", "sudoedit", "sg"})
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "rbash", "csh"}
)
SHELLS |= {"tcsh"}
FETCHERS = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "fetch", "aria2c", "http", "https", "xh"}
    | {"lwp-request", "GET", "telnet", "tftp", "ftp"}
)
DEVICE_TOOLS = frozenset(
    {"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"}
    | {"blkdiscard", "mkdosfs", "mkntfs", "mkexfatfs", "cryptsetup", "hdparm", "badblocks"}
    | {"pvremove", "vgremove", "lvremove", "zpool", "sgdisk", "partprobe", "kpartx"}
)
POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
# Programs that print shell code for `eval "$(...)"`; running their output is running them.
ENV_PRINTERS = frozenset(
    {"ssh-agent", "pyenv", "rbenv", "nodenv", "direnv", "conda", "brew", "zoxide", "starship"}
    | {"fnm", "opam", "luarocks", "dircolors", "mise", "rtx", "goenv", "jenv", "keychain"}
    | {"pipenv", "poetry", "gpgconf", "thefuck", "atuin", "register-python-argcomplete"}
)
# Variables whose value bash or a program runs as a command line.
COMMAND_VARIABLES = frozenset(
    {"GIT_SSH_COMMAND", "GIT_PAGER", "PAGER", "MANPAGER", "GIT_EDITOR", "EDITOR", "VISUAL"}
    | {"GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS"}
    | {"PROMPT_COMMAND", "BROWSER", "LESSOPEN", "LESSCLOSE", "FCEDIT", "GIT_SSH", "SYSTEMD_PAGER"}
)
# Variables that make programs load code we cannot see.
CODE_LOADING_VARIABLES = frozenset(
    {"LD_PRELOAD", "LD_AUDIT", "BASH_ENV", "ENV", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS"}
    | {"PYTHONSTARTUP", "SHELLOPTS", "BASHOPTS", "PS4", "DYLD_INSERT_LIBRARIES"}
)

TAR_COMMAND_OPTIONS = (
    "--to-command",
    "--checkpoint-action",
    "--use-compress-program",
    "--rsh-command",
    "--info-script",
    "--new-volume-script",
)
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "ip6-localhost"})

HARMLESS_DEVICES = re.compile(
    r"/dev/(null|zero|full|u?random|stdin|stdout|stderr|tty|ptmx|fd/\d+|pts/\d+|shm/.*)"
)


def device_kind(path: str) -> str | None:
    """'network' for bash's /dev/tcp and /dev/udp, 'device' for other /dev paths, else None."""
    normal = posixpath.normpath(path) if path.startswith("/") else path
    if not normal.startswith("/dev/") or HARMLESS_DEVICES.fullmatch(normal):
        return None
    if normal.startswith(("/dev/tcp/", "/dev/udp/")):
        return "network"
    return "device"


def split_options(
    args: Sequence[Word], with_value: Iterable[str]
) -> tuple[list[tuple[str, Word | None]], list[Word]]:
    """Leading options (each with its value, if it takes one) and the rest.

    `with_value` lists the options that take a value ("-n", "--adjustment"); a long option may
    carry it after "=", a short one may be glued on ("-n5"). "--" ends the options.
    """
    takes = set(with_value)
    options: list[tuple[str, Word | None]] = []
    i = 0
    while i < len(args):
        text = args[i].value
        if text is None or not text.startswith("-") or text == "-":
            break
        i += 1
        if text == "--":
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if eq:
                options.append((name, literal(value)))
            elif name in takes and i < len(args):
                options.append((name, args[i]))
                i += 1
            else:
                options.append((name, None))
            continue
        # A cluster of short options: the first that takes a value consumes the rest or the next.
        for j, char in enumerate(text[1:], 1):
            name = "-" + char
            if name in takes:
                rest = text[j + 1 :]
                if rest:
                    options.append((name, literal(rest)))
                elif i < len(args):
                    options.append((name, args[i]))
                    i += 1
                else:
                    options.append((name, None))
                break
            options.append((name, None))
    return options, list(args[i:])


@dataclass(frozen=True)
class Unwrapped:
    """The command a wrapper runs, and what the wrapper changes for it."""

    argv: list[Word]
    chdir: Word | None = None
    assignments: tuple[tuple[str, Word], ...] = ()
    dry: bool = False  # `command -v x` names x without running it


# Wrappers that run their operands as a command: options that take a value, and how many
# operands come before the command (timeout's duration, chroot's directory, ...).
WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "setsid": (frozenset(), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0),
    "chrt": (frozenset(), 1),
    "taskset": (frozenset({"-c", "--cpu-list"}), 0),
    "unbuffer": (frozenset(), 0),
    "caffeinate": (frozenset({"-t", "-w"}), 0),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "unshare": (frozenset({"--map-user", "--map-group", "--setuid", "--setgid", "-S", "-G"}), 0),
    "nsenter": (frozenset({"-t", "--target", "-S", "-G"}), 0),
    "firejail": (frozenset(), 0),
    "torsocks": (frozenset(), 0),
    "proxychains": (frozenset({"-f"}), 0),
    "proxychains4": (frozenset({"-f"}), 0),
    "busybox": (frozenset(), 0),
    "toybox": (frozenset(), 0),
    "strace": (frozenset({"-e", "-o", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a"}), 0),
    "ltrace": (frozenset({"-e", "-o", "-p", "-s", "-u", "-n", "-a"}), 0),
    "valgrind": (frozenset(), 0),
    "catchsegv": (frozenset(), 0),
    "dbus-launch": (frozenset(), 0),
    "setpriv": (frozenset({"--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set"}), 0),
    "sudo": (
        frozenset({"-u", "-g", "-U", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-R"})
        | {"--user", "--group", "--other-user", "--close-from", "--chdir", "--host", "--prompt"}
        | {"--role", "--type", "--command-timeout", "--chroot"},
        0,
    ),
    "doas": (frozenset({"-u", "-C"}), 0),
    "runuser": (frozenset({"-u", "-g", "-G", "--user", "--group"}), 0),
    "run0": (frozenset({"-u", "--user", "-D", "--chdir"}), 0),
    "pkexec": (frozenset({"--user"}), 0),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),
    "ld.so": (frozenset({"--library-path", "--preload", "--audit", "--argv0"}), 0),
}


def unwrap(base: str, args: Sequence[Word]) -> Unwrapped | None:
    """The inner command of a wrapper like `nice -n 5 X`, or None if `base` is no wrapper."""
    if base.startswith("ld-linux") or re.fullmatch(r"ld(-[\w.-]+)?\.so(\.\d+)?", base):
        base = "ld.so"
    if base == "command":
        options, rest = split_options(args, ())
        dry = any(name in ("-v", "-V") for name, _ in options)
        return Unwrapped(rest, dry=dry)
    if base == "env":
        return _unwrap_env(args)
    if base not in WRAPPERS:
        return None
    takes, operands = WRAPPERS[base]
    options, rest = split_options(args, takes)
    if base in ("nice",) and rest and rest[0].value and re.fullmatch(r"-\d+", rest[0].value):
        rest = rest[1:]
    chdir = next((value for name, value in options if name in ("-D", "--chdir")), None)
    return Unwrapped(rest[operands:], chdir=chdir if base == "run0" else None)


def _unwrap_env(args: Sequence[Word]) -> Unwrapped:
    options, rest = split_options(
        args, ("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P", "--block-signal")
    )
    chdir = None
    split: list[Word] = []
    for name, value in options:
        if name in ("-C", "--chdir"):
            chdir = value
        if name in ("-S", "--split-string") and value is not None:
            if value.value is None:
                return Unwrapped([Word(value.text, None, sources=value.sources)])
            split = [literal(part) for part in _split_string(value.value)]
    rest = split + rest
    assignments: list[tuple[str, Word]] = []
    while rest and rest[0].value and re.fullmatch(r"[A-Za-z_]\w*=.*", rest[0].value or ""):
        name, _, value = (rest[0].value or "").partition("=")
        assignments.append((name, literal(value)))
        rest = rest[1:]
    return Unwrapped(rest, chdir=chdir, assignments=tuple(assignments))


def _split_string(text: str) -> list[str]:
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


@dataclass(frozen=True)
class ProgramSource:
    """Where an interpreter takes its program from."""

    kind: str  # "inline", "file", "stdin", "none" (e.g. python -m, --version)
    code: Word | None = None
    rest: tuple[Word, ...] = ()


INLINE_FLAGS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # family: (flags whose value is inline code, options that take some other value)
    "python": (frozenset({"-c"}), frozenset({"-W", "-X", "-Q"})),
    "perl": (frozenset({"-e", "-E"}), frozenset({"-I", "-M", "-m", "-x", "-i"})),
    "ruby": (frozenset({"-e"}), frozenset({"-I", "-r", "-E", "-C", "-x"})),
    "node": (frozenset({"-e", "--eval", "-p", "--print"}), frozenset({"-r", "--require"})),
    "php": (frozenset({"-r", "-B", "-R", "-E"}), frozenset({"-d", "-c", "-f", "-z"})),
    "lua": (frozenset({"-e"}), frozenset({"-l"})),
    "r": (frozenset({"-e", "--expr"}), frozenset()),
    "tcl": (frozenset({"-c"}), frozenset()),
    "osascript": (frozenset({"-e"}), frozenset({"-l"})),
    "pwsh": (frozenset({"-c", "-command", "-Command", "-EncodedCommand", "-e"}), frozenset()),
    "deno": (frozenset(), frozenset()),
    "bun": (frozenset({"-e", "--eval", "-p", "--print"}), frozenset()),
    "awk": (frozenset(), frozenset({"-F", "-v", "-f", "--field-separator", "--assign"})),
}


def interpreter_family(base: str) -> str | None:
    if re.fullmatch(r"(python|pypy)[\d.]*", base):
        return "python"
    if re.fullmatch(r"perl[\d.]*", base):
        return "perl"
    if re.fullmatch(r"(ruby|jruby)[\d.]*", base):
        return "ruby"
    if base in ("node", "nodejs"):
        return "node"
    if re.fullmatch(r"php[\d.]*", base):
        return "php"
    if re.fullmatch(r"(lua|luajit)[\d.]*", base):
        return "lua"
    if base in ("R", "Rscript"):
        return "r"
    if base in ("tclsh", "wish", "expect"):
        return "tcl"
    if base in ("pwsh", "powershell"):
        return "pwsh"
    if base in ("awk", "gawk", "mawk", "nawk", "busybox-awk"):
        return "awk"
    if base in ("osascript", "deno", "bun"):
        return base
    return None


def program_source(family: str, args: Sequence[Word]) -> ProgramSource:
    inline, takes = INLINE_FLAGS[family]
    if family == "deno":
        if args and args[0].value == "eval" and len(args) > 1:
            return ProgramSource("inline", args[-1])
        return ProgramSource("file" if args else "none")
    if family == "awk":
        options, rest = split_options(args, takes)
        if any(name in ("-f", "--file") for name, _ in options):
            return ProgramSource("file")
        return ProgramSource("inline", rest[0], tuple(rest[1:])) if rest else ProgramSource("none")
    takes = takes | inline
    options, rest = split_options(args, takes)
    for name, value in options:
        if name in inline:
            return ProgramSource("inline", value or Word("", ("",)), tuple(rest))
        if name in ("-m",) and family == "python":
            return ProgramSource("none")
        if name in ("-v", "-V", "--version", "-h", "--help"):
            return ProgramSource("none")
    if rest and rest[0].value != "-":
        return ProgramSource("file", rest[0], tuple(rest[1:]))
    return ProgramSource("stdin")


def shell_source(args: Sequence[Word]) -> ProgramSource:
    """Where sh/bash/zsh take their script: `-c STRING`, a file operand, or stdin."""
    options, rest = split_options(args, ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"))
    if any(name == "-c" for name, _ in options):
        if not rest:
            return ProgramSource("none")
        return ProgramSource("inline", rest[0], tuple(rest[1:]))
    if any(name == "-s" for name, _ in options) or not rest:
        return ProgramSource("stdin")
    if any(name in ("--version", "--help") for name, _ in options):
        return ProgramSource("none")
    return ProgramSource("file", rest[0], tuple(rest[1:]))


# Names in one-line programs that run other programs, delete files, or build such a call
# out of strings. Hitting one is "cannot tell what this runs" (the sandbox is the backstop).
RISKY_CODE_NAMES = frozenset(
    {"system", "popen", "spawn", "spawnSync", "execSync", "execFileSync", "execFile", "exec"}
    | {"execv", "execve", "execvp", "execvpe", "execl", "execlp", "execle", "spawnv", "spawnl"}
    | {"fork", "forkpty", "subprocess", "child_process", "pty", "Popen", "check_output"}
    | {"unlink", "unlinkSync", "rmtree", "rmdir", "rmdirSync", "rmSync", "removedirs", "remove"}
    | {"rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_tree", "delete", "truncate"}
    | {"__import__", "importlib", "eval", "compile", "getattr", "globals", "vars", "builtins"}
    | {"__builtins__", "__dict__", "__subclasses__", "__globals__", "attrgetter", "methodcaller"}
    | {"ctypes", "cffi", "syscall", "qx", "Open3", "open3", "IO", "Kernel", "send", "Deno"}
    | {"public_send", "instance_eval", "class_eval", "Function", "vm", "binding", "Bun"}
    | {"shell_exec", "passthru", "proc_open", "pcntl_exec", "do_shell_script", "Start-Process"}
    | {"Invoke-Expression", "iex", "Remove-Item", "getline", "socket", "dlopen"}
)


def risky_code(family: str, code: str) -> str | None:
    """The first thing in a one-line program that could run or delete something, if any."""
    for match in re.finditer(r"[A-Za-z_][\w-]*", code):
        name = match.group()
        if name in RISKY_CODE_NAMES:
            if family == "awk" and name == "getline" and "|" not in code:
                continue
            return name
    if family in ("perl", "ruby", "php", "pwsh") and "`" in code:
        return "backticks"
    if family in ("perl", "ruby") and re.search(r"\bopen\b", code) and "|" in code:
        return "a piped open"
    if family == "ruby" and re.search(r"%x", code):
        return "%x"
    if family == "awk" and re.search(r"\|\s*\"|\"\s*\|", code):
        return "a pipe to a command"
    return None


def brace_expand(text: str, limit: int = 64) -> list[str] | None:
    """bash brace expansion of comma lists ({a,b}); None if it grows past `limit`."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", text)
    if match is None:
        return [text]
    results: list[str] = []
    for option in match.group(1).split(","):
        expanded = brace_expand(text[: match.start()] + option + text[match.end() :], limit)
        if expanded is None:
            return None
        results.extend(expanded)
        if len(results) > limit:
            return None
    return results


FOUND = "\u2026"  # stands for "some entry in this folder" (a glob match, what find finds)


def judged_path(path: str, cwd: str) -> str:
    """Where `path` points, lexically; a glob is cut to the folder it ranges over.

    A glob part that starts with "." may match ".." (bash before 5.2 did), so it counts as
    the parent folder; any other glob part stands for an entry of its folder.
    """
    joined = path if path.startswith("/") else posixpath.join(cwd, path)
    parts = joined.split("/")
    kept: list[str] = []
    for part in parts:
        if re.search(r"[*?\[]", part):
            # Entries matched in a folder are inside it, unless the pattern can match "..".
            kept.append(".." if part.startswith(".") else FOUND)
            break
        kept.append(part)
    return posixpath.normpath("/".join(kept) or "/")


def inside(path: str, root: str) -> bool:
    """True when `path` is strictly below `root` (the root itself is not "inside")."""
    root = root.rstrip("/") or "/"
    return path != root and path.startswith(root + "/" if root != "/" else "/")


GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
    | {"--super-prefix", "--list-cmds", "--attr-source"}
)


def push_danger(args: Sequence[Word]) -> str | None:
    """What a `git push` with these arguments destroys on the remote, if anything."""
    for word in args:
        text = word.value
        if text is None:
            continue
        if text in ("-f", "--force"):
            return "force-pushes over the remote's history (git push --force)"
        if text == "--mirror":
            return "mirrors local refs to the remote, deleting what is not here (git push --mirror)"
        if text in ("--delete", "-d"):
            return "deletes branches or tags on the remote (git push --delete)"
        if text == "--prune":
            return "deletes remote branches that have no local counterpart (git push --prune)"
        if re.fullmatch(r"-[a-zA-Z]*[fd][a-zA-Z]*", text) and not text.startswith("--"):
            which = "force-pushes over" if "f" in text[1:] else "deletes refs on"
            return f"{which} the remote (git push {text})"
        if text.startswith("+") and len(text) > 1:
            return f"force-pushes {text[1:]} over the remote's history (refspec {text})"
        if text.startswith(":") and len(text) > 1:
            return f"deletes {text[1:]} on the remote (refspec {text})"
    return None
