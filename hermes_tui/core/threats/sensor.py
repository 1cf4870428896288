"""The xaidr sensor as one more pair of eyes: its verdict on a text turned into our findings.

The library is imported on first use (~0.3 s), its telemetry goes nowhere and no policy file
from the working directory is read. It fails *open* on an internal error (an allowed result
marked `scan_error`); here any failure of it, raised or reported, is a `scanner_error` finding,
which holds the text for a person: the library failing must never let a write through unseen.
Its findings in action categories (tool misuse, installs, PII) and its "maybe" outside the
injection categories are dropped: they judge commands, and a note that names one is not one.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from hermes_tui.core.threats.verdicts import REFUSE_CATEGORIES, WEAK, Finding, Severity, excerpt


class _NullReporter:
    """xaidr reports every scan somewhere (stdout by default); ours go nowhere."""

    def report(self, events: list[dict[str, Any]]) -> None:
        return None

    def close(self) -> None:
        return None


def _print_to_log(*values: object, sep: str | None = " ", end: str | None = "\n", **_: Any) -> None:
    """What xaidr `print`s (a scan past its time budget, on a loaded machine) would land in
    `chat -q`'s answer, its `--json` document and the ACP server's protocol stream, all on
    stdout: it goes to the library's logger instead."""
    logging.getLogger("xaidr").warning((sep or " ").join(map(str, values)))


def _quiet_prints() -> None:
    """Every loaded xaidr module's `print` is `_print_to_log` (a module global shadows the
    builtin for that module's code, in every thread, without touching sys.stdout)."""
    for name, module in list(sys.modules.items()):
        if (name == "xaidr" or name.startswith("xaidr.")) and module is not None:
            module.print = _print_to_log  # type: ignore[attr-defined]


class _ThreadClock:
    """The `time` module as xaidr's L1 scanner sees it: its `perf_counter` is the scanning
    thread's CPU time. The scanner's bounds (0.5 s for the rule loop, 1 s for one rule, 1 s
    for the windows of a long text) are wall-clock; on a machine busy elsewhere an ordinary
    10-50 KB text, 0.1-0.3 s of the scanner's work, took 1-1.4 s of wall clock and was
    failed closed (held) however often it was scanned again, as the load that starved one
    scan starves the next. Measured in the thread's own CPU time the bounds still stop a text
    whose scan is costly (what an attacker's text can do), and no longer the machine's load."""

    perf_counter = staticmethod(time.thread_time)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


_CPU_CLOCK = _ThreadClock()


def _l1_bounded_by(clock: Any) -> None:
    """What xaidr's L1 scanner reads its bounds with (`time`, or `_CPU_CLOCK`), once the
    library is loaded."""
    l1 = sys.modules.get("xaidr.scanner.l1")
    if l1 is not None:
        l1.time = clock  # type: ignore[attr-defined]


# xaidr's L1 pass (its 220-odd regular expressions) is most of a short text's scan, and a
# continuation's two joins (scanner.py, assess_continuation: "\n" and " ") differ only where
# the library's normaliser makes them the same: its L1 result on the normalised view is the
# same text's. The last L1_REMEMBERED results on texts of at most L1_REMEMBERED_CHARS are kept,
# each only while the rule table is the one that gave it, and only one no time bound touched
# (a finding of the rule loop's budget or of a slow rule tells of the clock, not the text).
L1_REMEMBERED = 512
L1_REMEMBERED_CHARS = 8192


def _remembering_l1() -> None:
    """The library's pipeline (scanner/local.py) calls a remembering `scan_l1`."""
    from xaidr.scanner import l1, local

    scan_l1 = l1.scan_l1
    timed = frozenset({l1.SCAN_DEGRADED_RULE, l1.PATHOLOGICAL_PATTERN_RULE})
    kept: OrderedDict[tuple[str, bool], Any] = OrderedDict()
    rules: list[Any] = [l1.INPUT_RULES, l1.OUTPUT_RULES]

    def remembered(text: str, output: bool = False) -> Any:
        if len(text) > L1_REMEMBERED_CHARS:
            return scan_l1(text, output=output)
        if rules[0] is not l1.INPUT_RULES or rules[1] is not l1.OUTPUT_RULES:
            kept.clear()  # another table (a test's): what the old one gave is not its answer
            rules[:] = [l1.INPUT_RULES, l1.OUTPUT_RULES]
        key = (text, output)
        found = kept.get(key)
        if found is not None:
            kept.move_to_end(key)
            return own_copy(found)
        found = scan_l1(text, output=output)
        if not any(t.rule in timed for t in found.threats):
            kept[key] = own_copy(found)
            if len(kept) > L1_REMEMBERED:
                kept.popitem(last=False)
        return found

    def own_copy(result: Any) -> Any:
        """A result whose list of threats no caller shares: the pipeline copies it today,
        and what a caller appended would otherwise be every later caller's."""
        return dataclasses.replace(result, threats=list(result.threats))

    local.scan_l1 = remembered  # type: ignore[attr-defined]


def build_sensor() -> Any:
    from xaidr import Sensor

    # The library logs through `logging`; without a handler Python would print its warnings
    # to stderr, across the TUI. Records still reach any handler the host configures.
    library_log = logging.getLogger("xaidr")
    if not library_log.handlers:
        library_log.addHandler(logging.NullHandler())
    _quiet_prints()
    sensor = Sensor(
        agent_id="hermes-tui",
        enforcement_mode="block",
        reporter=_NullReporter(),
        # Its own faults, and an input past one of its parser bounds, answer "blocked"
        # instead of the default "allowed": both become a hold below.
        fail_closed=("internal", "bounds"),
    )
    # It also loads ./xaidr-policy.yaml from the working directory when one exists, and the
    # working directory may be a repository the user just cloned: no policy but ours.
    sensor.set_policy(None)
    _quiet_prints()  # and the modules the sensor imported as it started
    _remembering_l1()
    return sensor


# xaidr findings that read ordinary notes as threats: a path named in prose is not a read,
# and "confidential" is not a leak. Our own patterns cover the verb-shaped versions.
_LIBRARY_NOISE_RULES = frozenset({"LLM06_sensitive_file_read", "LLM06_confidential"})
# Blocks that name an ordinary engineering step: a weak signal in a note, not a hold. A password
# or credential merely named ("the staging password is rotated every 90 days") and a reset
# named ("the staging system is reset every night") held ordinary notes of three corpora, and
# decided no attack of any corpus alone: our patterns hold a credential written down with its
# value (planted_credential, hardcoded_secret) and the learned scorer reads the rest.
# Eighth round, the same evidence for a destructive shell command merely named ("fix it with
# chown, never chmod 777") and for the library's "maybe" on exfiltration ("prefer ssh-agent
# forwarding over copying keys to the jump host"): alone, across every corpus, they held 4
# ordinary notes (one of the tenth holdout's) and decided no attack.
_WEAK_WHEN_BLOCKED = frozenset(
    {
        "LLM05_package_install",
        "LLM06_credential",
        "INTENT_destroy_resources",
        "LLM08_shell_destructive",
    }
)
_WEAK_WHEN_FLAGGED = frozenset({"exfiltration"})


# Both compiled on first use (a large alternation over eleven languages): start-up does not
# pay for them, since only a text the library reads as a prompt leak is checked against them.
@functools.cache
def _prompt_as_object() -> re.Pattern[str]:
    """A prompt named as the thing being measured or stored is not a prompt being leaked."""
    return re.compile(
        r"\bsystem\s+prompts?(?:'s)?\s+(?:length|size|tokens?|hash|checksum|chars?|characters"
        r"|count|cache|template|file|path|builder|version|diff|budget)\b"
        r"|\b(?:tokens?|size|length|chars?|characters)\s+(?:in|of)\s+the\s+system\s+prompt\b"
        r"|\bsystem\s+prompt\s+(?:for|of)\s+the\s+\w+\s+(?:bot|agent|service)\b"
        r"|\b(?:include|put|paste)\s+the\s+system\s+prompt\s+in\s+bug\s+reports\b",
        re.I,
    )


@functools.cache
def _prompt_requested() -> re.Pattern[str]:
    """Someone asking for a prompt, in any language (an order, not a mention)."""
    from hermes_tui.core.threats import lexicon as L

    return re.compile(
        rf"{L.PROMPT_REQUEST_VERB}[^.\n。]{{0,60}}?{L.SYSTEM_PROMPT}"
        rf"|{L.SYSTEM_PROMPT}[^.\n。]{{0,20}}?{L.PROMPT_REQUEST_AFTER}"
        r"|\b(?:what\s+(?:is|are)|what's)\s+(?:your|the)\s+(?:system\s+prompt|instructions)"
        r"|\b(?:initial|original|hidden|secret)\s+(?:instructions|prompt)",
        re.I,
    )


_SHARED: list[Any] = []  # the process's one sensor, once built
_SCAN_LOCK = threading.Lock()  # the library does not say its sensor may scan on two threads


def shared_sensor() -> Any:
    """The process's one library sensor, built on the first scan of any runtime.

    The sensor starts a telemetry thread that runs until the process ends and keeps what
    `sys.stderr` was when it started: in the app, the app itself. One per runtime, each
    replaced runtime (a provider switch, the demo's, every test's) stayed alive with its app.
    """
    with _SCAN_LOCK:
        if not _SHARED:
            _SHARED.append(build_sensor())
        return _SHARED[0]


# The library bounds each stage of a scan by wall-clock time (0.5 s) and, with "bounds" closed,
# answers `fail_closed` past it: on a machine busy elsewhere, a long text it would have read in
# time fails though its thread ran for a fraction of that. A scan that failed closed after
# STARVED_AFTER seconds having had the CPU for less than half of them is run once more; the
# verdict is the second scan's, so a text that fails again (or reads past a bound in CPU time
# too) is still held.
STARVED_AFTER = 0.25
# A text up to this long is scanned first with the library's bounds read off the wall clock:
# its rule loop reads the clock two or three times a rule, and a thread's CPU time is a system
# call (about 1 us, a quarter of a short text's scan) where the wall clock is not. A scan that
# took less than STARVED_AFTER of wall clock met none of the bounds (the shortest is 0.5 s), in
# wall-clock or CPU time, and the rest of a scan depends on the text alone: its verdict is the
# one the CPU-time bounds give. A slower one (its thread starved of the CPU) is run once more
# with the bounds in CPU time, as every longer text is run (its scan takes 10 ms and more, which
# the clock barely adds to).
WALL_CLOCK_FIRST = 1000


class XaidrSensor:
    """The library's sensor (by default the process's one), built on the first scan;
    `findings` never raises."""

    def __init__(self, factory: Callable[[], Any] = shared_sensor) -> None:
        self._factory = factory
        self._sensor: Any = None

    def _scan(self, text: str) -> Any:
        with _SCAN_LOCK:
            if len(text) <= WALL_CLOCK_FIRST:
                _l1_bounded_by(time)
                wall = time.perf_counter()
                result = self._sensor.scan(text)
                if time.perf_counter() - wall < STARVED_AFTER:
                    return result
                _l1_bounded_by(_CPU_CLOCK)
                return self._sensor.scan(text)
            _l1_bounded_by(_CPU_CLOCK)
            wall, cpu = time.perf_counter(), time.thread_time()
            result = self._sensor.scan(text)
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            if getattr(result, "input_status", None) == "fail_closed" and (
                wall >= STARVED_AFTER and cpu < wall / 2
            ):
                result = self._sensor.scan(text)
            return result

    def findings(self, text: str, view: str = "text") -> list[Finding]:
        try:
            if self._sensor is None:
                self._sensor = self._factory()
            result = self._scan(text)
        except Exception as exc:  # the library failing must not let a write through unseen
            return [
                Finding(
                    "scanner_error",
                    "scanner",
                    "medium",
                    f"the xaidr scanner failed ({type(exc).__name__}: {exc}); a person must look",
                    text[:60],
                    view,
                    "xaidr",
                )
            ]
        status = getattr(result, "input_status", None)
        if status in ("scan_error", "not_scannable", "fail_closed"):
            return [
                Finding(
                    "scanner_error",
                    "scanner",
                    "medium",
                    f"the xaidr scanner could not judge this text ({status}); a person must look",
                    text[:60],
                    view,
                    "xaidr",
                )
            ]
        if result.action == "allowed":
            return []
        rules = [r for r in (result.rules or []) if r not in _LIBRARY_NOISE_RULES]
        if not rules:
            return []
        category = str(result.category or "unknown")
        weak = False
        if category == "system_prompt_leak" and (
            _prompt_as_object().search(text) or not _prompt_requested().search(text)
        ):
            # Issue 23: notes that merely talk about system prompts ("the system prompt is
            # rebuilt at session start") were refused. Without a request for one, it is a
            # weak signal.
            weak = True
        elif category not in REFUSE_CATEGORIES and (
            result.action != "blocked" or set(rules) <= _WEAK_WHEN_BLOCKED
        ):
            # The library's action categories (tool misuse, package installs, PII) judge
            # commands an agent might run; its "maybe" on a note that names one, and any note
            # that names a package install ("pip install needs the proxy"), is a weak signal,
            # which holds it only in a tainted turn. A block in those categories is held.
            weak = True
        elif result.action != "blocked" and category in _WEAK_WHEN_FLAGGED:
            category = f"{category} (flagged)"
            weak = True
        elif result.action != "blocked":
            # A flag in an injection category is the library's "maybe": a person decides.
            category = f"{category} (flagged)"
        if weak:
            category += WEAK
        severity: Severity = (
            "critical" if result.score >= 0.9 else "high" if result.score >= 0.6 else "medium"
        )
        return [
            Finding(
                rules[0],
                category,
                severity,
                f"xaidr {result.action} as {result.category} (score {result.score:.2f}; "
                f"rules {', '.join(rules)})" + (f", found in the {view}" if view != "text" else ""),
                excerpt(text, 0, 0),
                view,
                "xaidr",
            )
        ]
