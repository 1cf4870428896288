"""Reading config.yaml and .env and writing .env: UTF-8 and YAML errors that name the file and
line, YAML values checked against a field's type, typo hints, where the home is, and Hermes'
request timeout for a provider."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hermes_tui.core.storage import atomic_write_text, file_lock

# Hermes' spellings of true and false (quoted "on" stays a string in YAML); compared lowercased.
TRUE_WORDS = frozenset({"true", "yes", "on", "1", "enabled"})
FALSE_WORDS = frozenset({"false", "no", "off", "0", "disabled"})
# A key this close (rapidfuzz ratio) to one of ours, and not a Hermes key, is a typo.
TYPO_SCORE = 80


class ConfigError(Exception):
    """config.yaml or .env says something we cannot use; the message names file, line and key."""


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


def line_map(text: str) -> dict[tuple[str, ...], int]:
    """1-based line of every key in the YAML document, by path, for error messages."""
    import yaml

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


def coerce(value: Any, annotation: Any, where: str) -> Any:
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


def read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start})") from exc
    import yaml  # only when there is a config.yaml to read

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
    return data, line_map(text)


def did_you_mean(key: object, choices: Iterable[str]) -> str | None:
    """The one of `choices` that `key` is a likely typo of, if any."""
    from rapidfuzz import fuzz, process

    match = process.extractOne(str(key), list(choices), scorer=fuzz.ratio, score_cutoff=TYPO_SCORE)
    return match[0] if match else None


def hermes_timeout(
    providers: Mapping[str, Any],
    provider_ids: Iterable[str | None],
    model_name: str | None,
    env: Mapping[str, str],
) -> float | None:
    """Hermes' request timeout for the configured provider and model: its
    `providers.<id>.models.<model>.timeout_seconds`, else `providers.<id>.request_timeout_seconds`
    (config.yaml wins over the environment, as in Hermes), else HERMES_API_TIMEOUT."""
    for provider_id in dict.fromkeys(i for i in provider_ids if i):
        settings = providers.get(provider_id)
        if not isinstance(settings, dict):
            continue
        models = settings.get("models")
        per_model = models.get(model_name) if isinstance(models, dict) else None
        for value in (
            per_model.get("timeout_seconds") if isinstance(per_model, dict) else None,
            settings.get("request_timeout_seconds"),
        ):
            seconds = _positive_seconds(value)
            if seconds is not None:
                return seconds
    return _positive_seconds(env.get("HERMES_API_TIMEOUT"))


def _positive_seconds(value: Any) -> float | None:
    """Hermes ignores a timeout that is not a positive number; so do we."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds > 0 else None


def said_once(keys: tuple[str, ...], marker: Path) -> tuple[str, ...]:
    """`keys` the first time this set is seen (remembered in `marker`), else (): Hermes keys
    we do not use are reported once, not at every start."""
    import contextlib
    import hashlib

    if not keys:
        return ()
    digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()
    try:
        if marker.read_text(encoding="utf-8").strip() == digest:
            return ()
    except OSError:
        pass
    with contextlib.suppress(OSError):  # a read-only home says it again next time
        atomic_write_text(marker, digest + "\n")
    return keys
