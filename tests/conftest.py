"""Shared fixtures: every test gets its own home directory and a clean environment."""

from __future__ import annotations

import compileall
import gc
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    LEAKY_VARIABLES,
    close_opened_apps,
    once_per_run,
    spec_problems_of_created_skills,
)

# The test run writes bytecode even where the environment says not to (PYTHONDONTWRITEBYTECODE,
# as on the development machine): otherwise each worker compiles and assertion-rewrites every
# test module again (about 4 s of CPU per worker). __pycache__/ is ignored by git.
sys.dont_write_bytecode = False
# A worker allocates heavily (apps, corpora, parsed replies): CPython's young-generation
# threshold (700) ran ~10,000 young and ~900 middle collections per worker, each walking what
# the last ones kept. Fewer and larger: about half the collector's CPU (tests/core and e2e with
# two workers 185 -> 170 s of CPU). The full collections stay as tests/ui/conftest.py sets them.
gc.set_threshold(20_000, 20, 10)


def pytest_configure(config: pytest.Config) -> None:
    """Compile the hermes_tui that the tests import, once, before any worker starts: the
    `python -m hermes_tui` processes the tests start (hundreds) then read its bytecode instead
    of compiling about 180 modules each (a quarter of a one-shot chat's CPU) when the
    environment forbids them to write it. A folder we may not write is left as it is."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it
        return
    spec = importlib.util.find_spec("hermes_tui")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=2)
    _rewrite_test_modules(config, Path(__file__).parent)


def _rewrite_test_modules(config: pytest.Config, tests: Path) -> None:
    """Rewrite the asserts of every test module here once, before any worker starts, into
    the cache pytest keeps beside each (__pycache__/*-pytest-*.pyc): in a fresh clone each of
    the four workers otherwise rewrote and compiled all of them itself (5-6 s of CPU each,
    more than the rest of its collection). A module whose cache is current is left as it
    is (its header read); the helpers the tests import are compiled as usual. Written with
    pytest's own functions, which are not public: should they change, the workers rewrite as
    before, just not once."""
    compileall.compile_dir(tests, quiet=2, rx=re.compile(r"(?:^|/)(?:test_[^/]*|conftest)\.py$"))
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        for source in sorted(tests.rglob("*.py")):
            if not (source.name.startswith("test_") or source.name == "conftest.py"):
                continue
            cache = rewrite.get_cache_dir(source)
            pyc = cache / (source.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(source, pyc) is not None or not rewrite.try_makedirs(cache):
                continue
            try:
                stat, code = rewrite._rewrite_test(source, config)
            except (SyntaxError, ValueError, OSError):
                continue  # its collection reports it, as it would have
            rewrite._write_pyc(state, code, stat, pyc)
    except (ImportError, AttributeError, KeyError, TypeError):
        return  # assertion rewriting off (--assert=plain), or pytest changed them


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collection runs without the cyclic garbage collector, which walked the growing heap of
    imports and items over and over (0.5 of its 3 s of CPU, in each worker); what it made is
    collected once after and frozen, as it lives as long as the worker."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.collect()
        gc.freeze()
        _FROZEN_AT["modules"] = len(sys.modules)


# sys.modules' size when the collector last froze what was alive (below), and whether anything
# has unfrozen the heap since
_FROZEN_AT: dict[str, int | bool] = {"modules": 0, "unfrozen": False}
_unfreeze = gc.unfreeze


def _noted_unfreeze() -> None:
    """gc.unfreeze, noted: the teardown below freezes the heap again after a test that did it
    (the collector's tests, an app run with a Collector). Reading the freeze count instead
    walks every frozen object (about 25 ms a test), and frozen objects freed by a test lower it
    without anyone unfreezing."""
    _FROZEN_AT["unfrozen"] = True
    _unfreeze()


gc.unfreeze = _noted_unfreeze


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Once a test (its fixtures torn down) has imported more modules, what is still alive is
    taken out of the cyclic garbage collector's walks (`gc.freeze`), as the app does after its
    start-up (ui/collector.py): modules, classes and functions live as long as the worker.
    Each test leaves tens of thousands of objects in cycles (an app's widgets), so CPython runs
    a full collection every test or two, and each walked every object the imports made (about
    150,000): a quarter of a Pilot test's CPU. Something that unfroze everything (the
    collector's tests) is frozen again after. A full collection here walks about 230,000
    objects (100-200 ms), so it runs only then, not after every test."""
    yield
    modules = len(sys.modules)
    if modules > int(_FROZEN_AT["modules"]) + 20 or _FROZEN_AT["unfrozen"]:
        gc.collect()
        gc.freeze()
        _FROZEN_AT.update(modules=modules, unfrozen=False)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in LEAKY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield
    close_opened_apps()


@pytest.fixture(scope="session")
def _remembered_verdicts(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The scanner's verdicts on what a fresh home's system prompt holds (the bundled skills'
    index, the default files), reached once per run (helpers.once_per_run): the first worker
    to need them scans (0.6 s of CPU), the others read them."""

    def scan() -> bytes:
        from hermes_tui.core.threats.cache import cache_path
        from hermes_tui.runtime import Runtime

        home = tmp_path_factory.mktemp("remembered") / "home"
        home.mkdir()
        runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "test-key"})
        try:
            runtime.build_system_prompt(home)
        finally:
            runtime.close()
        return cache_path(home).read_bytes()

    return once_per_run(tmp_path_factory, "remembered_verdicts", scan)


@pytest.fixture(scope="session")
def _remembered_headers(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bundled skills' parsed frontmatter (cache/skill_headers.json), as a home keeps it
    after its first start, made once per run (helpers.once_per_run): otherwise each test's
    first listing of the skills parses every bundled SKILL.md's YAML again and writes the file
    (2-4 ms of CPU and an fsync, in every home that lists skills)."""

    def scan() -> bytes:
        from hermes_tui.core.skills.header_cache import cache_path
        from hermes_tui.runtime import Runtime

        home = tmp_path_factory.mktemp("headers") / "home"
        home.mkdir()
        runtime = Runtime.open(home, environ={})
        try:
            runtime.skills.scan()
        finally:
            runtime.close()
        return cache_path(home).read_bytes()

    return once_per_run(tmp_path_factory, "remembered_headers", scan)


@pytest.fixture
def home(tmp_path: Path, _remembered_verdicts: bytes, _remembered_headers: bytes) -> Iterator[Path]:
    """A fresh home. Afterwards, every skill the test created through our writes must pass the
    Agent Skills reference validator (what we write stays strict).

    It starts with the scanner's verdicts on the bundled skills (and their parsed frontmatter)
    remembered, as a home does after its first start: otherwise every `chat -q` of a test
    imports xaidr and scans the same texts again (about a third of a one-shot chat's time).
    What a test writes is new and is scanned; the cold start's own tests (test_scan_cache.py)
    see xaidr imported. The folder is left world-readable, as an older home's was: the
    runtime must still make it private.
    """
    path = tmp_path / "home"
    path.mkdir()
    cache = path / "cache"
    cache.mkdir()
    cache.chmod(0o755)
    (cache / "scan_verdicts.json").write_bytes(_remembered_verdicts)
    (cache / "skill_headers.json").write_bytes(_remembered_headers)
    yield path
    problems = spec_problems_of_created_skills(path)
    assert not problems, f"skills written by hermes-tui break the Agent Skills spec: {problems}"


# The longest tests (10 s or more alone, from `--durations`), longest first: they start first,
# so that with two workers the run does not end waiting for a long test that started last.
# Node id prefixes; one that no longer matches anything only stops helping.
LONGEST = (
    "tests/e2e/test_friction.py::test_sandboxed_mode_runs_every_everyday_command_without_asking",
    "tests/e2e/test_sandbox_corpus.py::test_no_hostile_turn_gets_through[wall-only",
    "tests/e2e/test_no_secret_leaks.py",
    "tests/core/skills/install/test_vetting_corpus.py",
    "tests/evaluation/test_eval_openai_e2e.py",
    "tests/evaluation/test_eval_runner.py::test_bundled_suite_learn_arm",
    "tests/test_cli_mcp.py",
    "tests/e2e/test_sandbox_corpus.py",
    "tests/e2e/test_friction.py",
    "tests/ui/test_streaming.py",
    "tests/ui/test_insights_evals_tab.py",
    "tests/test_cli_skills_hub.py",
    "tests/ui/test_keyboard_flow.py",
    "tests/ui/test_markdown_lines.py::test_long_loose_ordered_list_keeps_its_numbers",
    "tests/acp/test_acp_server.py",
    "tests/core/skills/test_writes.py::test_four_processes_patching_one_skill_lose_nothing",
    "tests/e2e/test_chat_cancel.py",
    "tests/e2e/test_chat_safety.py",
    "tests/test_cli_curator.py",
    "tests/ui/test_keys_and_focus.py",
    "tests/ui/test_chat_view_kept.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The LONGEST first (in its order), then the rest as collected. Every xdist worker
    collects the same and sorts the same, as xdist requires."""

    def rank(item: pytest.Item) -> int:
        for index, prefix in enumerate(LONGEST):
            if item.nodeid.startswith(prefix):
                return index
        return len(LONGEST)

    items.sort(key=rank)
