"""Fixtures for driving the real app with Pilot against the loopback LLM."""

from __future__ import annotations

import pytest
from fakes.llm_server import FakeLLM
from textual.widgets import Input, TextArea


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    # A blinking cursor makes screenshots differ from run to run.
    monkeypatch.setattr(Input, "cursor_blink", False, raising=False)
    monkeypatch.setattr(TextArea, "cursor_blink", False, raising=False)
