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
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, get_type_hints

from hermes_tui.config_files import (
    ConfigError,
    coerce,
    did_you_mean,
    hermes_timeout,
    parse_env_file,
    read_yaml,
    resolve_home,
    save_env_var,
)
from hermes_tui.config_model import (
    PROVIDERS,
    SECTIONS,
    AgentConfig,
    Config,
    CuratorConfig,
    DisplayConfig,
    FilesConfig,
    MemoryConfig,
    ModelConfig,
    Overrides,
    ReviewConfig,
    SkillsConfig,
    TerminalConfig,
    ToolsConfig,
)
from hermes_tui.core.records import datarecord
from hermes_tui.core.redaction.recognise import labelled, tree_secrets
from hermes_tui.core.storage import atomic_write_text, file_lock, make_private

__all__ = [
    "PROVIDERS",
    "SECTIONS",
    "ModelConfig",
    "MemoryConfig",
    "SkillsConfig",
    "CuratorConfig",
    "AgentConfig",
    "ReviewConfig",
    "DisplayConfig",
    "FilesConfig",
    "ToolsConfig",
    "TerminalConfig",
    "Config",
    "Overrides",
    "ConfigError",
    "parse_env_file",
    "resolve_home",
    "save_env_var",
]

log = logging.getLogger(__name__)

MIN_RESULT_CHARS = 2_000

# Hermes' values for our keys: display.memory_notifications is "off" | "on" | "verbose" there.
VALUE_ALIASES: dict[tuple[str, str], dict[str, Any]] = {
    ("display", "memory_notifications"): {"verbose": True},
    # YAML reads a bare on/off as a boolean; for the sandbox they are the mode names.
    ("terminal", "sandbox"): {"true": "on", "false": "off", "yes": "on", "no": "off"},
    # Before allowlists, `network: true` meant all of it.
    ("terminal", "network"): {"true": "on", "false": "off", "yes": "on", "no": "off"},
}
# Hermes' spellings of "no turn limit" for agent.max_turns; we keep a cap (the loop needs one).
UNLIMITED_WORDS = frozenset({"none", "unlimited", "inf", "infinite"})


@datarecord(frozen=False)
class _Loaded:
    """What config.yaml says, sorted into our sections, Hermes data we keep, and warnings."""

    sections: dict[str, dict[str, Any]]
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    hermes_providers: dict[str, Any] = field(default_factory=dict)  # Hermes' `providers:`
    hermes_provider: str | None = None  # model.provider as written, before it is mapped
    hermes_allow: tuple[str, ...] = ()
    kept: dict[str, Any] = field(default_factory=dict)  # quick_commands, personalities
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
    if section == "providers":
        if isinstance(body, dict):
            loaded.hermes_providers = body  # read for request timeouts (hermes_timeout)
        return
    if section in ("quick_commands", "personalities"):
        loaded.kept[section] = body
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
    return coerce(value, annotation, where)


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
        enabled = coerce(value.get("enabled", True), bool, f"{where}.enabled")
        keep = coerce(value.get("keep", default_keep), int, f"{where}.keep")
        if keep < 1:
            raise ConfigError(f"{where}.keep must be 1 or more, not {keep}")
        return enabled, keep
    return coerce(value, bool, where), default_keep


def _section_values(path: Path, data: dict[str, Any], lines: dict[tuple[str, ...], int]) -> _Loaded:
    """Validated values per section from config.yaml, plus the Hermes data we keep."""
    loaded = _Loaded({name: {} for name in SECTIONS})
    result = loaded.sections
    for section, body in data.items():
        where = f"{path}:{lines.get((str(section),), '?')}"
        if section not in SECTIONS:
            from hermes_tui import hermes_keys  # Hermes' keys: read only for keys not ours

            if section in hermes_keys.TOP_LEVEL or section in hermes_keys.EARLIER_TOP_LEVEL:
                _hermes_top_level(section, body, where, loaded)
                continue
            guess = did_you_mean(section, SECTIONS)
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
            if _hermes_section_key(section, key):
                log.debug("%s is a Hermes key not used by hermes-tui", key_where)
                if _sets_something(value):
                    loaded.unused_hermes.append(f"{section}.{key}")
                continue
            guess = did_you_mean(key, hints)
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


def _hermes_section_key(section: str, key: str) -> bool:
    from hermes_tui import hermes_keys

    return key in hermes_keys.SECTION_KEYS.get(section, frozenset()) or key in (
        hermes_keys.EARLIER_SECTION_KEYS.get(section, frozenset())
    )


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
    from hermes_tui.core.tools.sandbox_probe import NETWORK_MODES, SANDBOX_MODES

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
    for key in ("writable_roots", "deny_read", "allow_read"):
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
    loaded.hermes_provider = provider
    if provider is None or provider in PROVIDERS:
        return
    where = f"{path}:{lines.get(('model', 'provider'), '?')}"
    if provider in ("auto", "", "custom", "openai-api"):
        # Hermes' "custom" is an OpenAI-compatible server at model.base_url.
        model.pop("provider")
        if provider in ("custom", "openai-api"):
            model["provider"] = "openai"
        return
    from hermes_tui import hermes_keys

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
    data, lines = read_yaml(path)
    # config.yaml may hold keys (Hermes' model.api_key); an older home made it world-readable.
    make_private(path, 0o600)
    loaded = _section_values(path, data, lines)
    values = loaded.sections

    make_private(home / ".env", 0o600)  # it holds the keys: tightened whenever it is opened
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
    for key in ("timeout", "first_byte_timeout"):
        if key in model and not model[key] > 0:
            where = f"{path}:{lines.get(('model', key), '?')}"
            raise ConfigError(f"{where}: model.{key} must be more than 0 seconds, not {model[key]}")
    if "timeout" not in model:
        hermes = hermes_timeout(
            loaded.hermes_providers,
            (loaded.hermes_provider, model.get("provider")),
            model.get("name"),
            env,
        )
        if hermes is not None:
            model["timeout"] = hermes

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
        secrets=labelled(_hermes_auth(home).items(), tree_secrets(data)),
        mcp_servers=loaded.mcp_servers,
        hermes_sections=loaded.kept,
        warnings=tuple(loaded.warnings),
        unused_hermes_keys=tuple(loaded.unused_hermes),
        **sections,
    )


def _hermes_auth(home: Path) -> dict[str, list[str]]:
    """The tokens of a Hermes Agent home's credential pool (`auth.json`: OAuth access and
    refresh tokens, A7-15), by where they lie: known secrets like .env's, so a copy of one is
    redacted wherever it shows. Nothing for a file that is missing, too large or not JSON."""
    import json

    path = home / "auth.json"
    try:
        if not path.is_file() or path.stat().st_size > 1 << 20:
            return {}
        parsed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return {name: [value] for name, value in tree_secrets(parsed, "auth.json", loose=True).items()}


def set_config_value(home: Path, section: str, key: str, value: Any) -> None:
    """Change one key in config.yaml, keeping the rest of the file's data (used for the theme)."""
    if section not in SECTIONS or key not in get_type_hints(SECTIONS[section]):
        raise ConfigError(f"{section}.{key} is not a known configuration key")
    import yaml

    path = home / "config.yaml"
    with file_lock(path):
        data, _ = read_yaml(path)
        body = data.get(section)
        if not isinstance(body, dict):
            body = {}
        body[key] = value
        data[section] = body
        atomic_write_text(
            path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True), mode=0o600
        )
