"""Configuration: where the home is, and what config.yaml, .env, the environment and flags say.

Precedence: flags > process environment > <home>/.env > config.yaml > defaults (DESIGN.md
section 5). Keys follow Hermes' names so a Hermes home loads. What a key is decides what happens:
- one of ours: its value is checked (a wrong type is an error naming file, line and key); Hermes'
  spellings of the same values are accepted ("on"/"off", `model: provider/name`, `model.default`);
- one Hermes knows (hermes_keys.py) and we do not use: ignored, with a debug note; a few that
  mean the same as ours are mapped (`command_allowlist` -> `terminal.allow`), `mcp_servers` is
  kept as raw data for the MCP client;
- close to one of ours and not a Hermes key: a typo, an error that names the key it resembles;
- anything else: ignored with a warning (`Config.warnings`, shown by `doctor`).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import yaml

from hermes_tui import hermes_keys
from hermes_tui.core.storage import atomic_write_text, file_lock, make_private

log = logging.getLogger(__name__)

PROVIDERS = ("openai", "anthropic", "openrouter", "demo")


class ConfigError(Exception):
    """config.yaml or .env says something we cannot use; the message names file, line and key."""


@dataclass(frozen=True)
class ModelConfig:
    provider: str | None = None
    name: str | None = None
    base_url: str | None = None
    context_length: int = 128_000
    max_retries: int = 3
    retry_base_delay: float = 1.0


@dataclass(frozen=True)
class MemoryConfig:
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = 2200
    user_char_limit: int = 1375
    nudge_interval: int = 10
    write_approval: bool = False


@dataclass(frozen=True)
class SkillsConfig:
    creation_nudge_interval: int = 10
    external_dirs: tuple[str, ...] = ()
    write_approval: bool = False
    index_max_chars: int = 6000
    # Hermes' per-skill settings: skill name -> {key: value}, shown with the skill when loaded.
    config: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class CuratorConfig:
    enabled: bool = True
    interval_hours: int = 168
    # Hermes: a scheduled pass waits until nobody has used the agent for this long.
    min_idle_hours: float = 2.0
    stale_after_days: int = 30
    archive_after_days: int = 90
    consolidate: bool = False
    # Hermes: bundled skills are curated too. Ours are read-only in the package, so "on" lets
    # the curator count them as unused but never archive them (said in `curator status`).
    prune_builtins: bool = True
    # Hermes' `backup: {enabled, keep}`; `backup: false` is accepted as well.
    backup: tuple[bool, int] = (True, 5)


@dataclass(frozen=True)
class AgentConfig:
    max_turns: int = 90


@dataclass(frozen=True)
class ReviewConfig:
    timeout_s: float = 120.0
    max_iterations: int = 16


@dataclass(frozen=True)
class DisplayConfig:
    theme: str = "hermes-dark"
    memory_notifications: bool = True
    panel_width: int = 44  # the side panel's columns (alt+←/→ change it; remembered here)
    # Model name -> core.pricing.ModelPrice (USD per million tokens), beside the built-in table.
    prices: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FilesConfig:
    # Folders besides the working directory the files tool may use without asking.
    allowed_roots: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolsConfig:
    # The most characters of a tool result kept in the conversation; the rest is saved to the
    # session's scratch folder and the model is told how to page through it.
    max_result_chars: int = 30_000


@dataclass(frozen=True)
class TerminalConfig:
    # Command prefixes that run without asking; Hermes' `command_allowlist` maps here.
    allow: tuple[str, ...] = ()
    # Command prefixes never run, wherever they appear in a command line.
    deny: tuple[str, ...] = ()
    # bubblewrap around every command: auto (when bwrap is installed), on (required), off.
    sandbox: str = "auto"
    # What asks (README, "Approval modes"): sandboxed, strict, plan, yolo; auto is sandboxed
    # where the sandbox works and strict where it cannot.
    mode: str = "auto"
    # Sandboxed commands' network: off, allowlist (through the filtering proxy), on.
    network: str = "allowlist"
    # Hosts reachable in allowlist mode besides the package registries (a subdomain counts).
    network_allow: tuple[str, ...] = ()
    # Variables children may see although their names look secret (*KEY*, *TOKEN*, ...).
    env_passthrough: tuple[str, ...] = ()
    # Folders commands may write besides the working directory.
    writable_roots: tuple[str, ...] = ()
    # Files and folders commands may not read, besides the built-in credential list.
    deny_read: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    home: Path
    model: ModelConfig = field(default_factory=ModelConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    curator: CuratorConfig = field(default_factory=CuratorConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    terminal: TerminalConfig = field(default_factory=TerminalConfig)
    files: FilesConfig = field(default_factory=FilesConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    # Hermes' `mcp_servers:` as written (server name -> settings), for the MCP client.
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)
    # Keys that were ignored or only partly mapped, each with file, line and reason.
    warnings: tuple[str, ...] = ()
    # Hermes keys set in config.yaml that hermes-tui does not use (`section` for a whole
    # section, `section.key` for one key), for `doctor` and the app's one-time notice.
    unused_hermes_keys: tuple[str, ...] = ()
    # Environment as the provider sees it: .env under the real environment.
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def config_path(self) -> Path:
        return self.home / "config.yaml"


@dataclass(frozen=True)
class Overrides:
    """Values given on the command line; None means "not given"."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    mode: str | None = None  # --mode / --yolo: terminal.mode for this run
    sandbox: str | None = None  # --no-sandbox: terminal.sandbox off for this run


SECTIONS: dict[str, type] = {
    "model": ModelConfig,
    "memory": MemoryConfig,
    "skills": SkillsConfig,
    "curator": CuratorConfig,
    "agent": AgentConfig,
    "review": ReviewConfig,
    "display": DisplayConfig,
    "terminal": TerminalConfig,
    "files": FilesConfig,
    "tools": ToolsConfig,
}
MIN_RESULT_CHARS = 2_000

# Hermes' spellings of true and false (quoted "on" stays a string in YAML); compared lowercased.
TRUE_WORDS = frozenset({"true", "yes", "on", "1", "enabled"})
FALSE_WORDS = frozenset({"false", "no", "off", "0", "disabled"})
# Values Hermes gives a key of ours that mean one of ours: display.memory_notifications is
# "off" | "on" | "verbose" in Hermes, a switch here.
VALUE_ALIASES: dict[tuple[str, str], dict[str, Any]] = {
    ("display", "memory_notifications"): {"verbose": True},
    # YAML reads a bare on/off as a boolean; for the sandbox they are the mode names.
    ("terminal", "sandbox"): {"true": "on", "false": "off", "yes": "on", "no": "off"},
    # Before allowlists, `network: true` meant all of it.
    ("terminal", "network"): {"true": "on", "false": "off", "yes": "on", "no": "off"},
}
# Hermes' spellings of "no turn limit" for agent.max_turns; we keep a cap (the loop needs one).
UNLIMITED_WORDS = frozenset({"none", "unlimited", "inf", "infinite"})
# A key this close (rapidfuzz ratio) to one of ours, and not a Hermes key, is a typo.
TYPO_SCORE = 80


def resolve_home(
    flag: str | os.PathLike[str] | None, environ: Mapping[str, str] | None = None
) -> Path:
    """--home > $HERMES_HOME > the platform's user data directory."""
    environ = os.environ if environ is None else environ
    if flag:
        return Path(flag).expanduser().resolve()
    if environ.get("HERMES_HOME"):
        return Path(environ["HERMES_HOME"]).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("hermes-tui", appauthor=False))


def parse_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; `export`, comments, blank lines and single or double quotes allowed."""
    values: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return values
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start})") from exc
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = re.fullmatch(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)", stripped)
        if not match:
            raise ConfigError(f"{path}:{number}: expected KEY=VALUE, found {stripped[:40]!r}")
        key, value = match.groups()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def save_env_var(home: Path, key: str, value: str) -> None:
    """Set KEY in <home>/.env (mode 0600), keeping every other line as it was."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise ConfigError(f"{key!r} is not a valid environment variable name")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"the value for {key} must be a single line")
    path = home / ".env"
    with file_lock(path):
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        pattern = re.compile(rf"\s*(?:export\s+)?{re.escape(key)}\s*=")
        kept = [line for line in lines if not pattern.match(line)]
        kept.append(f"{key}={value}")
        atomic_write_text(path, "\n".join(kept) + "\n", mode=0o600)


def _line_map(text: str) -> dict[tuple[str, ...], int]:
    """1-based line of every key in the YAML document, by path, for error messages."""
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key_path = (*path, str(key_node.value))
                lines[key_path] = key_node.start_mark.line + 1
                walk(value_node, key_path)

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return lines
    if root is not None:
        walk(root, ())
    return lines


def _coerce(value: Any, annotation: Any, where: str) -> Any:
    """Check a YAML value against a dataclass field type; return it in the field's shape."""
    text = str(annotation)
    if value is None and "None" in text:
        return None
    if annotation is bool or text == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        raise ConfigError(f"{where} must be true or false (or on/off, yes/no), not {value!r}")
    if annotation is int or text == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 0:
                raise ConfigError(f"{where} must be 0 or more, not {value}")
            return value
        raise ConfigError(f"{where} must be a whole number, not {value!r}")
    if annotation is float or text == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ConfigError(f"{where} must be a number, not {value!r}")
    if "tuple" in text:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(value)
        raise ConfigError(f"{where} must be a list of strings, not {value!r}")
    if "str" in text:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise ConfigError(f"{where} must be a string, not {value!r}")
    raise ConfigError(f"{where}: unsupported type {annotation}")  # pragma: no cover


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: not valid YAML: {problem}") from exc
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: the top level must be a mapping of sections, not {type(data).__name__}"
        )
    return data, _line_map(text)


def _did_you_mean(key: object, choices: Iterable[str]) -> str | None:
    """The one of `choices` that `key` is a likely typo of, if any."""
    from rapidfuzz import fuzz, process

    match = process.extractOne(str(key), list(choices), scorer=fuzz.ratio, score_cutoff=TYPO_SCORE)
    return match[0] if match else None


@dataclass
class _Loaded:
    """What config.yaml says, sorted into our sections, Hermes data we keep, and warnings."""

    sections: dict[str, dict[str, Any]]
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    hermes_allow: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)
    unused_hermes: list[str] = field(default_factory=list)


def _hermes_top_level(section: str, body: Any, where: str, loaded: _Loaded) -> None:
    """A top-level key Hermes knows and we do not have as a section: keep, map or ignore it."""
    if section == "mcp_servers":
        if isinstance(body, dict):
            loaded.mcp_servers = body
        elif body is not None:
            raise ConfigError(f"{where}: mcp_servers must be a mapping of server name to settings")
        return
    if section == "command_allowlist":
        allow, skipped = hermes_allowlist_to_prefixes(body)
        loaded.hermes_allow += allow
        if skipped:
            loaded.warnings.append(
                f"{where}: command_allowlist entries not carried over to terminal.allow "
                f"(only `command *` globs are command prefixes): {', '.join(map(repr, skipped))}"
            )
        return
    log.debug("%s: ignoring Hermes section %r (not used by hermes-tui)", where, section)
    if _sets_something(body):
        loaded.unused_hermes.append(str(section))


def _sets_something(value: Any) -> bool:
    """Whether a Hermes value could change what Hermes does (empty ones cannot)."""
    return value not in (None, "", [], {})


def hermes_allowlist_to_prefixes(entries: Any) -> tuple[tuple[str, ...], list[str]]:
    """Hermes `command_allowlist` entries -> (terminal.allow prefixes, entries left out).

    Hermes stores exact commands, shell globs and the names of dangerous patterns it was told to
    always allow ("recursive delete"). Only `words *` means "any command starting with these
    words"; an exact command read as a prefix would allow more than the user approved
    (`rm -rf build` would cover `rm -rf build /`), so those stay with Hermes.
    """
    if entries is None:
        return (), []
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list):
        raise ConfigError("command_allowlist must be a list of commands")
    prefixes: list[str] = []
    skipped: list[str] = []
    for entry in entries:
        text = str(entry).strip()
        head = text[:-1].rstrip() if text.endswith("*") else ""
        if head and not any(char in head for char in "*?[]") and text.endswith(" *"):
            prefixes.append(head)
        elif text:
            skipped.append(text)
    return tuple(prefixes), skipped


def _our_value(section: str, key: str, value: Any, annotation: Any, where: str) -> Any:
    """A value of one of our keys, with Hermes' spellings of the same value accepted."""
    if (section, key) == ("display", "prices"):
        from hermes_tui.core.pricing import parse_prices

        try:
            return parse_prices(value, where)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
    if (section, key) == ("skills", "config"):
        return _skill_config(value, where)
    if (section, key) == ("curator", "backup"):
        return _curator_backup(value, where)
    if (section, key) in (("terminal", "sandbox"), ("terminal", "network")) and isinstance(
        value, bool
    ):
        value = "on" if value else "off"
    if isinstance(value, str):
        alias = VALUE_ALIASES.get((section, key), {})
        if value.strip().lower() in alias:
            return alias[value.strip().lower()]
    return _coerce(value, annotation, where)


def _skill_config(value: Any, where: str) -> dict[str, dict[str, Any]]:
    """skills.config: a mapping of skill name to a mapping of scalar settings."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping of skill name to its settings")
    result: dict[str, dict[str, Any]] = {}
    for name, settings in value.items():
        if settings is None:
            continue
        if not isinstance(settings, dict) or any(
            isinstance(v, (dict, list)) for v in settings.values()
        ):
            raise ConfigError(
                f"{where}.{name} must be a mapping of setting name to a value (text, number, "
                "true/false)"
            )
        result[str(name)] = {str(k): v for k, v in settings.items()}
    return result


def _curator_backup(value: Any, where: str) -> tuple[bool, int]:
    """Hermes writes `backup: {enabled: true, keep: 5}`; a bare true/false sets `enabled`."""
    default_keep = CuratorConfig.backup[1]
    if isinstance(value, dict):
        unknown = sorted(set(map(str, value)) - {"enabled", "keep"})
        if unknown:
            raise ConfigError(
                f"{where}: unknown key(s) {', '.join(unknown)}; it takes enabled, keep"
            )
        enabled = _coerce(value.get("enabled", True), bool, f"{where}.enabled")
        keep = _coerce(value.get("keep", default_keep), int, f"{where}.keep")
        if keep < 1:
            raise ConfigError(f"{where}.keep must be 1 or more, not {keep}")
        return enabled, keep
    return _coerce(value, bool, where), default_keep


def _section_values(path: Path, data: dict[str, Any], lines: dict[tuple[str, ...], int]) -> _Loaded:
    """Validated values per section from config.yaml, plus the Hermes data we keep."""
    loaded = _Loaded({name: {} for name in SECTIONS})
    result = loaded.sections
    for section, body in data.items():
        where = f"{path}:{lines.get((str(section),), '?')}"
        if section not in SECTIONS:
            if section in hermes_keys.TOP_LEVEL or section in hermes_keys.EARLIER_TOP_LEVEL:
                _hermes_top_level(section, body, where, loaded)
                continue
            guess = _did_you_mean(section, SECTIONS)
            if guess is not None:
                raise ConfigError(
                    f"{where}: unknown section {section!r} (did you mean {guess!r}?); "
                    f"known sections: {', '.join(SECTIONS)}"
                )
            loaded.warnings.append(
                f"{where}: {section!r} is not a section hermes-tui or Hermes knows; ignored"
            )
            continue
        if section == "model" and isinstance(body, str):
            # Hermes allows `model: provider/name` as a bare string; its default is "".
            body = {"name": body} if body.strip() else {}
        if body is None:
            continue
        if not isinstance(body, dict):
            raise ConfigError(f"{where}: section {section!r} must be a mapping of keys")
        hints = get_type_hints(SECTIONS[section])
        hermes = hermes_keys.SECTION_KEYS.get(section, frozenset()) | (
            hermes_keys.EARLIER_SECTION_KEYS.get(section, frozenset())
        )
        for key, value in body.items():
            key_where = f"{path}:{lines.get((str(section), str(key)), '?')}: {section}.{key}"
            if key in hints:
                if section == "agent" and key == "max_turns" and _means_unlimited(value):
                    loaded.warnings.append(
                        f"{key_where}: {value!r} means no limit in Hermes; hermes-tui keeps its "
                        f"cap of {AgentConfig.max_turns} model calls per turn"
                    )
                    continue
                result[section][key] = _our_value(section, key, value, hints[key], key_where)
                continue
            if key in hermes:
                log.debug("%s is a Hermes key not used by hermes-tui", key_where)
                if _sets_something(value):
                    loaded.unused_hermes.append(f"{section}.{key}")
                continue
            guess = _did_you_mean(key, hints)
            if guess is not None:
                raise ConfigError(
                    f"{key_where} is not a known key (did you mean {section}.{guess}?); "
                    f"{section} takes {', '.join(hints)}"
                )
            loaded.warnings.append(f"{key_where} is not a key hermes-tui or Hermes knows; ignored")
        if section == "model" and "name" not in result["model"]:
            # Hermes names the model `model.default` (older homes: `model.model`).
            for alias in ("default", "model"):
                if isinstance(body.get(alias), str) and body[alias].strip():
                    result["model"]["name"] = body[alias]
                    break
    if loaded.hermes_allow:
        own = result["terminal"].get("allow", ())
        result["terminal"]["allow"] = tuple(dict.fromkeys((*own, *loaded.hermes_allow)))
    _check_tool_limits(path, lines, result)
    _check_provider(path, lines, loaded)
    _check_terminal(path, lines, loaded)
    return loaded


def _check_tool_limits(
    path: Path, lines: dict[tuple[str, ...], int], result: dict[str, dict[str, Any]]
) -> None:
    max_chars = result["tools"].get("max_result_chars")
    if max_chars is not None and max_chars < MIN_RESULT_CHARS:
        where = f"{path}:{lines.get(('tools', 'max_result_chars'), '?')}"
        raise ConfigError(
            f"{where}: tools.max_result_chars must be at least {MIN_RESULT_CHARS:,}, not {max_chars}"
        )
    for root in result["files"].get("allowed_roots", ()):
        if not Path(root).expanduser().is_absolute():
            where = f"{path}:{lines.get(('files', 'allowed_roots'), '?')}"
            raise ConfigError(
                f"{where}: files.allowed_roots entries must be absolute or start with ~, "
                f"not {root!r}"
            )


def _check_terminal(path: Path, lines: dict[tuple[str, ...], int], loaded: _Loaded) -> None:
    """terminal.sandbox is one of its modes; every allow/deny entry is a command prefix."""
    from hermes_tui.core.tools.registry import APPROVAL_MODES
    from hermes_tui.core.tools.sandbox import NETWORK_MODES, SANDBOX_MODES

    terminal = loaded.sections["terminal"]
    for key, allowed in (
        ("sandbox", SANDBOX_MODES),
        ("mode", ("auto", *APPROVAL_MODES)),
        ("network", NETWORK_MODES),
    ):
        value = terminal.get(key)
        if value is not None and value not in allowed:
            where = f"{path}:{lines.get(('terminal', key), '?')}"
            raise ConfigError(
                f"{where}: terminal.{key} {value!r} is not one of {', '.join(allowed)}"
            )
    for key in ("writable_roots", "deny_read"):
        for entry in terminal.get(key, ()):
            if not Path(entry).expanduser().is_absolute():
                where = f"{path}:{lines.get(('terminal', key), '?')}"
                raise ConfigError(
                    f"{where}: terminal.{key} entries must be absolute or start with ~, "
                    f"not {entry!r}"
                )
    for key in ("allow", "deny"):
        for entry in terminal.get(key, ()):
            # The parser (tree-sitter-bash) is imported only when there is a prefix to check.
            from hermes_tui.core.tools.shell_policy import PrefixError, parse_prefix

            try:
                parse_prefix(entry)
            except PrefixError as exc:
                where = f"{path}:{lines.get(('terminal', key), '?')}: terminal.{key}"
                raise ConfigError(f"{where}: {exc}") from exc


def _means_unlimited(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return value is None
    if isinstance(value, int):
        return value <= 0
    return isinstance(value, str) and value.strip().lower() in UNLIMITED_WORDS


def _check_provider(path: Path, lines: dict[tuple[str, ...], int], loaded: _Loaded) -> None:
    """model.provider: ours, a Hermes provider we map or detect past, or an error."""
    model = loaded.sections["model"]
    provider = model.get("provider")
    if provider is None or provider in PROVIDERS:
        return
    where = f"{path}:{lines.get(('model', 'provider'), '?')}"
    if provider in ("auto", "", "custom", "openai-api"):
        # Hermes' "custom" is an OpenAI-compatible server at model.base_url.
        model.pop("provider")
        if provider in ("custom", "openai-api"):
            model["provider"] = "openai"
        return
    if provider in hermes_keys.PROVIDERS:
        model.pop("provider")
        loaded.warnings.append(
            f"{where}: model.provider {provider!r} is a Hermes provider hermes-tui does not "
            f"speak ({', '.join(PROVIDERS)}); the provider is detected from the API keys instead"
        )
        return
    raise ConfigError(f"{where}: model.provider {provider!r} is not one of {', '.join(PROVIDERS)}")


def load_config(
    home: Path,
    overrides: Overrides | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Read <home>/config.yaml and <home>/.env, apply environment and flags, validate."""
    overrides = overrides or Overrides()
    environ = dict(os.environ if environ is None else environ)
    path = home / "config.yaml"
    data, lines = _read_yaml(path)
    # config.yaml may hold keys (Hermes' model.api_key); an older home made it world-readable.
    make_private(path, 0o600)
    loaded = _section_values(path, data, lines)
    values = loaded.sections

    env = {**parse_env_file(home / ".env"), **environ}
    model = values["model"]
    for key, variable in (
        ("provider", "HERMES_PROVIDER"),
        ("name", "HERMES_MODEL"),
        ("base_url", "HERMES_BASE_URL"),
    ):
        if env.get(variable):
            model[key] = env[variable]
    if env.get("HERMES_THEME"):
        values["display"]["theme"] = env["HERMES_THEME"]
    for key, flag in (
        ("provider", overrides.provider),
        ("name", overrides.model),
        ("base_url", overrides.base_url),
    ):
        if flag:
            model[key] = flag
    if model.get("provider") not in (None, *PROVIDERS):
        raise ConfigError(f"provider {model['provider']!r} is not one of {', '.join(PROVIDERS)}")

    if overrides is not None:
        for key, flag in (("mode", overrides.mode), ("sandbox", overrides.sandbox)):
            if flag:
                values["terminal"][key] = flag
    sections = {name: cls(**values[name]) for name, cls in SECTIONS.items()}
    for warning in loaded.warnings:
        log.warning("%s", warning)
    return Config(
        home=home,
        env=env,
        mcp_servers=loaded.mcp_servers,
        warnings=tuple(loaded.warnings),
        unused_hermes_keys=tuple(loaded.unused_hermes),
        **sections,
    )


def set_config_value(home: Path, section: str, key: str, value: Any) -> None:
    """Change one key in config.yaml, keeping the rest of the file's data (used for the theme)."""
    if section not in SECTIONS or key not in get_type_hints(SECTIONS[section]):
        raise ConfigError(f"{section}.{key} is not a known configuration key")
    path = home / "config.yaml"
    with file_lock(path):
        data, _ = _read_yaml(path)
        body = data.get(section)
        if not isinstance(body, dict):
            body = {}
        body[key] = value
        data[section] = body
        atomic_write_text(
            path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True), mode=0o600
        )
