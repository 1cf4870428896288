"""A home written by Hermes Agent 0.19.0 works unchanged: every command runs on its full config.

The fixture tests/data/hermes-0.19.0-config.yaml is Hermes' DEFAULT_CONFIG as its save_config
writes it (76 top-level sections, 709 keys).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from fakes.llm_server import FakeLLM, Reply
from helpers import REPO, read_yaml, write_skill

from hermes_tui import hermes_keys
from hermes_tui.cli import main
from hermes_tui.config import load_config

HERMES_CONFIG = REPO / "tests" / "data" / "hermes-0.19.0-config.yaml"


@pytest.fixture
def hermes_home(home: Path) -> Path:
    shutil.copy(HERMES_CONFIG, home / "config.yaml")
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Deploys go through CI.\n§\nUses uv.")
    write_skill(home / "skills", "release-notes", "writing")
    return home


def test_the_shipped_key_list_covers_every_key_of_hermes_defaults() -> None:
    data = read_yaml(HERMES_CONFIG)
    assert len(data) == 76
    for section, body in data.items():
        assert section in hermes_keys.TOP_LEVEL, section
        if isinstance(body, dict) and body:
            assert set(body) <= hermes_keys.SECTION_KEYS[section], section


def test_hermes_defaults_load_without_errors_or_warnings(hermes_home: Path) -> None:
    config = load_config(hermes_home, environ={})
    assert config.warnings == ()
    # Hermes' own values for keys we share arrive as ours.
    assert config.display.memory_notifications is True  # Hermes writes the string "on"
    assert config.memory.memory_char_limit == 2200 and config.curator.interval_hours == 168
    assert config.model.name is None  # Hermes' default `model: ""` means "not chosen"


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "show"],
        ["memory", "show", "--json"],
        ["skills", "list"],
        ["skills", "list", "--json"],
        ["skills", "view", "release-notes"],
        ["curator", "status"],
        ["curator", "run", "--dry-run"],
        ["sessions", "list"],
        ["sessions", "search", "deploy"],
        ["pending", "list"],
        ["doctor"],
    ],
)
def test_every_command_runs_on_a_hermes_home(
    argv: list[str], hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([argv[0], "--home", str(hermes_home), *argv[1:]])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "configuration error" not in err and "Traceback" not in err


def test_chat_and_review_run_on_a_hermes_home(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeLLM() as llm:
        llm.script(Reply(text="Hello from the fake model."), Reply(text="Nothing to save."))
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("HERMES_PROVIDER", "openai")
        monkeypatch.setenv("HERMES_MODEL", "fake-model")
        monkeypatch.setenv("HERMES_BASE_URL", llm.openai_url)
        home = str(hermes_home)
        assert main(["chat", "--home", home, "-q", "hi"]) == 0
        out, err = capsys.readouterr()
        assert "Hello from the fake model." in out
        session = err.strip().splitlines()[-1].removeprefix("session: ")
        assert main(["review", "--home", home, session]) == 0, capsys.readouterr().err
        assert main(["sessions", "show", "--home", home, session]) == 0
        assert "hi" in capsys.readouterr().out


async def test_the_app_opens_on_a_hermes_home(hermes_home: Path) -> None:
    from helpers import make_app

    app = make_app(hermes_home)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.runtime.config.display.memory_notifications is True


def test_mcp_servers_are_kept_and_the_allowlist_maps_to_terminal_allow(hermes_home: Path) -> None:
    data = read_yaml(hermes_home / "config.yaml")
    data["mcp_servers"] = {"time": {"command": "uvx", "args": ["mcp-server-time"]}}
    data["command_allowlist"] = ["podman *", "make test", "recursive delete"]
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(data))
    config = load_config(hermes_home, environ={})
    assert config.mcp_servers == {"time": {"command": "uvx", "args": ["mcp-server-time"]}}
    assert config.terminal.allow == ("podman",)
    # An exact command read as a prefix would allow more than the user approved.
    assert any("'make test'" in w and "'recursive delete'" in w for w in config.warnings)
    json.dumps(config.warnings)  # plain strings, printable by doctor


def test_doctor_shows_what_was_ignored(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (hermes_home / "config.yaml").open("a") as config:
        config.write("my_own_notes: keep me\n")
    assert main(["doctor", "--home", str(hermes_home)]) == 0
    out = capsys.readouterr().out
    assert "[warn] config:" in out and "'my_own_notes' is not a section" in out
