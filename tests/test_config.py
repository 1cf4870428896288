"""Specification of configuration loading: home resolution, precedence, and errors that say where."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from hermes_tui.config import (
    ConfigError,
    Overrides,
    load_config,
    parse_env_file,
    resolve_home,
    save_env_var,
    set_config_value,
)


def test_home_flag_beats_environment_beats_platform_default(tmp_path: Path) -> None:
    assert (
        resolve_home(tmp_path / "flag", {"HERMES_HOME": str(tmp_path / "env")}) == tmp_path / "flag"
    )
    assert resolve_home(None, {"HERMES_HOME": str(tmp_path / "env")}) == tmp_path / "env"
    assert resolve_home(None, {}).name == "hermes-tui"


def test_defaults_follow_the_design(home: Path) -> None:
    config = load_config(home, environ={})
    assert config.memory.memory_char_limit == 2200
    assert config.memory.user_char_limit == 1375
    assert config.memory.nudge_interval == 10
    assert config.skills.creation_nudge_interval == 10
    assert config.skills.index_max_chars == 6000
    assert config.curator.interval_hours == 168
    assert config.curator.stale_after_days == 30 and config.curator.archive_after_days == 90
    assert config.agent.max_turns == 90
    assert config.review.max_iterations == 16 and config.review.timeout_s == 120
    assert config.model.provider is None


def test_flags_beat_environment_beat_dotenv_beat_file(home: Path) -> None:
    (home / "config.yaml").write_text(
        "model:\n  provider: openai\n  name: from-file\n  base_url: http://file\n"
    )
    (home / ".env").write_text("HERMES_MODEL=from-dotenv\nHERMES_BASE_URL=http://dotenv\n")
    config = load_config(home, environ={"HERMES_MODEL": "from-env"})
    assert config.model.name == "from-env"
    assert config.model.base_url == "http://dotenv"
    assert config.model.provider == "openai"
    flagged = load_config(home, Overrides(model="from-flag"), environ={"HERMES_MODEL": "from-env"})
    assert flagged.model.name == "from-flag"


def test_unknown_key_names_the_key_file_and_line(home: Path) -> None:
    (home / "config.yaml").write_text(
        "memory:\n  memory_char_limit: 3000\n  memroy_enabled: true\n"
    )
    with pytest.raises(ConfigError) as error:
        load_config(home, environ={})
    message = str(error.value)
    assert f"{home / 'config.yaml'}:3" in message and "memory.memroy_enabled" in message


def test_wrong_type_names_the_key_and_line(home: Path) -> None:
    (home / "config.yaml").write_text("agent:\n  max_turns: lots\n")
    with pytest.raises(ConfigError, match=r"config.yaml:2: agent.max_turns must be a whole number"):
        load_config(home, environ={})


def test_unparseable_yaml_names_the_line(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 3\n bad: [unclosed\n")
    with pytest.raises(ConfigError, match=r"config.yaml:\d+: not valid YAML"):
        load_config(home, environ={})


def test_a_typo_of_one_of_our_sections_is_an_error_that_names_it(home: Path) -> None:
    (home / "config.yaml").write_text("memroy:\n  nudge_interval: 3\n")
    with pytest.raises(
        ConfigError, match="unknown section 'memroy' \\(did you mean 'memory'\\?\\)"
    ):
        load_config(home, environ={})


def test_a_typo_of_one_of_our_keys_is_an_error_that_names_it(home: Path) -> None:
    (home / "config.yaml").write_text("skills:\n  index_max_char: 3000\n")
    with pytest.raises(
        ConfigError,
        match=r"skills.index_max_char is not a known key \(did you mean skills.index_max_chars\?\)",
    ):
        load_config(home, environ={})


def test_a_key_nobody_knows_is_ignored_with_a_warning(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  colour: blue\nmy_notes: 3\n")
    config = load_config(home, environ={})
    assert len(config.warnings) == 2
    assert f"{home / 'config.yaml'}:2: memory.colour is not a key" in config.warnings[0]
    assert "'my_notes' is not a section" in config.warnings[1]


def test_hermes_keys_in_our_sections_are_tolerated(home: Path) -> None:
    (home / "config.yaml").write_text(
        "skills:\n  guard_agent_created: false\n  inline_shell: false\n"
        "curator:\n  prune_builtins: true\n  backup: {enabled: true, keep: 5}\n"
        "agent:\n  disabled_toolsets: []\n  max_turns: 40\n"
        "credential_pool_strategies: {}\nmcp: {auto_reload_on_config_change: true}\n"
        "tools: {tool_search: {enabled: auto}}\ncommand_allowlist: []\n"
    )
    config = load_config(home, environ={})
    assert config.warnings == () and config.agent.max_turns == 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [("on", True), ("off", False), ("yes", True), ("No", False), ("verbose", True), ("true", True)],
)
def test_hermes_spellings_of_a_switch_are_accepted(home: Path, text: str, expected: bool) -> None:
    (home / "config.yaml").write_text(f"display:\n  memory_notifications: '{text}'\n")
    assert load_config(home, environ={}).display.memory_notifications is expected


def test_a_word_that_is_not_a_switch_is_still_a_type_error(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  write_approval: sometimes\n")
    with pytest.raises(ConfigError, match="memory.write_approval must be true or false"):
        load_config(home, environ={})


def test_hermes_unlimited_turns_keep_our_cap_with_a_warning(home: Path) -> None:
    (home / "config.yaml").write_text("agent:\n  max_turns: null\n")
    config = load_config(home, environ={})
    assert config.agent.max_turns == 90 and "means no limit in Hermes" in config.warnings[0]


def test_hermes_providers_we_do_not_speak_fall_back_to_detection(home: Path) -> None:
    (home / "config.yaml").write_text("model:\n  provider: nous\n  default: hermes-4\n")
    config = load_config(home, environ={})
    assert config.model.provider is None and config.model.name == "hermes-4"
    assert "'nous' is a Hermes provider" in config.warnings[0]
    (home / "config.yaml").write_text("model:\n  provider: custom\n  base_url: http://x/v1\n")
    assert load_config(home, environ={}).model.provider == "openai"


def test_hermes_home_config_loads_with_a_debug_note(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config.yaml").write_text(
        "model:\n  default: anthropic/claude-sonnet-4\n  provider: auto\n"
        "terminal:\n  backend: local\n"
        "memory:\n  memory_enabled: true\n  provider: builtin\n"
        "display:\n  skin: default\n  compact: false\n"
        "toolsets: [hermes-cli]\n_config_version: 12\n"
    )
    with caplog.at_level(logging.DEBUG, logger="hermes_tui.config"):
        config = load_config(home, environ={})
    assert config.model.name == "anthropic/claude-sonnet-4"
    assert config.model.provider is None  # "auto" means detect from the keys
    assert any("terminal" in record.getMessage() for record in caplog.records)


def test_unknown_provider_is_an_error(home: Path) -> None:
    (home / "config.yaml").write_text("model:\n  provider: skynet\n")
    with pytest.raises(ConfigError, match="model.provider 'skynet' is not one of"):
        load_config(home, environ={})


def test_dotenv_parsing_handles_export_quotes_and_comments(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# keys\nexport A=\"one two\"\nB='x'\nC=plain # note\n\n")
    assert parse_env_file(path) == {"A": "one two", "B": "x", "C": "plain"}
    path.write_text("this is not an assignment\n")
    with pytest.raises(ConfigError, match=r"\.env:1: expected KEY=VALUE"):
        parse_env_file(path)


def test_saving_a_key_keeps_other_lines_and_is_private(home: Path) -> None:
    (home / ".env").write_text("# mine\nOTHER=1\nOPENAI_API_KEY=old\n")
    save_env_var(home, "OPENAI_API_KEY", "sk-new")
    assert (home / ".env").read_text() == "# mine\nOTHER=1\nOPENAI_API_KEY=sk-new\n"
    assert (home / ".env").stat().st_mode & 0o777 == 0o600


def test_set_config_value_keeps_the_rest_of_the_file(home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 4\n")
    set_config_value(home, "display", "theme", "hermes-light")
    config = load_config(home, environ={})
    assert config.display.theme == "hermes-light" and config.memory.nudge_interval == 4


def test_model_timeouts_are_ours_and_hermes_request_timeout_is_honoured(home: Path) -> None:
    config = home / "config.yaml"
    assert (load_config(home, environ={}).model.timeout, 120.0) == (120.0, 120.0)
    assert load_config(home, environ={}).model.first_byte_timeout == 60.0
    config.write_text(
        "model: {provider: custom, default: m1, base_url: 'http://127.0.0.1:1/v1'}\n"
        "providers:\n"
        "  custom:\n"
        "    request_timeout_seconds: 45\n"
        "    models: {m1: {timeout_seconds: 30}}\n"
    )
    assert load_config(home, environ={"HERMES_API_TIMEOUT": "999"}).model.timeout == 30.0
    config.write_text(
        "model: {provider: custom, default: m2}\n"
        "providers: {custom: {request_timeout_seconds: 45, models: {m1: {timeout_seconds: 30}}}}\n"
    )
    assert load_config(home, environ={}).model.timeout == 45.0
    config.write_text("model: {provider: openai}\n")
    assert load_config(home, environ={"HERMES_API_TIMEOUT": "300"}).model.timeout == 300.0
    config.write_text(
        "model: {provider: custom, timeout: 20, first_byte_timeout: 5}\n"
        "providers: {custom: {request_timeout_seconds: 45}}\n"
    )
    model = load_config(home, environ={}).model
    assert (model.timeout, model.first_byte_timeout) == (20.0, 5.0)
    config.write_text("model:\n  timeout: 0\n")
    with pytest.raises(ConfigError, match=r"config.yaml:2: model.timeout must be more than 0"):
        load_config(home, environ={})
