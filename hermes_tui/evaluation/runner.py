"""The eval runner: each arm from its own scratch home, each family's repetitions as separate
sessions in a fresh workspace, one record per run, resumable.

Order: for each arm, for each repetition, for each family, one run (so a home learns from all
families as a user's would). An arm's home is `<out>/homes/<arm>/`: empty but for the user's
config.yaml and .env (the provider), or with `--from-home` a copy of the user's memory, skills
and SOUL.md too; the user's home is only read. In `learn` a background review follows every
run (nudge intervals 1) and the curator runs after every repetition; in `control` there is no
review and memory and skill writes are held (write_approval), so nothing learned persists.
A run ends at its family's budget: past `iterations` model calls or `seconds` it stops and
counts as a failure. After every run `state.json` in the out folder is replaced atomically:
a killed eval started again with the same --out skips the runs it holds and redoes the one
that was cut off.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hermes_tui import __version__
from hermes_tui.config import Overrides
from hermes_tui.core.events import MemoryChanged, SkillChanged
from hermes_tui.core.llm.base import Provider, Usage
from hermes_tui.core.pricing import ModelPrice, UsageTotals, cost
from hermes_tui.core.storage import atomic_write_text
from hermes_tui.evaluation.checker import CheckerRunner
from hermes_tui.evaluation.suite import Family, Suite, make_workspace
from hermes_tui.runtime import Runtime

ARMS = ("learn", "control")
STATE_FILE = "state.json"
BUDGET_NOTE_START = "[iteration budget reached]"
REVIEW_WAIT = 120.0
# What a scratch home takes from the user's home: always the provider's settings; with
# --from-home also what the agent has learned.
PROVIDER_FILES = ("config.yaml", ".env")
# And always the scanner's remembered verdicts (kept under the scanner's identity, so a stale
# file is discarded whole): an arm's first session then scans only what the user's own
# sessions never showed the scanner, not the whole skills index again (the xaidr import and
# about 0.3 s per arm).
REMEMBERED_VERDICTS = "cache/scan_verdicts.json"
LEARNED = ("SOUL.md", "memories", "skills")
NOT_COPIED = shutil.ignore_patterns("*.lock", ".locks", ".archive", ".history")
# --dry-run's assumptions: a review's model calls, and tokens per call (the system prompt with
# the tools is ~5k; a short task's history adds the rest; no cache assumed).
REVIEW_CALLS_TYPICAL = 3
TOKENS_IN_PER_CALL = 8000
TOKENS_OUT_PER_CALL = 250


class EvalError(Exception):
    """The eval cannot start or resume; the message says what to change."""


@dataclass(frozen=True)
class EvalOptions:
    suite: Suite
    out: Path
    user_home: Path
    arms: tuple[str, ...] = ARMS
    repeat: int | None = None  # None: each family's own `repetitions`
    from_home: bool = False
    seed: int = 0
    sandbox: bool = True
    overrides: Overrides = field(default_factory=Overrides)

    def repetitions(self, family: Family) -> int:
        return self.repeat if self.repeat is not None else family.repetitions


@dataclass(frozen=True)
class PlannedRun:
    arm: str
    repetition: int
    family: str
    variation: int  # 1-based, in the family's order, starting over past the last

    @property
    def key(self) -> str:
        return f"{self.arm}/{self.family}/{self.repetition}"


def plan(options: EvalOptions) -> list[PlannedRun]:
    runs = []
    longest = max(options.repetitions(f) for f in options.suite.families)
    for arm in options.arms:
        for rep in range(1, longest + 1):
            for family in options.suite.families:
                if rep <= options.repetitions(family):
                    index = (rep - 1) % len(family.variations) + 1
                    runs.append(PlannedRun(arm, rep, family.name, index))
    return runs


def eval_overrides(options: EvalOptions) -> Overrides:
    """The user's provider flags; commands run unasked (nobody is there to answer) but always
    inside the sandbox unless --no-sandbox said otherwise."""
    given = options.overrides
    return Overrides(
        given.provider,
        given.model,
        given.base_url,
        mode="yolo",
        sandbox="on" if options.sandbox else "off",
    )


def arm_config(arm: str) -> dict[str, dict[str, Any]]:
    """The settings an arm lays over the user's config.yaml in its scratch home."""
    if arm == "learn":
        return {
            "memory": {"nudge_interval": 1, "write_approval": False},
            "skills": {"creation_nudge_interval": 1, "write_approval": False},
        }
    return {
        "memory": {"write_approval": True},
        "skills": {"write_approval": True},
    }


def prepare_home(destination: Path, options: EvalOptions, arm: str) -> None:
    """The arm's scratch home (once: a resumed eval keeps what its arm has learned so far)."""
    if destination.exists():
        return
    building = destination.with_name(destination.name + ".new")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    names = PROVIDER_FILES + (LEARNED if options.from_home else ())
    for name in names:
        source = options.user_home / name
        if source.is_dir():
            shutil.copytree(source, building / name, ignore=NOT_COPIED, symlinks=True)
        elif source.is_file():
            shutil.copy2(source, building / name)
    verdicts = options.user_home / REMEMBERED_VERDICTS
    if verdicts.is_file() and not verdicts.is_symlink():
        (building / REMEMBERED_VERDICTS).parent.mkdir(mode=0o700, exist_ok=True)
        shutil.copyfile(verdicts, building / REMEMBERED_VERDICTS)
    config_path = building / "config.yaml"
    try:
        config = (
            yaml.safe_load(config_path.read_text(encoding="utf-8")) if config_path.exists() else {}
        )
    except yaml.YAMLError as exc:
        raise EvalError(f"{options.user_home / 'config.yaml'}: not valid YAML ({exc})") from None
    config = config if isinstance(config, dict) else {}
    for section, values in arm_config(arm).items():
        existing = config.get(section)
        config[section] = {**(existing if isinstance(existing, dict) else {}), **values}
    if not options.from_home:
        skills = config["skills"]
        skills["external_dirs"] = []  # an empty home starts with no one's skills
    atomic_write_text(config_path, yaml.safe_dump(config, sort_keys=False))
    building.rename(destination)


class RunObserver:
    """The sink of an arm's runtime: counts what a run and its review wrote."""

    def __init__(self) -> None:
        self.skills_written: list[str] = []
        self.memory_written = 0
        self._lock = threading.Lock()

    def __call__(self, event: object) -> None:
        with self._lock:
            if isinstance(event, SkillChanged) and event.origin != "user":
                self.skills_written.append(event.name)
            elif isinstance(event, MemoryChanged) and event.origin != "user":
                self.memory_written += 1

    def take(self) -> tuple[list[str], int]:
        with self._lock:
            taken = (sorted(set(self.skills_written)), self.memory_written)
            self.skills_written, self.memory_written = [], 0
            return taken


Progress = Callable[[int, int, PlannedRun, dict[str, Any] | None], None]


class EvalRunner:
    def __init__(
        self,
        options: EvalOptions,
        *,
        provider: Callable[[], Provider] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.options = options
        self.provider_factory = provider
        self.progress = progress or (lambda *_args: None)
        self.checker = CheckerRunner(sandbox=options.sandbox)
        self.runs = plan(options)
        self.state_path = options.out / STATE_FILE

    # ---- state ---------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        """What must match for an --out folder to be resumed rather than refused."""
        suite = self.options.suite
        return {
            "suite": suite.name,
            "suite_version": suite.version,
            "families": [f.name for f in suite.families],
            "arms": list(self.options.arms),
            "repeat": self.options.repeat,
            "from_home": self.options.from_home,
            "runs": [r.key for r in self.runs],
        }

    def load_state(self) -> dict[str, Any]:
        if not self.state_path.exists():
            return {"identity": self.identity(), "meta": {}, "records": []}
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise EvalError(
                f"{self.state_path}: cannot be read ({exc}); remove it to start over"
            ) from None
        if state.get("identity") != self.identity():
            raise EvalError(
                f"{self.options.out} holds a different eval (suite, families, arms or "
                "repetitions differ); choose another --out, or run the same command to resume it"
            )
        return state

    def save_state(self, state: dict[str, Any]) -> None:
        atomic_write_text(self.state_path, json.dumps(state, indent=1, ensure_ascii=False))

    # ---- running -------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """Every planned run not yet recorded; returns the state (identity, meta, records)."""
        self.options.out.mkdir(parents=True, exist_ok=True)
        state = self.load_state()
        done = {r["key"] for r in state["records"]}
        started_before = bool(state["records"])
        state["meta"].setdefault("started_at", _now())
        total = len(self.runs)
        for arm in self.options.arms:
            todo = [r for r in self.runs if r.arm == arm and r.key not in done]
            if not todo:
                continue
            home = self.options.out / "homes" / arm
            prepare_home(home, self.options, arm)
            observer = RunObserver()
            runtime = Runtime.open(home, eval_overrides(self.options), sink=observer)
            try:
                if self.options.sandbox and not runtime.sandbox_status().active:
                    raise EvalError(
                        f"the sandbox cannot run here ({runtime.sandbox_status().detail}); "
                        "the eval runs commands unasked, so it needs it (or --no-sandbox)"
                    )
                if self.provider_factory is not None:
                    runtime.use_provider(self.provider_factory())
                meta = self.meta(runtime)
                _same_model(state, meta, self.options.out)
                state["meta"].update(meta)
                last_rep = 0
                for run in todo:
                    if arm == "learn" and last_rep and run.repetition != last_rep:
                        runtime.run_curator()
                    last_rep = run.repetition
                    self.progress(len(state["records"]), total, run, None)
                    record = self.run_one(runtime, observer, run)
                    record["resumed"] = started_before
                    state["records"].append(record)
                    state["meta"]["finished_at"] = _now()
                    self.save_state(state)
                    self.progress(len(state["records"]), total, run, record)
                if arm == "learn":
                    runtime.run_curator()
            finally:
                runtime.close(review_wait=REVIEW_WAIT)
        state["meta"].setdefault("finished_at", _now())
        return state

    def meta(self, runtime: Runtime) -> dict[str, Any]:
        spec = runtime.provider_spec()
        config = runtime.config
        return {
            "suite": self.options.suite.name,
            "suite_version": self.options.suite.version,
            "provider": spec.name,
            "model": spec.model,
            "base_url": spec.base_url,
            "seed": self.options.seed,
            "hermes_tui_version": __version__,
            "from_home": self.options.from_home,
            "sandbox": self.checker.status.detail if self.options.sandbox else "off",
            "config": {
                "context_length": config.model.context_length,
                "memory_char_limit": config.memory.memory_char_limit,
                "user_char_limit": config.memory.user_char_limit,
                "review_max_iterations": config.review.max_iterations,
                "terminal_mode": "yolo (inside the sandbox)",
                "arms": {arm: arm_config(arm) for arm in self.options.arms},
            },
        }

    def run_one(self, runtime: Runtime, observer: RunObserver, run: PlannedRun) -> dict[str, Any]:
        family = self.options.suite.family(run.family)
        variables = family.variations[run.variation - 1]
        workspace = self.options.out / "work" / run.arm / f"{run.family}-{run.repetition}"
        shutil.rmtree(workspace, ignore_errors=True)  # a run cut off by a kill starts over
        make_workspace(family, variables, workspace)
        observer.take()
        reviewer = runtime.reviewer() if run.arm == "learn" else None
        session = runtime.open_session(cwd=workspace, reviewer=reviewer)
        agent = session.agent
        agent.settings = dataclasses.replace(agent.settings, max_turns=family.budget.iterations)
        cancel = threading.Event()
        timer = threading.Timer(family.budget.seconds, cancel.set)
        timer.daemon = True
        before = len(agent.history)
        started = time.monotonic()
        timer.start()
        try:
            result = session.submit(family.prompt_for(variables), cancel)
        finally:
            timer.cancel()
        wall = time.monotonic() - started
        runtime.wait_for_reviews(REVIEW_WAIT)
        turn = agent.history[before:]
        budget = None
        if any(m.role == "user" and m.content.startswith(BUDGET_NOTE_START) for m in turn):
            budget = "iterations"
        elif result.interrupted and cancel.is_set():
            budget = "seconds"
        check = self.checker.check(family, variables, workspace)
        passed = check.passed and budget is None and result.error is None
        skills_written, memory_written = observer.take()
        usage = result.usage
        reviews = session.review_totals
        dollars = _cost(runtime, usage, reviews)
        return {
            "key": run.key,
            "arm": run.arm,
            "family": run.family,
            "repetition": run.repetition,
            "variation": run.variation,
            "session_id": session.id,
            "passed": 1.0 if passed else 0.0,
            "score": check.score if budget is None else 0.0,
            "budget_hit": budget,
            "error": result.error.user_message() if result.error else None,
            "tool_calls": result.tool_calls,
            "tool_errors": result.tool_errors,
            "turns": sum(1 for m in turn if m.role == "assistant"),
            "tokens_in": usage.input_tokens,
            "tokens_out": usage.output_tokens,
            "cached_share": round(usage.cached_tokens / usage.input_tokens, 4)
            if usage.input_tokens
            else 0.0,
            "review_tokens_in": reviews.input_tokens,
            "review_tokens_out": reviews.output_tokens,
            "cost": dollars,
            "wall_time": round(wall, 3),
            "skills_loaded": list(result.viewed_skills),
            "skills_written": skills_written,
            "memory_written": memory_written,
            "check_output": check.output[-500:],
        }


def scripted_provider(suite: Suite, *, reads_prompt: bool = True) -> Provider:
    """The scripted model in its eval mode, knowing every variation of the suite's families
    that say how it plays them."""
    from hermes_tui.core.llm.demo_eval import EvalScriptedProvider, ScriptedTask
    from hermes_tui.evaluation.suite import render

    tasks = []
    for family in suite.families:
        play = family.scripted
        if play is None:
            continue
        for variables in family.variations:
            where = f"{family.name}: scripted"
            rendered = dataclasses.replace(
                play,
                unaware=tuple(render(c, variables, where) for c in play.unaware),
                aware=tuple(render(c, variables, where) for c in play.aware),
            )
            tasks.append(ScriptedTask.playing(rendered, family.prompt_for(variables)))
    return EvalScriptedProvider(tasks, reads_prompt=reads_prompt)


def _cost(runtime: Runtime, usage: Usage, reviews: UsageTotals) -> float | None:
    """What the run and its review cost; None when the model has no known price."""
    provider = runtime.provider()
    price = ModelPrice(0.0, 0.0) if provider.name == "scripted" else None
    price = price or runtime.price_of(provider.name, provider.model)
    if price is None:
        return None
    spent = UsageTotals(
        usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.cache_creation_tokens
    )
    return round(cost(spent + reviews, price), 6)


def _same_model(state: dict[str, Any], meta: dict[str, Any], out: Path) -> None:
    """A resumed eval must go on with the model it started with, or its curves mix two."""
    if not state["records"]:
        return
    before = (state["meta"].get("provider"), state["meta"].get("model"))
    now = (meta["provider"], meta["model"])
    if before != now:
        raise EvalError(
            f"{out} was started with {before[0]}/{before[1]}, not {now[0]}/{now[1]}; resume it "
            "with the same --provider and --model, or choose another --out"
        )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def estimate_plan(runs: Sequence[PlannedRun], suite: Suite, price: Any | None) -> dict[str, Any]:
    """What --dry-run prints: runs, model calls expected and at most, and an estimated cost."""
    expected = most = reviews = 0
    for run in runs:
        family = suite.family(run.family)
        typical = (
            len(family.scripted.unaware) + 1 if family.scripted else family.budget.iterations // 2
        )
        expected += min(typical, family.budget.iterations + 1)
        most += family.budget.iterations + 1
        if run.arm == "learn":
            reviews += 1
    review_calls = reviews * REVIEW_CALLS_TYPICAL
    calls = expected + review_calls
    dollars = None
    if price is not None:
        dollars = cost(
            UsageTotals(calls * TOKENS_IN_PER_CALL, calls * TOKENS_OUT_PER_CALL, 0, 0), price
        )
    return {
        "runs": len(runs),
        "model_calls_expected": calls,
        "model_calls_at_most": most + reviews * 17,
        "review_calls_expected": review_calls,
        "tokens_in_per_call_assumed": TOKENS_IN_PER_CALL,
        "tokens_out_per_call_assumed": TOKENS_OUT_PER_CALL,
        "cost_estimate": None if dollars is None else round(dollars, 4),
    }
