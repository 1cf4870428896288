"""What in a workspace runs later, outside the sandbox, when the user works there: one list, with
what runs it, for everything that writes there on the model's behalf.

The sandbox (sandbox.py) holds these paths read-only for commands and moves aside those a
command creates; the files tools (path_policy.py) ask the user before writing them, the reason
naming what would run the file; a rewind (core/checkpoints.py) asks before putting one back.
Both sides read this module, so they cannot drift apart:
- `RUN_LATER_IN_WORKDIR`: paths at the top of the working directory (git's hooks, config and
  info, editors' tasks, direnv, the project's slash commands);
- every repository's git folders (gitdirs.GitDirs.run_later: the workspace's own, nested ones,
  and wherever a worktree's or submodule's `.git` file leads), and the folder an existing
  core.hooksPath names;
- `own_name_shadows`: hermes-tui's own package name at the top (`python -m hermes_tui` there
  runs it instead of the installed package);
- `LOCKED_IN_HOME` and every dot entry of the user's home, when a writable place holds it;
- `on_search_path`: the folders of the user's PATH that lie inside a writable place (conda's
  `~/miniconda3/bin` and `~/go/bin` started in ~, a project's `tools/bin` on PATH): the user's
  shell, and every program that looks a name up on PATH, runs what lies there (a relative
  entry, `bin` or `.`, resolved against the working directory); but for the project's own
  installed programs (`project_bins`: its virtual environment's, `node_modules/.bin`), which
  are project code, like its sources;
- `shadowing_folders`: the folders of PATH that stay writable (`.` on PATH, the working
  directory itself, `node_modules/.bin`): a program left there under the name of a system
  program it comes ahead of (`git`, `ls`) is moved aside after the command.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.core.tools import runs_named

if TYPE_CHECKING:
    from hermes_tui.core.tools.gitdirs import GitDirs

GIT_CONFIG = (
    "git reads it on every command, and runs the programs it names (core.fsmonitor, filters, "
    "aliases, core.hooksPath)"
)
GIT_HOOKS = "git runs the hooks in it (on commit, checkout, merge, push)"
GIT_INFO = "git reads its attributes (which filters run) and excludes"
GIT_DIR = "git reads the config and runs the hooks of a git directory when you run git there"


def _spellings(stems: tuple[str, ...], endings: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(stem + ending for stem in stems for ending in endings)


# The configs of commit-hook runners besides pre-commit, installed as a git hook (or run by
# husky's `.husky/pre-commit`): they run the commands (or, as JavaScript, are the code) they
# hold at your next commit, outside the sandbox (attack6's A6-9).
_LEFTHOOK = "lefthook, installed as a git hook, runs its commands at your next commit"
_LINT_STAGED = "lint-staged, run by a commit hook (husky's `npx lint-staged`), runs its commands"
_SIMPLE_HOOKS = "simple-git-hooks installs the commands it holds as git hooks"
_OVERCOMMIT = "overcommit, installed as a git hook, runs its hooks at your next commit"
_COMMITLINT = "commitlint, run by the commit-msg hook, loads it (a script config is code)"
COMMIT_HOOK_CONFIGS: tuple[tuple[str, str], ...] = (
    *(
        (name, _LEFTHOOK)
        for name in _spellings(
            ("lefthook", ".lefthook", "lefthook-local", ".lefthook-local"),
            (".yml", ".yaml", ".json", ".jsonc", ".toml"),
        )
    ),
    (".config/lefthook.yml", _LEFTHOOK),
    (".config/lefthook.yaml", _LEFTHOOK),
    (".lefthook", _LEFTHOOK),  # its scripts folder
    (".lefthook-local", _LEFTHOOK),
    *(
        (name, _LINT_STAGED)
        for name in (
            ".lintstagedrc",
            *_spellings((".lintstagedrc",), (".json", ".yaml", ".yml", ".js", ".mjs", ".cjs")),
            *_spellings(("lint-staged.config",), (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")),
        )
    ),
    *(
        (name, "nano-staged, run by a commit hook, runs its commands")
        for name in (
            ".nanostagedrc",
            *_spellings((".nano-staged", "nano-staged"), (".json", ".js", ".cjs", ".mjs")),
        )
    ),
    *(
        (name, _SIMPLE_HOOKS)
        for name in _spellings(
            (".simple-git-hooks", "simple-git-hooks"), (".cjs", ".js", ".mjs", ".json")
        )
    ),
    (".overcommit.yml", _OVERCOMMIT),
    *(
        (name, _COMMITLINT)
        for name in (
            ".commitlintrc",
            *_spellings(
                (".commitlintrc", "commitlint.config"),
                (".json", ".yaml", ".yml", ".js", ".cjs", ".mjs", ".ts", ".cts"),
            ),
        )
    ),
)
# Other coding agents' project settings that run commands when that agent starts or acts in the
# folder, with your rights (attack7's A7-8): hooks, MCP servers started by command, lint
# commands. (.cursor/rules is an instruction folder: the write gate holds changes to it.)
_MCP = "starts the MCP servers it names (commands) when that agent opens the folder"
OTHER_AGENTS: tuple[tuple[str, str], ...] = (
    (
        ".claude",
        "Claude Code runs its hooks and the commands its settings name when it starts here",
    ),
    (".mcp.json", f"Claude Code {_MCP}"),
    (".gemini", f"Gemini CLI {_MCP}, and runs its commands"),
    (".cursor/mcp.json", f"Cursor {_MCP}"),
    (".cursor/environment.json", "Cursor's background agents run its install and start commands"),
    (".kiro", "Kiro runs its hooks' commands on file events"),
    (".windsurf", "Windsurf runs its workflows and the MCP servers it names"),
    (".continue", f"Continue {_MCP}"),
    (".amazonq", f"Amazon Q {_MCP}"),
    (".codex", "Codex reads its config (MCP servers started by command) when it starts here"),
    (".opencode", f"opencode {_MCP}, and runs its commands"),
    ("opencode.json", f"opencode {_MCP}"),
    (".aider.conf.yml", "aider runs its lint and test commands after each edit"),
    (".aider.conf.yaml", "aider runs its lint and test commands after each edit"),
    (".cursor/hooks.json", "Cursor runs its hooks' commands on agent events"),
    (".roo", f"Roo Code {_MCP}"),
    (".kilocode", f"Kilo Code {_MCP}"),
    (".qwen", f"Qwen Code {_MCP}"),
    (".junie", f"Junie {_MCP}"),
    (".factory", f"Factory's droid {_MCP}"),
    ("crush.json", f"Crush {_MCP}"),
    (".crush.json", f"Crush {_MCP}"),
)
# Package managers' project settings that name code they run (attack8's A8-1).
PACKAGE_MANAGERS: tuple[tuple[str, str], ...] = (
    (".yarnrc.yml", "yarn runs the file its yarnPath names as yarn, and loads its plugins"),
    (".yarnrc", "yarn 1 runs the file its yarn-path names as yarn"),
    (".yarn/releases", "yarn runs the release .yarnrc.yml's yarnPath names on any yarn command"),
    (".yarn/plugins", "yarn loads the plugins .yarnrc.yml names on any yarn command"),
    (".pnpmfile.cjs", "pnpm runs it on every install"),
    (".npmrc", "npm passes its node-options to every script it runs (npm test)"),
    ("bunfig.toml", "bun loads the files its preload names before every run and test"),
)
# mise's configs of a folder (each read when you enter it: hooks, tasks, environment).
MISE_REASON = "mise runs its hooks and sets its environment when you enter the folder"
MISE_CONFIGS = (
    ".mise.toml",
    "mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    ".miserc.toml",  # read first: its env = [...] picks which mise.<env>.toml is read
    ".rtx.local.toml",
    ".config/mise.toml",
    ".config/mise.local.toml",
    ".config/miserc.toml",
    ".config/mise",  # config.toml and conf.d/
    ".mise",  # config.toml
    "mise/config.toml",
    ".rtx.toml",
)
VIM_EXRC = (".vimrc", "_vimrc", ".gvimrc", "_exrc")  # what Vim's 'exrc' reads besides .exrc
# mise.<env>.toml and its .local and dotted spellings: MISE_ENV names any environment, so these
# are matched by pattern at the top of the working directory (`top_pattern_configs`).
MISE_ENV_CONFIG = re.compile(r"\.?mise\.[^/]+\.toml")
CODE_WORKSPACE = (
    "VS Code runs the tasks of the workspace you open from it (some as it opens) and the "
    "programs its settings name"
)
# Names matched by pattern at the top of the working directory, and what runs them later.
TOP_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (MISE_ENV_CONFIG, MISE_REASON),
    (re.compile(r"[^/]+\.code-workspace"), CODE_WORKSPACE),
)
# hermes-tui's project folder, at the top of any folder a session starts in.
PROJECT_DIR = ".hermes"
PROJECT_COMMANDS = "its commands/ are slash commands the user sends in their own voice"
# (path relative to the working directory, what runs it later, outside the sandbox)
RUN_LATER_IN_WORKDIR: tuple[tuple[str, str], ...] = (
    (".git/hooks", GIT_HOOKS),
    (".git/config", GIT_CONFIG),
    (".git/info", GIT_INFO),
    (
        ".vscode",
        "VS Code runs its tasks (some as the folder opens) and the programs its settings name",
    ),
    (".idea", "JetBrains IDEs run its run configurations and startup tasks"),
    (".zed", "Zed runs its tasks and the language servers its settings name"),
    (".devcontainer", "VS Code runs its initializeCommand on your machine, outside the container"),
    (
        ".devcontainer.json",
        "VS Code runs its initializeCommand on your machine, outside the container",
    ),
    (".nvim.lua", "Neovim runs it at start in the folder (exrc)"),
    (".nvimrc", "Neovim and Vim run it at start in the folder (exrc)"),
    (".exrc", "Vim and Neovim run it at start in the folder (exrc)"),
    *((name, "Vim runs it at start in the folder (exrc)") for name in VIM_EXRC),
    (".dir-locals.el", "Emacs applies it, eval forms included once allowed, to files below it"),
    (".dir-locals-2.el", "Emacs applies it with .dir-locals.el, eval forms included"),
    (
        ".pre-commit-config.yaml",
        "pre-commit, installed as a git hook, runs its hooks at your next commit (a local one: "
        "any command)",
    ),
    *((name, MISE_REASON) for name in MISE_CONFIGS),
    (".helix", "Helix starts the language servers its languages.toml names when it opens a file"),
    (".envrc", "direnv runs it when you enter the folder"),
    # direnv's override files (`source_env_if_exists .envrc.local`): its allow is the hash of
    # `.envrc` alone, so what that sources runs unasked (the others an .envrc names: runs_named)
    (".envrc.local", "direnv runs it when you enter the folder (an .envrc sources it)"),
    (".envrc.private", "direnv runs it when you enter the folder (an .envrc sources it)"),
    (PROJECT_DIR, PROJECT_COMMANDS),
    *COMMIT_HOOK_CONFIGS,
    *OTHER_AGENTS,
    *PACKAGE_MANAGERS,
)
PROTECTED_IN_WORKDIR = tuple(name for name, _ in RUN_LATER_IN_WORKDIR)
# Read for the scripts their commands name (runs_named.py): pre-commit's `entry:`, lefthook's `run:`.
HOOK_RUNNER_CONFIGS = (
    ".pre-commit-config.yaml",
    *(n for n, _ in COMMIT_HOOK_CONFIGS if "lefthook" in n),
)
OWN_NAME = "hermes_tui"
SHADOW = "`python -m hermes_tui` started in the folder runs it instead of the installed hermes-tui"
# In the user's home, when a writable place holds it: non-dot folders that run later too (every
# dot entry does); `bin` is on PATH at the next login on most systems.
LOCKED_IN_HOME = ("bin",)
HERMES_HOME = (
    "it is in the hermes home, which hermes-tui reads (its commands/ are slash commands sent as "
    "yours, its checkpoints/ what /rewind writes back)"
)
SKILL_FOLDER = (
    "a skills folder of yours (skills.external_dirs): its skills are in every session's skills "
    "index and load as instructions"
)
MCP_SERVER = (
    "an MCP server starts from it (mcp_servers in config.yaml), outside the sandbox, at the "
    "next session"
)
ON_PATH = (
    "a folder on your PATH (or the library beside one, of an interpreter's prefix): your shell "
    "runs the programs in it by name"
)
SHADOWS_PROGRAM = (
    "a folder on your PATH ahead of the system's programs: your shell would run it instead of "
    "the program of that name"
)
IN_HOME = "your shell, login or tools read or run it (a startup file, a tool's settings, ~/bin)"


@dataclass(frozen=True)
class RunLater:
    """A path that runs later outside the sandbox (itself, or anything under it), and why."""

    path: Path
    reason: str  # what runs it: "git runs the hooks in it (...)"


# What `python -m` imports through sys.path, the working directory first, before hermes_tui's
# __main__ drops that entry: runpy itself and what it imports (attack8's A8-3: a command's
# `importlib.py` at the top of the project ran at the user's next `python -m hermes_tui`).
RUNPY_IMPORTS = (
    "runpy", "importlib", "types", "warnings", "contextlib", "collections", "functools",
    "operator", "keyword", "reprlib",
)  # fmt: skip


def is_own_name(name: str) -> bool:
    """Whether an entry at the top of a folder named `name` is found by `import hermes_tui`,
    or by an import `python -m hermes_tui` makes before it drops the working directory."""
    return any(name == own or name.startswith(own + ".") for own in (OWN_NAME, *RUNPY_IMPORTS))


def own_name_shadows(workdir: Path) -> list[Path]:
    """What lies at the top of the working directory under hermes-tui's own package name
    (`hermes_tui/`, `hermes_tui.py`, …): `python -m hermes_tui` started there runs it instead of
    the installed package, outside the sandbox. One a command creates is moved aside, and the
    files tools ask before creating one (a checkout's own package existed before, and stays)."""
    try:
        names = os.listdir(workdir)
    except OSError:
        return []
    return [workdir / n for n in sorted(names) if is_own_name(n)]


def made_below(workdir: Path) -> list[Path]:
    """hermes-tui's own package names (`hermes_tui/`, `hermes_tui.py`, its compiled forms) and
    `.hermes/` folders in the working directory's sub-folders: a session or `python -m
    hermes_tui` started in one picks them up. Found by the complete walk that finds instruction
    files (folder_walk: after the first, only folders a command changed are listed again); the
    top is `own_name_shadows`' and RUN_LATER_IN_WORKDIR's."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from hermes_tui.core.tools.folder_walk import files_named
    from hermes_tui.core.tools.gitdirs import SKIPPED

    names = frozenset(
        {PROJECT_DIR, *(OWN_NAME + end for end in ("", ".py", ".pyc", *EXTENSION_SUFFIXES))}
    )
    found, _ = files_named(str(workdir), names, SKIPPED | {".git"})
    return [Path(path) for path in sorted(found) if Path(path).parent != workdir]


def top_pattern_reason(name: str) -> str | None:
    """What runs a top-level entry called `name` later, when a TOP_PATTERNS pattern names it
    (mise's per-environment configs, a VS Code `*.code-workspace`)."""
    for pattern, why in TOP_PATTERNS:
        if pattern.fullmatch(name) is not None:
            return why
    return None


def top_pattern_configs(workdir: Path) -> list[Path]:
    """The entries at the top of the working directory that TOP_PATTERNS name (`mise.dev.toml`,
    `.mise.ci.local.toml`, `app.code-workspace`): read-only to commands, moved aside when one
    is made."""
    try:
        names = os.listdir(workdir)
    except OSError:
        return []
    return [workdir / name for name in sorted(names) if top_pattern_reason(name) is not None]


def _repository_reason(path: Path) -> str:
    if path.name == "info":
        return GIT_INFO
    if path.name in ("config", "config.worktree"):
        return GIT_CONFIG
    return GIT_HOOKS  # `hooks`, or the folder core.hooksPath names


def protected(workdir: Path, repositories: Iterable[GitDirs]) -> list[RunLater]:
    """The paths of the working directory and of its repositories that run later: read-only to
    sandboxed commands, asked about before the files tools write them."""
    found = [RunLater(workdir / name, why) for name, why in RUN_LATER_IN_WORKDIR]
    found += [
        RunLater(path, top_pattern_reason(path.name)) for path in top_pattern_configs(workdir)
    ]
    repositories = list(repositories)
    for dirs in repositories:
        found += [RunLater(path, _repository_reason(path)) for path in dirs.run_later()]
    # What a hook, a hook runner's config or an .envrc runs by path (a hook link's target).
    return found + [RunLater(item.path, item.reason) for item in named(workdir, repositories)]


def named(workdir: Path, repositories: Iterable[GitDirs]) -> list[runs_named.Named]:
    """runs_named.named with this module's lists of hook runners' and mise's configs."""
    envs = [p for p in top_pattern_configs(workdir) if top_pattern_reason(p.name) == MISE_REASON]
    mise = [*(workdir / name for name in MISE_CONFIGS), *envs]
    return runs_named.named(workdir, repositories, HOOK_RUNNER_CONFIGS, mise)


def in_home(path: Path, home: Path) -> bool:
    """Whether `path` is one of the home's entries that run later (a dot entry, `bin`) or lies
    under one: read-only to a command whose writable place holds the home."""
    try:
        rest = path.relative_to(home).parts
    except ValueError:
        return False
    return bool(rest) and (rest[0].startswith(".") or rest[0] in LOCKED_IN_HOME)


def _resolved(entry: Path, workdir: Path | None) -> Path | None:
    """A PATH entry as a folder: an absolute one as it is, a relative one (`.`, `bin`,
    `./node_modules/.bin`; an empty one is `.`) against the working directory, where the user's
    shell is when it looks a program up there (in a subfolder it is another place: not
    covered); None without one."""
    if entry.is_absolute():
        return entry
    return Path(os.path.normpath(workdir / entry)) if workdir is not None else None


def on_search_path(
    entries: Iterable[Path],
    places: Iterable[Path],
    project_bins: Iterable[str] = (),
    workdir: Path | None = None,
) -> list[Path]:
    """The folders of the user's PATH (`entries`: as written, read when hermes-tui started;
    relative ones resolved against `workdir`) inside one of the writable `places`: each as
    written and where it leads now (links resolved), whichever lies inside, once. Left out: a
    folder that is a writable place itself, or holds one (it cannot be read-only without taking
    the whole place: started in a folder on PATH, or `.` on PATH; `shadowing_folders` guards
    those), and the project's own installed programs (`project_bins`: its virtual
    environment's `bin`, `node_modules/.bin`), which `pip install` and `npm install` must
    write. With a `bin/` of an interpreter's prefix comes its library (`_prefix_libraries`)."""
    real_places = [os.path.realpath(place) for place in places]
    skipped = set(project_bins)
    found: list[Path] = []
    for written in entries:
        entry = _resolved(written, workdir)
        if entry is None:
            continue
        real = os.path.realpath(entry)
        if real in skipped or any(_inside(place, real) or place == real for place in real_places):
            continue
        for path in (os.path.normpath(entry), real):
            if any(_inside(path, place) for place in real_places):
                found.append(Path(path))
                found += _prefix_libraries(Path(path), real_places)
    return list(dict.fromkeys(found))


# The folders of the system's own programs: a program a command puts in a writable folder
# ahead of them on PATH runs instead of git, ls, ssh, sudo when the user types that name.
SYSTEM_FOLDERS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
# Toolchains a version manager keeps in the home (nvm's node and npm, rustup's cargo, pyenv's
# python, ~/go/bin...): shadowed by these names wherever on PATH after the folder they lie.
CORE_TOOLS = frozenset(
    {
        *("node", "npm", "npx", "corepack", "yarn", "pnpm", "bun", "deno"),
        *("python", "python3", "pip", "pip3", "uv", "pipx", "poetry"),
        *("cargo", "rustc", "rustup", "go", "ruby", "gem", "bundle", "java", "mvn", "gradle"),
        *("git", "gh", "ssh", "scp", "sudo", "make", "docker", "kubectl", "helm", "terraform"),
        *("aws", "gcloud", "az"),
    }
)


def shadowing_folders(
    entries: Iterable[Path],
    places: Iterable[Path],
    project_bins: Iterable[str] = (),
    workdir: Path | None = None,
) -> list[tuple[Path, frozenset[str]]]:
    """The folders of PATH that commands may write and that stay writable (a writable place
    itself: `.` on PATH, started in `~/bin`; the project's installed programs: `.venv/bin`
    aside, `node_modules/.bin`), each with the names of the system's programs it comes ahead
    of on PATH (`SYSTEM_FOLDERS`, as PATH orders them; a globally installed npm tool, a link
    into node_modules, left out: a project's own copy is meant to win) and the `CORE_TOOLS`
    found in any later folder outside the writable places (nvm's node and npm). A program a command
    leaves there under one of those names is moved aside after it (sweep.sweep_shadows): the
    user's shell would run it for `git`. The project venv's own names stay as they are (the
    venv rule: its `python` and `pip` are meant to come first)."""
    real_places = [os.path.realpath(place) for place in places]
    venvs = {bin_ for bin_ in project_bins if not bin_.endswith(PACKAGE_BINS)}
    order: list[str] = []
    for written in entries:
        entry = _resolved(written, workdir)
        if entry is not None:
            order.append(os.path.realpath(entry))
    found: list[tuple[Path, frozenset[str]]] = []
    for index, real in enumerate(order):
        writable = real in real_places or (real in set(project_bins) and real not in venvs)
        if not writable or any(real == folder for folder, _ in found):
            continue
        later = [f for f in dict.fromkeys(order[index + 1 :]) if f != real]
        names = frozenset(
            name
            for folder in later
            if not any(folder == place or _inside(folder, place) for place in real_places)
            for name in _programs(folder)
            if folder in SYSTEM_FOLDERS or name in CORE_TOOLS
        )
        if names:
            found.append((Path(real), names))
    return found


def _programs(folder: str) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [
        name
        for name in names
        if name in CORE_TOOLS or "node_modules" not in _link_text(os.path.join(folder, name))
    ]


def _link_text(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


# What an interpreter's prefix keeps beside its `bin/`: the library its programs import
# (python's site-packages, where a `.pth` file runs at every start; node's global modules,
# which `bin/npm` leads into; ruby's and perl's), and conda's marker of a prefix.
INTERPRETER_LIBRARIES = ("python*", "node_modules", "ruby", "perl5")


def _prefix_libraries(folder: Path, real_places: list[str]) -> list[Path]:
    """The `lib/` (and `lib64/`) beside a PATH folder `bin/` whose parent is an interpreter's
    prefix (conda's `~/miniconda3`, a node or python unpacked in the home: started in ~,
    their `bin/` is read-only and their library was not). A project's own `bin/` + `lib/`
    (Ruby's, Perl's layout) holds no interpreter's library and stays writable."""
    if folder.name != "bin":
        return []
    prefix = folder.parent
    libraries = [prefix / name for name in ("lib", "lib64") if (prefix / name).is_dir()]
    if not (prefix / "conda-meta").is_dir() and not any(
        any(lib.glob(pattern)) for lib in libraries for pattern in INTERPRETER_LIBRARIES
    ):
        return []
    return [
        lib
        for lib in libraries
        if not any(_inside(place, str(lib)) or place == str(lib) for place in real_places)
    ]


# The folders a project's package manager writes its programs into (npm's, composer's), at the
# top of the working directory: project code like a virtual environment's `bin`.
PACKAGE_BINS = ("node_modules/.bin", "vendor/bin")


def project_bins(workdir: Path, user_home: Path) -> list[str]:
    """The real paths of the folders of the project's own installed programs: the `bin` of each
    virtual environment at the top of the working directory (`.venv/`, `venv/`: a folder with
    `pyvenv.cfg`), its `node_modules/.bin` and `vendor/bin` (`PACKAGE_BINS`, there or not yet);
    none when the working directory is the user's home or holds it (there they are no one
    project's)."""
    work, home = os.path.realpath(workdir), os.path.realpath(user_home)
    if work == home or _inside(home, work):
        return []
    try:
        names = sorted(os.listdir(work))
    except OSError:
        return []
    venvs = [
        os.path.realpath(os.path.join(work, name, "bin"))
        for name in names
        if os.path.isfile(os.path.join(work, name, "pyvenv.cfg"))
    ]
    return [*venvs, *(os.path.realpath(os.path.join(work, name)) for name in PACKAGE_BINS)]


def inside_places(folders: Iterable[Path], places: Iterable[Path]) -> list[Path]:
    """Of `folders` that must stay read-only wherever they lie (the user's external skills
    folders), those inside one of the writable `places`: as written and where each leads now,
    whichever lies inside. One that is a writable place itself, or holds one, is left out: the
    user works on those skills there (commands and the files tools write them)."""
    real_places = [os.path.realpath(place) for place in places]
    found: list[Path] = []
    for folder in folders:
        real = os.path.realpath(folder)
        if any(_inside(place, real) or place == real for place in real_places):
            continue
        for path in (os.path.normpath(folder), real):
            if any(_inside(path, place) for place in real_places):
                found.append(Path(path))
    return list(dict.fromkeys(found))


def _inside(path: str, place: str) -> bool:
    """Whether `path` lies strictly inside `place`."""
    return path != place and path.startswith(place.rstrip(os.sep) + os.sep)
