"""What a protected runner runs BY PATH from the working tree: files that run later outside the
sandbox though they are not run-later paths themselves (attack9's A9-2 and A9-6).

- a git hook that is a link into the tree (`.git/hooks/pre-commit -> ../../tools/hooks/
  pre-commit`, the setup many READMEs prescribe): git runs what it leads to, so the target is
  held like the hook (read-only in the sandbox, asked about by the files tools, put back after a
  command that changed it: `snapshot_targets` / `restore_targets`);
- the scripts a hook or a hook runner's config runs (`exec ./scripts/prepush.sh`,
  `.pre-commit-config.yaml`'s `entry: ./x.sh`, lefthook's `run: sh x.sh`, husky's hooks): a word
  in a command's place (`run_words`: not an argument such as `grep src/app.py`) that names an
  existing file of the working directory;
- what an existing `.envrc` sources or watches (`source_env[_if_exists]`, `source`, `.`,
  `watch_file`, `dotenv[_if_exists]`, `use flake` / `use nix` / `use devenv` and nix-direnv's
  cache in `.direnv/`): direnv's allow is the hash of `.envrc` alone, so the user's next `cd`
  runs them without asking; named whether they exist yet or not (`source_env_if_exists
  .envrc.local`: one a command creates is moved aside, as `.envrc` is);
- what a mise config's `[env] _.source` / `_.file` and `[hooks]` name.

Each is read at the start of a command (bounded: `MAX_FILES` files of `MAX_BYTES` read, at
most `MAX_NAMED` held, what a named script runs in turn three deep: `MAX_DEPTH`), never
followed outside the working directory, never into a package or environment folder
(`gitdirs.SKIPPED`: `npm install` must still write node_modules).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.core.tools.contained import Contained, Outside, read_regular

# run_later imports this module, and a one-shot turn reads run_later's lists: what only
# building the list needs (gitdirs, shlex, tomllib) is imported when it is built.
if TYPE_CHECKING:
    from hermes_tui.core.tools.gitdirs import GitDirs

MAX_FILES = 48  # files read for their words per command, at most
MAX_BYTES = 256_000  # a hook, config or script larger than this is not read for words
MAX_DEPTH = 3  # sourced from sourced from … the first runner, at most
MAX_NAMED = 64  # files held per command, at most (each is a bind mount)
# Words after which the next word is still what runs: an interpreter or a runner takes the
# script as its first argument that is not an option (`sh scripts/x.sh`, `exec ./x.sh`).
RUNNERS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "ruby", "perl",
    "php", "bun", "deno", "tsx", "ts-node", "source", ".", "exec", "command", "nohup", "time",
    "env", "then", "do", "else", "!", "if", "while", "until", "{", "(",
})  # fmt: skip
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_OPERATOR = frozenset(";&|()<>")
_ENTRY = re.compile(r"^\s*(?:-\s*)?[\"']?(?:entry|run)[\"']?\s*[:=]\s*(.+?)\s*,?\s*$", re.M)
DIRENV_SOURCES = frozenset({"source_env", "source_env_if_exists", "source", ".", "watch_file"})
DIRENV_DOTENV = frozenset({"dotenv", "dotenv_if_exists"})
# What nix-direnv and devenv read (and whose shellHook runs) for `use flake|nix|devenv`.
_USE = {
    "flake": ("flake.nix", "flake.lock", ".direnv"),
    "nix": ("shell.nix", "default.nix", ".direnv"),
    "devenv": ("devenv.nix", "devenv.yaml", "devenv.lock", ".devenv", ".direnv"),
}


@dataclass(frozen=True)
class Named:
    """A file a runner runs later by path, what runs it, and (for a hook link's target) the
    link: held like the hook itself."""

    path: Path
    runner: str  # "the pre-push hook (.git/hooks/pre-push)", "direnv (.envrc names it)"
    when: str  # "when git runs that hook", "when you enter the folder"
    hook_link: Path | None = None

    @property
    def reason(self) -> str:
        return f"{self.runner} runs it {self.when}"


class _Reader:
    """Words of runners, read within a budget; what they name inside the working directory."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.real = os.path.realpath(workdir)
        self.budget = MAX_FILES
        from hermes_tui.core.tools.gitdirs import SKIPPED

        self.skipped = SKIPPED
        self.found: dict[Path, Named] = {}

    def text(self, path: Path) -> str | None:
        if self.budget <= 0:
            return None
        data = read_regular(path, MAX_BYTES)  # a missing file costs one failed open
        if data is None:
            return None
        self.budget -= 1
        return data.decode("utf-8", "replace")

    def inside(self, path: Path, in_git: bool = False) -> Path | None:
        """`path` (normalised) when it and where it leads lie in the working directory, outside
        the package folders and (unless `in_git`: a hook link's target) `.git`; else None."""
        path = Path(os.path.normpath(path))
        real = os.path.realpath(path)
        tops = (self.real, os.path.normpath(self.workdir))
        if not any(_under(str(path), top) for top in tops) or not _under(real, self.real):
            return None
        rest = Path(real).relative_to(self.real).parts if real != self.real else ()
        if not rest or any(
            (part == ".git" and not in_git) or part in self.skipped for part in rest
        ):
            return None
        return path

    def add(self, path: Path, runner: tuple[str, str], hook_link: Path | None = None) -> bool:
        kept = self.inside(path, in_git=hook_link is not None)
        if kept is None or kept in self.found or len(self.found) >= MAX_NAMED:
            return False
        self.found[kept] = Named(kept, *runner, hook_link)
        return True

    def scripts(self, text: str, base: Path, runner: tuple[str, str], depth: int = 1) -> None:
        """The programs `text` runs (`run_words`) that are existing files, relative to `base`;
        each one's own too, `MAX_DEPTH` deep. An argument (`grep src/app.py`) is not one."""
        for word in dict.fromkeys(run_words(text)):
            path = Path(word) if word.startswith("/") else base / word
            if not os.path.isfile(path) or not self.add(path, runner):
                continue
            if depth < MAX_DEPTH and (inner := self.text(path)) is not None:
                self.scripts(inner, base, runner, depth + 1)


def run_words(text: str) -> list[str]:
    """The words of shell `text` in a command's place (first of a command, after `;`, `&&`,
    `|`, …, an assignment, or a runner of `RUNNERS` and its options): what it runs."""
    import shlex

    found: list[str] = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, "#"
        try:
            tokens = list(lexer)
        except ValueError:
            tokens = line.split()
        expect = True
        for token in tokens:
            if set(token) <= _OPERATOR:
                expect = True
            elif expect and not (token in RUNNERS or token[:1] == "-" or _ASSIGNMENT.match(token)):
                found.append(token)
                expect = False
    return found


def _under(path: str, top: str) -> bool:
    return path.startswith(top.rstrip(os.sep) + os.sep)


def _shown(path: Path, workdir: Path) -> str:
    try:
        return str(path.relative_to(workdir))
    except ValueError:
        return str(path)


def _hook_folders(dirs: GitDirs) -> list[Path]:
    return list(dict.fromkeys([dirs.common_dir / "hooks", *dirs.hooks_paths()]))


def _hooks(reader: _Reader, dirs: GitDirs) -> None:
    """A hook that is a link into the tree: its target. Every hook's words (a link's target's
    too): the scripts it runs, found from the top of the working tree as git runs hooks."""
    for folder in _hook_folders(dirs):
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries[:64]:
            if entry.name.endswith(".sample") or entry.name.startswith("."):
                continue
            hook = Path(entry.path)
            shown = _shown(hook, dirs.tree)
            runner = (f"the {entry.name} hook ({shown})", "when git runs that hook")
            if entry.is_symlink() and os.path.isfile(hook):
                link = (f"git, as the {entry.name} hook ({shown} leads to it),", "later")
                reader.add(Path(os.path.realpath(hook)), link, hook)
            elif not entry.is_file():
                continue
            text = reader.text(hook)
            if text is not None:
                reader.scripts(text, dirs.tree, runner)


def _hook_runners(reader: _Reader, workdir: Path, configs: Iterable[str]) -> None:
    """`.pre-commit-config.yaml`'s entries and lefthook's `run:` commands."""
    for name in dict.fromkeys(configs):
        if (text := reader.text(workdir / name)) is None:
            continue
        commands = "\n".join(match.group(1) for match in _ENTRY.finditer(text))
        reader.scripts(commands, workdir, (name, "at your next commit (git's hook runs it)"))


def _words(line: str) -> list[str]:
    import shlex

    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return line.split("#", 1)[0].split()


def _envrc(reader: _Reader, envrc: Path, depth: int = 1) -> None:
    """What an `.envrc` (or a file it sources) makes direnv run or read at the next `cd`."""
    text = reader.text(envrc)
    if text is None:
        return
    base = envrc.parent
    why = (f"direnv ({_shown(envrc, reader.workdir)} names it)", "when you enter the folder")
    for line in text.splitlines():
        words = [w for w in _words(line) if not w.startswith("-")]
        if not words:
            continue
        verb, args = words[0], words[1:]
        named: list[Path] = []
        if verb in DIRENV_SOURCES:
            named = [base / arg for arg in args if not any(c in arg for c in "*?[$")]
            named = [p / ".envrc" if p.is_dir() and verb.startswith("source_env") else p
                     for p in named]  # fmt: skip
        elif verb in DIRENV_DOTENV:
            named = [base / (args[0] if args else ".env")]
        elif verb == "use" and args and args[0] in _USE:
            folder = base
            if args[0] == "flake" and len(args) > 1:
                ref = args[1].removeprefix("path:").split("#", 1)[0] or "."
                folder = base / ref if ":" not in ref else base
            named = [folder / name for name in _USE[args[0]]]
            named += [base / arg for arg in args[1:] if arg.endswith(".nix")]
        else:
            reader.scripts(line, base, why, MAX_DEPTH)  # a script run by path, this deep only
        for path in named:
            script = path.suffix in ("", ".sh", ".bash") or path.name.startswith(".envrc")
            if reader.add(path, why) and depth < MAX_DEPTH and path.is_file() and script:
                _envrc(reader, path, depth + 1)


def _mise(reader: _Reader, configs: Iterable[Path]) -> None:
    """A mise config's `[env] _.source` / `_.file` and `[hooks]`: run at the next `cd`."""
    for config in configs:
        if (text := reader.text(config)) is None:
            continue
        try:
            import tomllib

            data = tomllib.loads(text)
        except ValueError:  # tomllib.TOMLDecodeError
            continue
        why = (f"mise ({config.name} names it)", "when you enter the folder")
        env = data.get("env")
        special = env.get("_") if isinstance(env, dict) else None
        for key in ("source", "file"):
            value = special.get(key) if isinstance(special, dict) else None
            for item in value if isinstance(value, list) else [value]:
                path = item.get("path") if isinstance(item, dict) else item
                if isinstance(path, str) and path:
                    reader.add(reader.workdir / os.path.expanduser(path), why)
        hooks = data.get("hooks")
        for value in hooks.values() if isinstance(hooks, dict) else ():
            items = value if isinstance(value, list) else [value]
            commands = [i.get("script", i.get("run")) if isinstance(i, dict) else i for i in items]
            reader.scripts(
                " ; ".join(c for c in commands if isinstance(c, str)), reader.workdir, why
            )


def named(
    workdir: Path,
    repositories: Iterable[GitDirs],
    hook_configs: Iterable[str] = (),
    mise_configs: Iterable[Path] = (),
) -> list[Named]:
    """What runs later by path from the working directory (see the module's docstring):
    `hook_configs` are the hook runners' configs read for `entry:` / `run:` (relative to it),
    `mise_configs` mise's (run_later.py passes its lists; it imports this module, not back)."""
    reader = _Reader(workdir)
    for dirs in repositories:
        _hooks(reader, dirs)
    _hook_runners(reader, workdir, hook_configs)
    if (workdir / ".envrc").is_file():
        _envrc(reader, workdir / ".envrc")
    _mise(reader, mise_configs)
    return list(reader.found.values())


# ---- a hook link's target, held like the hook ---------------------------------------------
# (the link's path, its text, the target's real path, its mode, its bytes or None: too large)
HookTarget = tuple[Path, str, Path, int, bytes | None]


def snapshot_targets(found: Iterable[Named]) -> list[HookTarget]:
    """Before a command: each hook link's text and what its target holds."""
    held: list[HookTarget] = []
    for item in found:
        if item.hook_link is None:
            continue
        try:
            text, mode = os.readlink(item.hook_link), os.stat(item.path).st_mode & 0o7777
        except OSError:
            continue
        held.append((item.hook_link, text, item.path, mode, read_regular(item.path, MAX_BYTES)))
    return held


def restore_targets(before: list[HookTarget], roots: list[Path]) -> list[str]:
    """After a command: a hook link changed is put back, and a target that no longer holds what
    it did (or that the link no longer reaches) is written back as it was, never outside
    `roots` (the working directory first, then the git folders: contained.py). What was done,
    in words."""
    walls = Contained(roots)
    undone: list[str] = []
    for link, text, target, mode, data in before:
        if data is None:
            continue
        try:
            if _link_text(link) != text:
                if os.path.lexists(link):
                    walls.unlink(link)
                walls.symlink(text, link)
                undone.append(f"changed the hook link {link.name}; put back")
            if os.path.realpath(link) == str(target) and read_regular(target, MAX_BYTES) == data:
                continue
            # A folder above it renamed away (`mv tools t2`) is made again for the hook.
            missing = [f for f in target.parents if not os.path.lexists(f)]
            for folder in reversed(missing):
                walls.mkdir(folder)
            walls.write(target, data, mode)
        except (Outside, OSError) as why:
            undone.append(f"left {target} as it is ({why}); git runs it as the {link.name} hook")
            continue
        undone.append(
            f"changed {_shown(target, roots[0])}, which git runs as the {link.name} hook (the "
            "hook is a link to it); put back"
        )
    return undone


def _link_text(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


# ---- what a command changed of the others: named in the result ----------------------------
Fingerprint = tuple[int, int, int, bytes | None] | None


def fingerprint(path: Path) -> Fingerprint:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_mode, read_regular(path, MAX_BYTES)


def changed(
    found: Iterable[Named], before: dict[Path, Fingerprint], workdir: Path, moved: set[Path]
) -> list[str]:
    """The named files (not hook links' targets: put back; not those `moved` aside) a command
    created, changed or removed, each with what runs it."""
    return [
        f"changed {_shown(item.path, workdir)}, which {item.runner} runs {item.when}, outside the "
        "sandbox (left as it is: look at it before that)"
        for item in found
        if item.hook_link is None
        and item.path not in moved
        and fingerprint(item.path) != before.get(item.path)
    ]


@dataclass(frozen=True)
class Held:
    """What a command found named before it ran: the terminal tool's side of this module."""

    named: list[Named]
    fingerprints: dict[Path, Fingerprint] = field(default_factory=dict)
    targets: list[HookTarget] = field(default_factory=list)

    @classmethod
    def before(cls, found: list[Named]) -> Held:
        by_path = [item.path for item in found if item.hook_link is None]
        return cls(found, {path: fingerprint(path) for path in by_path}, snapshot_targets(found))

    @property
    def swept(self) -> list[Path]:
        """Moved aside when a sandboxed command creates or replaces one (sweep.py), as
        `.envrc` is; a hook link's target is put back instead (`after`)."""
        return list(self.fingerprints)

    def after(self, workdir: Path, repositories: Iterable[GitDirs], moved: set[Path]) -> list[str]:
        """A hook link's target put back (never outside the working directory and the git
        folders), then the others the command changed and the sweep did not move, named."""
        roots = [workdir, *(folder for dirs in repositories for folder in dirs.folders())]
        undone = restore_targets(self.targets, roots)
        return undone + changed(self.named, self.fingerprints, workdir, moved)
