"""Hermes keys hermes-tui does not use are said, not silently dropped (issue 28, Deliver 6)."""

from __future__ import annotations

from pathlib import Path

from helpers import run_main

from hermes_tui.config import load_config
from hermes_tui.runtime import Runtime

HERMES_CONFIG = """\
compression:
  enabled: true
  threshold: 0.8
agent:
  max_turns: 40
  personality: kawaii
honcho: {}
timezone: ''
discord:
  require_mention: true
"""


def test_unused_hermes_keys_with_values_are_listed_in_order(home: Path) -> None:
    (home / "config.yaml").write_text(HERMES_CONFIG)
    config = load_config(home, None, {})
    assert config.unused_hermes_keys == ("compression", "agent.personality", "discord")
    assert config.agent.max_turns == 40  # honoured keys are not listed


def test_doctor_lists_them_and_the_app_is_told_once_per_set(home: Path, capsys) -> None:
    (home / "config.yaml").write_text(HERMES_CONFIG)
    doctor = run_main(capsys, home, "doctor")
    assert (
        "Hermes keys not used by hermes-tui (Hermes still reads them): compression, "
        "agent.personality, discord" in doctor.stdout
    )
    assert Runtime.open(home).hermes_keys_to_report() == (
        "compression",
        "agent.personality",
        "discord",
    )
    assert Runtime.open(home).hermes_keys_to_report() == ()
    (home / "config.yaml").write_text(HERMES_CONFIG + "slack:\n  require_mention: true\n")
    assert Runtime.open(home).hermes_keys_to_report()[-1] == "slack"
