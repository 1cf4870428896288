"""Commands the user defines: Markdown prompt files, Hermes' quick_commands, personalities.

- A Markdown file `<name>.md` in `.hermes/commands/` of the working directory (project) or in
  `<home>/commands/` becomes `/<name>`; a file in a subfolder `<dir>/<name>.md` becomes
  `/<dir>:<name>`. Optional YAML front matter gives `description` (and `argument-hint`). The body
  is the message sent: `$ARGUMENTS` becomes everything typed after the command, `$1`…`$9` its
  words; a body without `$ARGUMENTS` gets the arguments appended. The user's own command (the
  home's, or a quick command) wins over a project's of the same name, which is reported: a
  repository's file never replaces what the user typed as theirs (attack9's A9-15).
- Hermes' `quick_commands:` in config.yaml: `name: {type: exec, command: "…"}` runs a shell
  command (through the terminal tool: its sandbox, policy and approvals) and shows its output;
  `name: {type: alias, target: /other}` runs another command with the arguments given.
- Hermes' `personalities:`: name → the instructions (a string, or a mapping with
  `system_prompt`/`prompt` and `description`).

Nothing here runs anything or knows a face; a file that cannot be used is a `problems` line,
never an exception, so one bad file does not hide the others.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

COMMAND_DIR = Path(".hermes") / "commands"
MAX_COMMAND_CHARS = 50_000  # a prompt file bigger than this is surely not a prompt
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}(:[a-z0-9][a-z0-9_.-]{0,63})?$")
QUICK_TIMEOUT = 30.0  # seconds, as Hermes' quick commands

Kind = Literal["prompt", "exec", "alias"]


@dataclass(frozen=True)
class CustomCommand:
    name: str  # without the slash
    kind: Kind
    body: str  # the prompt template, the shell command, or the alias' target
    description: str = ""
    source: str = ""  # where it was defined, shown in /help and errors
    argument_hint: str = ""
    timeout: float = QUICK_TIMEOUT

    def help_text(self) -> str:
        what = (
            self.description
            or {
                "prompt": f"prompt from {self.source}",
                "exec": f"runs `{self.body}`",
                "alias": f"same as {self.body}",
            }[self.kind]
        )
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        return f"{what}{hint} ({self.source})"


@dataclass(frozen=True)
class CustomCommands:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        return self.commands.get(name.lower())


def expand(command: CustomCommand, arguments: str) -> str:
    """The message a prompt command sends for `arguments`."""
    body = command.body.strip()
    arguments = arguments.strip()
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unbalanced quote: plain words then
        words = arguments.split()
    used = "$ARGUMENTS" in body or re.search(r"\$[1-9]", body) is not None
    body = body.replace("$ARGUMENTS", arguments)
    body = re.sub(
        r"\$([1-9])", lambda m: words[int(m[1]) - 1] if int(m[1]) <= len(words) else "", body
    )
    if arguments and not used:
        body = f"{body}\n\n{arguments}"
    return body


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body); raises ValueError on front matter that is not a YAML mapping."""
    if not text.startswith("---"):
        return {}, text
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        return {}, text
    data = yaml.safe_load(head) or {}
    if not isinstance(data, dict):
        raise ValueError("front matter is not a mapping")
    return data, body.split("\n", 1)[1] if "\n" in body else ""


def _prompt_files(folder: Path, origin: str) -> Iterable[tuple[str, Path | None, str]]:
    """(name, file, problem) for each Markdown file of a commands folder, one level of folders."""
    if not folder.is_dir():
        return
    for path in sorted([*folder.glob("*.md"), *folder.glob("*/*.md")]):
        relative = path.relative_to(folder)
        name = ":".join((*relative.parts[:-1], path.stem)).lower()
        if not NAME.match(name):
            yield name, None, f"{path}: not a command name (letters, digits, - _ .; ≤64)"
        elif path.is_symlink() or not path.resolve().is_relative_to(folder.resolve()):
            yield name, None, f"{path}: a link out of {origin} commands folder is not used"
        elif not path.is_file():  # a named pipe would block the start for ever
            yield name, None, f"{path}: not a regular file, not used"
        else:
            yield name, path, ""


def _read_regular(path: Path) -> bytes:
    """The file's bytes (at most what a command may hold, and a little more to tell), opened so
    that a named pipe or device swapped in after the listing cannot block: not followed if a
    link, not waited on, refused unless a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file, not used")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_COMMAND_CHARS * 4 + 1)  # UTF-8: at most 4 bytes a character
    finally:
        os.close(fd)
    if len(data) > MAX_COMMAND_CHARS * 4:
        raise ValueError(f"longer than {MAX_COMMAND_CHARS:,} characters")
    return data


def load_prompt_commands(folder: Path, origin: str) -> CustomCommands:
    commands: dict[str, CustomCommand] = {}
    problems: list[str] = []
    for name, path, problem in _prompt_files(folder, origin):
        if path is None:
            problems.append(problem)
            continue
        try:
            text = _read_regular(path).decode("utf-8")
            if len(text) > MAX_COMMAND_CHARS:
                raise ValueError(f"longer than {MAX_COMMAND_CHARS:,} characters")
            meta, body = _front_matter(text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
            problems.append(f"{path}: {' '.join(str(exc).split())[:200]}")
            continue
        if not body.strip():
            problems.append(f"{path}: the command has no text")
            continue
        commands[name] = CustomCommand(
            name,
            "prompt",
            body,
            " ".join(str(meta.get("description") or "").split()),
            f"{origin} {path.name}",
            " ".join(str(meta.get("argument-hint") or "").split()),
        )
    return CustomCommands(commands, tuple(problems))


def load_quick_commands(section: Any) -> CustomCommands:
    """Hermes' `quick_commands:` mapping → commands, with a problem line for each bad entry."""
    if section is None:
        return CustomCommands()
    if not isinstance(section, Mapping):
        return CustomCommands(problems=("config.yaml quick_commands: not a mapping of commands",))
    commands: dict[str, CustomCommand] = {}
    problems: list[str] = []
    for raw_name, entry in section.items():
        name = str(raw_name).lstrip("/").lower()
        where = f"config.yaml quick_commands.{raw_name}"
        kind = str(entry.get("type", "")).strip().lower() if isinstance(entry, Mapping) else ""
        key = {"exec": "command", "alias": "target"}.get(kind)
        value = str(entry.get(key) or "").strip() if key and isinstance(entry, Mapping) else ""
        if not NAME.match(name):
            problems.append(f"{where}: not a command name")
        elif key is None:
            problems.append(f"{where}: type must be exec or alias")
        elif not value:
            problems.append(f"{where}: {kind} needs `{key}`")
        else:
            if kind == "alias" and not value.startswith("/"):
                value = "/" + value
            timeout = entry.get("timeout", QUICK_TIMEOUT)
            commands[name] = CustomCommand(
                name,
                kind,  # type: ignore[arg-type]
                value,
                " ".join(str(entry.get("description") or "").split()),
                "config.yaml",
                timeout=float(timeout) if isinstance(timeout, (int, float)) else QUICK_TIMEOUT,
            )
    return CustomCommands(commands, tuple(problems))


def load_custom_commands(
    cwd: Path,
    home: Path,
    hermes_sections: Mapping[str, Any],
    reserved: Iterable[str] = (),
    is_skill: Callable[[str], bool] = lambda _name: False,
) -> CustomCommands:
    """Every custom command: the home's files over config's quick_commands over the project's;
    a name taken by a built-in command is reported and not used, and so is a project command
    with a skill's name or the name of one of the user's own (a repository's file would
    otherwise speak, in the user's voice, where the user asked for the skill or their own)."""
    project = load_prompt_commands(cwd / COMMAND_DIR, "project")
    problems: list[str] = []
    for name in [name for name in project.commands if is_skill(name)]:
        command = project.commands.pop(name)
        problems.append(f"/{name} ({command.source}) has a skill's name; the skill is used")
    quick = load_quick_commands(hermes_sections.get("quick_commands"))
    own = load_prompt_commands(home / "commands", "home")
    for name in [name for name in project.commands if name in own.commands | quick.commands]:
        command = project.commands.pop(name)
        problems.append(
            f"/{name} ({command.source}) has the name of your own /{name}; yours is used"
        )
    merged: dict[str, CustomCommand] = {}
    for layer in (project, quick, own):
        merged.update(layer.commands)
        problems.extend(layer.problems)
    for name in {r.lstrip("/") for r in reserved} & set(merged):
        problems.append(f"/{name} ({merged.pop(name).source}) is a built-in command; not used")
    return CustomCommands(merged, tuple(problems))


# ---- personalities ------------------------------------------------------------------------

NO_PERSONALITY = ("none", "default", "neutral")


@dataclass(frozen=True)
class Personality:
    name: str
    instructions: str
    description: str = ""


def load_personalities(section: Any) -> tuple[dict[str, Personality], tuple[str, ...]]:
    """Hermes' `personalities:` → (name → Personality, problems)."""
    if section is None:
        return {}, ()
    if not isinstance(section, Mapping):
        return {}, ("config.yaml personalities: not a mapping of name to instructions",)
    found: dict[str, Personality] = {}
    problems: list[str] = []
    for raw_name, value in section.items():
        name = str(raw_name).strip().lower()
        text, description = value, ""
        if isinstance(value, Mapping):
            text = value.get("system_prompt") or value.get("prompt") or value.get("instructions")
            description = str(value.get("description") or "")
        if not isinstance(text, str) or not text.strip() or name in NO_PERSONALITY:
            problems.append(f"config.yaml personalities.{raw_name}: no instructions")
            continue
        found[name] = Personality(name, text.strip(), " ".join(description.split()))
    return found, tuple(problems)


def personality_note(personality: Personality | None) -> str:
    """What the next message carries when the personality changed. The system prompt stays
    byte-identical for the session's prompt cache, so the choice travels with the conversation."""
    if personality is None:
        return "[The user turned the personality off: answer in your usual manner from now on.]"
    return (
        f'[The user chose the personality "{personality.name}". From now on, answer this way:\n'
        f"{personality.instructions}]"
    )


class AliasLoop(ValueError):
    """Aliases that lead back to themselves; the message names the first."""


def resolve(
    commands: CustomCommands, text: str, depth: int = 5
) -> tuple[CustomCommand, str] | None:
    """The custom command `text` (a `/name args` line) runs, following aliases to another custom
    command, with its arguments: an alias is given back only when its target is no custom
    command (a built-in one, a skill). None when the line names no custom command. Raises
    AliasLoop after `depth` aliases."""
    command, _, arguments = text.strip().partition(" ")
    found = commands.get(command[1:]) if command.startswith("/") else None
    if found is None:
        return None
    if found.kind != "alias":
        return found, arguments.strip()
    if depth <= 0:
        raise AliasLoop(f"/{found.name}: its alias leads back to itself ({found.source})")
    target = f"{found.body} {arguments}".strip()
    return resolve(commands, target, depth - 1) or (found, arguments.strip())


@dataclass(frozen=True)
class QuickRun:
    """How a quick command's run went, for the face that shows it: the text to show, and
    whether the command ran and exited 0."""

    text: str
    ok: bool


def run_quick(command: CustomCommand, registry: Any, context: Any) -> QuickRun:
    """Run an exec command through the terminal tool (its sandbox, policy and approvals, as the
    agent's commands) with `context`, the conversation's ToolContext."""
    call = {"command": command.body, "timeout": command.timeout}
    return quick_run(registry.run("terminal", call, context).result)


def quick_run(result: Mapping[str, Any]) -> QuickRun:
    """What a quick command's run shows, from the terminal tool's result: its output, or why it
    did not run or failed."""
    output = str(result.get("output") or "").rstrip()
    code = result.get("exit_code")
    ok = bool(result.get("success", True)) and code in (None, 0)
    if not result.get("success", True) and result.get("error"):
        return QuickRun(f"{output}\n{result['error']}".strip(), ok)
    tail = f"\n(exit {code})" if code not in (None, 0) else ""
    return QuickRun((output or "(the command printed nothing)") + tail, ok)
