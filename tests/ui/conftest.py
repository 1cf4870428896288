"""Fixtures for driving the real app with Pilot against the loopback LLM."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from fakes.llm_server import FakeLLM
from textual.widgets import Input, TextArea

from hermes_tui.ui.collector import LAST_RESORT


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    # A blinking cursor makes screenshots differ from run to run.
    monkeypatch.setattr(Input, "cursor_blink", False, raising=False)
    monkeypatch.setattr(TextArea, "cursor_blink", False, raising=False)


# How often a UI test's collection also walks the frozen objects (below). Between two such
# walks about 350 objects a test are frozen that die later (in the test process, not the app):
# so many tests keep that under 20,000, while each walk costs about 130 ms.
FULL_EVERY_TESTS = 50
_SINCE_FULL = {"tests": 0}  # UI tests since their collection last walked everything
_SAVED: list[tuple[int, int, int]] = []  # the collector's thresholds before the test


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """A UI test runs with the garbage collector set as the app sets it (ui/collector.py):
    the oldest generation is collected only as a last resort while the app runs. CPython's
    own setting ran a full collection every test or so in the middle of one (46 for the 38
    tests of test_streaming.py and test_walkthrough_defects.py), each walking the app the test
    was driving, alive, with the last test's garbage: 40-150 ms each. The test's garbage is
    collected once it is over instead (teardown, below)."""
    _SAVED.append(gc.get_threshold())
    young, middle, _ = _SAVED[-1]
    gc.set_threshold(young, middle, LAST_RESORT)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Once the test's fixtures are torn down (its apps closed, tests/conftest.py), its
    garbage is collected in one pass and what survives is frozen, as the app does at a quiet
    moment (`Collector.settled`): the next test's pass walks only what that test left. Every
    FULL_EVERY_TESTS-th pass walks the frozen objects too, freeing what died in a cycle since
    it was frozen. The collector's thresholds are the process's again for the next test."""
    yield
    _SINCE_FULL["tests"] += 1
    if _SINCE_FULL["tests"] >= FULL_EVERY_TESTS:
        _SINCE_FULL["tests"] = 0
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    if _SAVED:
        gc.set_threshold(*_SAVED.pop())
