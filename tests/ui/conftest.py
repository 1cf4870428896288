"""Fixtures for driving the real app with Pilot against the loopback LLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM
from helpers import write_config
from textual.widgets import Input, TextArea

from hermes_tui.config import Overrides
from hermes_tui.runtime import Runtime
from hermes_tui.ui.app import EventForwarder, HermesApp


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    # A blinking cursor makes screenshots differ from run to run.
    monkeypatch.setattr(Input, "cursor_blink", False, raising=False)
    monkeypatch.setattr(TextArea, "cursor_blink", False, raising=False)


def make_app(
    home: Path, base_url: str | None = None, *, provider: str | None = None, **sections: dict
) -> HermesApp:
    forwarder = EventForwarder()
    if base_url is not None:
        write_config(home, base_url, **sections)
        runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "test-key"}, sink=forwarder)
    else:
        runtime = Runtime.open(home, Overrides(provider=provider), environ={}, sink=forwarder)
    return HermesApp(runtime, forwarder, watch_files=False)
