"""Configuration: where the home is, and what config.yaml, .env, the environment and flags say.

Precedence: flags > process environment > <home>/.env > config.yaml > defaults (DESIGN.md
section 5). Keys follow Hermes' names so a Hermes home loads; keys Hermes knows and we do not
use are tolerated with a debug note, anything else is an error naming the key, file and line.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

import yaml

from hermes_tui.core.storage import atomic_write_text, file_lock

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


@dataclass(frozen=True)
class CuratorConfig:
    enabled: bool = True
    interval_hours: int = 168
    stale_after_days: int = 30
    archive_after_days: int = 90
    consolidate: bool = False


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


SECTIONS: dict[str, type] = {
    "model": ModelConfig,
    "memory": MemoryConfig,
    "skills": SkillsConfig,
    "curator": CuratorConfig,
    "agent": AgentConfig,
    "review": ReviewConfig,
    "display": DisplayConfig,
}

# Hermes config keys we do not use. A Hermes home must load, so these pass with a debug note.
HERMES_SECTIONS = frozenset(
    [
        "terminal",
        "browser",
        "compression",
        "toolsets",
        "delegation",
        "tts",
        "stt",
        "voice",
        "honcho",
        "platforms",
        "gateway",
        "auxiliary",
        "mcp_servers",
        "checkpoints",
        "security",
        "approvals",
        "code_execution",
        "smart_model_routing",
        "session_reset",
        "timezone",
        "providers",
        "fallback_model",
        "fallback_providers",
        "custom_providers",
        "web",
        "privacy",
        "cron",
        "human_delay",
        "group_sessions_per_user",
        "_config_version",
        "personalities",
        "prompt_caching",
        "streaming",
        "context",
        "quick_commands",
        "discord",
        "telegram",
        "slack",
        "whatsapp",
        "signal",
        "email",
        "matrix",
        "mattermost",
        "homeassistant",
        "dingtalk",
        "feishu",
        "wecom",
        "sms",
        "webhook",
        "api_server",
        "plugins",
        "hooks",
        "logging",
        "network",
        "worktree",
        "file_read_max_chars",
        "tool_output",
        "credentials",
        "redaction",
        "insights",
        "profiles",
        "update",
        "skin",
    ]
)
HERMES_SECTION_KEYS: dict[str, frozenset[str]] = {
    "model": frozenset({"default", "api_key", "api_mode", "max_tokens", "temperature"}),
    "memory": frozenset({"provider", "flush_min_turns", "auto_flush", "honcho"}),
    "skills": frozenset({"disabled", "platform_disabled", "hub", "auto_load", "config"}),
    "curator": frozenset({"model", "provider", "max_skills", "notify"}),
    "agent": frozenset(
        {
            "reasoning_effort",
            "verbose",
            "quiet_mode",
            "save_trajectories",
            "tool_use_enforcement",
            "personality",
            "system_prompt",
            "prefill_messages_file",
            "max_iterations",
        }
    ),
    "review": frozenset({"model", "provider"}),
    "display": frozenset(
        {
            "skin",
            "compact",
            "personality",
            "show_reasoning",
            "streaming",
            "tool_progress",
            "bell_on_complete",
            "show_cost",
            "resume_display",
            "busy_input_mode",
            "spinner",
        }
    ),
}


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
        raise ConfigError(f"{where} must be true or false, not {value!r}")
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


def _section_values(
    path: Path, data: dict[str, Any], lines: dict[tuple[str, ...], int]
) -> dict[str, dict[str, Any]]:
    """Validated values per section from config.yaml."""
    result: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    for section, body in data.items():
        where = f"{path}:{lines.get((str(section),), '?')}"
        if section not in SECTIONS:
            if section in HERMES_SECTIONS:
                log.debug("%s: ignoring Hermes section %r (not used by hermes-tui)", where, section)
                continue
            raise ConfigError(
                f"{where}: unknown section {section!r}; known sections: {', '.join(SECTIONS)}"
            )
        if section == "model" and isinstance(body, str):
            # Hermes allows `model: provider/name` as a bare string.
            body = {"name": body}
        if body is None:
            continue
        if not isinstance(body, dict):
            raise ConfigError(f"{where}: section {section!r} must be a mapping of keys")
        hints = get_type_hints(SECTIONS[section])
        for key, value in body.items():
            key_where = f"{path}:{lines.get((str(section), str(key)), '?')}: {section}.{key}"
            if key not in hints:
                if key in HERMES_SECTION_KEYS.get(section, ()):
                    log.debug("%s is a Hermes key not used by hermes-tui", key_where)
                    continue
                raise ConfigError(
                    f"{key_where} is not a known key; {section} takes {', '.join(hints)}"
                )
            result[section][key] = _coerce(value, hints[key], key_where)
        if (
            section == "model"
            and "name" not in result["model"]
            and isinstance(body.get("default"), str)
        ):
            result["model"]["name"] = body["default"]
    provider = result["model"].get("provider")
    if provider == "auto":
        result["model"].pop("provider")
    elif provider is not None and provider not in PROVIDERS:
        where = f"{path}:{lines.get(('model', 'provider'), '?')}"
        raise ConfigError(
            f"{where}: model.provider {provider!r} is not one of {', '.join(PROVIDERS)}"
        )
    return result


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
    values = _section_values(path, data, lines)

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

    sections = {name: cls(**values[name]) for name, cls in SECTIONS.items()}
    return Config(home=home, env=env, **sections)


def config_to_yaml_dict(config: Config) -> dict[str, Any]:
    """The config as config.yaml would spell it (for `doctor` and for writing defaults)."""
    out: dict[str, Any] = {}
    for name in SECTIONS:
        section = dataclasses.asdict(getattr(config, name))
        out[name] = {k: list(v) if isinstance(v, tuple) else v for k, v in section.items()}
    return out


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
        atomic_write_text(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
