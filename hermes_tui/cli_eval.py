"""`hermes-tui eval`: does learning help this model on this kind of work? (README "Measuring it")

Only argparse at import time: `--help` must stay light. The runner, the report and the
provider SDK are imported when an eval really runs.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

EXIT_OK, EXIT_USAGE, EXIT_STOPPED = 0, 2, 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `eval` command's description and arguments (cli_args lists the command)."""
    parser.description = (
        "Run a task suite in two arms (learn: reviews and curator on; control: "
        "memory and skills frozen), each from a scratch home, and report the curves. "
        "--provider demo runs the offline scripted model (--model ignorant: its variant that "
        "ignores its prompt)."
    )
    parser.add_argument(
        "suite", nargs="?", default="default", help="a bundled suite's name or a suite folder"
    )
    parser.add_argument(
        "--families", nargs="+", metavar="NAME", help="only these families (comma or space)"
    )
    parser.add_argument("--repeat", type=int, metavar="N", help="repetitions per family")
    parser.add_argument(
        "--arms", default="learn,control", help="learn, control or both (default learn,control)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="results folder (default <home>/evals/<run-id>); an existing one is resumed",
    )
    parser.add_argument(
        "--from-home",
        dest="from_home",
        action="store_true",
        help="start both arms from a copy of your memory and skills (never written)",
    )
    parser.add_argument(
        "--dry-run", dest="dry_run", action="store_true", help="print the plan and its cost"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals")
    parser.add_argument("--list", action="store_true", help="list past eval runs and exit")


def run(args: argparse.Namespace) -> int:
    from hermes_tui.config import ConfigError, Overrides, resolve_home
    from hermes_tui.core.llm.base import ProviderNotConfigured
    from hermes_tui.evaluation.runner import ARMS, EvalError
    from hermes_tui.evaluation.suite import SuiteError

    home = resolve_home(args.home)
    if args.list:
        return _list(home)
    arms = tuple(a.strip() for a in args.arms.split(",") if a.strip())
    unknown = [a for a in arms if a not in ARMS]
    if unknown or not arms:
        return _usage(f"--arms takes learn, control or both, not {args.arms!r}")
    if args.repeat is not None and not 1 <= args.repeat <= 100:
        return _usage("--repeat must be between 1 and 100")
    scripted = getattr(args, "provider", None) == "demo"
    model = getattr(args, "model", None)
    overrides = Overrides(
        None if scripted else getattr(args, "provider", None),
        None if scripted else model,
        getattr(args, "base_url", None),
    )
    try:
        suite = _suite(args)
        options = _options(args, suite, home, arms, overrides)
        if args.dry_run:
            return _dry_run(options, scripted, home)
        if not scripted:
            _provider_configured(home, overrides)  # said now, not after the first home is made
        return _run(args, options, scripted and model == "ignorant" if scripted else None)
    except (SuiteError, EvalError, ConfigError, ProviderNotConfigured) as exc:
        print(f"hermes-tui eval: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _usage(text: str) -> int:
    print(f"hermes-tui eval: {text}", file=sys.stderr)
    return EXIT_USAGE


def _suite(args: argparse.Namespace):
    from hermes_tui.evaluation.checker import CheckerRunner
    from hermes_tui.evaluation.suite import SuiteError, load_suite
    from hermes_tui.resources import bundled_evals_dir

    path = Path(args.suite).expanduser()
    if not path.is_dir():
        path = bundled_evals_dir() / args.suite
        if not path.is_dir():
            shipped = sorted(p.name for p in bundled_evals_dir().iterdir() if p.is_dir())
            raise SuiteError(
                f"no suite {args.suite!r}: give a folder, or one of {', '.join(shipped)}"
            )
    checker = CheckerRunner(sandbox=not getattr(args, "no_sandbox", None))
    suite = load_suite(path, verify=checker.passes)
    if args.families:
        names = [n.strip() for item in args.families for n in item.split(",") if n.strip()]
        suite = suite.select(names)
    return suite


def _options(args, suite, home: Path, arms, overrides):
    from hermes_tui.evaluation.runner import EvalOptions

    if args.out:
        out = Path(args.out).expanduser().resolve()
    else:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        out = home / "evals" / f"{stamp}-{suite.name}"
    return EvalOptions(
        suite=suite,
        out=out,
        user_home=home,
        arms=arms,
        repeat=args.repeat,
        from_home=args.from_home,
        seed=args.seed,
        sandbox=not getattr(args, "no_sandbox", None),
        overrides=overrides,
    )


def _dry_run(options, scripted: bool, home: Path) -> int:
    from hermes_tui.config import load_config
    from hermes_tui.core.llm import select
    from hermes_tui.core.llm.base import ProviderNotConfigured
    from hermes_tui.core.pricing import ModelPrice, price_for
    from hermes_tui.evaluation.runner import estimate_plan, plan

    runs = plan(options)
    if scripted:
        model, price = "the scripted eval model", ModelPrice(0.0, 0.0)
    else:
        config = load_config(home, options.overrides)
        try:
            spec = select.choose(config)
        except ProviderNotConfigured as exc:
            print(f"hermes-tui eval: {exc}", file=sys.stderr)
            return EXIT_USAGE
        model, price = f"{spec.name}/{spec.model}", price_for(spec.model, config.display.prices)
    estimate = estimate_plan(runs, options.suite, price)
    print(
        f"suite {options.suite.name} v{options.suite.version} · model {model} · out {options.out}"
    )
    for arm in options.arms:
        mine = [r for r in runs if r.arm == arm]
        families = sorted({r.family for r in mine})
        reps = max((r.repetition for r in mine), default=0)
        print(f"  {arm}: {len(mine)} runs = {len(families)} families × up to {reps} repetitions")
    print(
        f"model calls: about {estimate['model_calls_expected']} "
        f"(at most {estimate['model_calls_at_most']} if every run used its whole budget), "
        f"{estimate['review_calls_expected']} of them background reviews"
    )
    if estimate["cost_estimate"] is None:
        print("estimated cost: unknown (no price for this model; set display.prices)")
    else:
        print(
            f"estimated cost: ${estimate['cost_estimate']:.2f} (assuming "
            f"{estimate['tokens_in_per_call_assumed']:,} tokens in and "
            f"{estimate['tokens_out_per_call_assumed']} out per call, no cache)"
        )
    print("nothing was run (--dry-run)")
    return EXIT_OK


def _provider_configured(home: Path, overrides) -> None:
    """Raises ProviderNotConfigured (saying what to set) when no provider can be chosen."""
    from hermes_tui.config import load_config
    from hermes_tui.core.llm import select

    select.choose(load_config(home, overrides))


def _run(args: argparse.Namespace, options, ignorant: bool | None) -> int:
    from hermes_tui.core.text import json_for_terminal
    from hermes_tui.evaluation.report import build_report, terminal_table, write_outputs
    from hermes_tui.evaluation.runner import EvalRunner, scripted_provider

    provider = None
    if ignorant is not None:
        suite = options.suite

        def provider():
            return scripted_provider(suite, reads_prompt=not ignorant)

    bar = ProgressBar(sys.stderr)
    try:
        state = EvalRunner(options, provider=provider, progress=bar).run()
    except KeyboardInterrupt:
        bar.finish()
        print(
            f"hermes-tui eval: stopped; the finished runs are kept in {options.out}. "
            f"To go on, run the same command with --out {options.out}",
            file=sys.stderr,
        )
        return EXIT_STOPPED
    bar.finish()
    report = build_report(state)
    paths = write_outputs(report, options.out)
    if args.json:
        print(json_for_terminal(report, indent=1))
    else:
        print(terminal_table(report))
        print()
        for kind, path in paths.items():
            print(f"{kind}: {path}")
    return EXIT_OK


def _list(home: Path) -> int:
    from hermes_tui.evaluation.report import past_runs

    found = past_runs(home)
    if not found:
        print(f"no eval runs in {home / 'evals'}")
    for past in found:
        print(past.label)
    return EXIT_OK


class ProgressBar:
    """Where the eval is, on stderr: one redrawn line on a terminal, a line per run otherwise."""

    WIDTH = 24

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        # Our own cursor controls go around the CLI's neutralising wrapper (core/text.py).
        self.control = getattr(stream, "write_control", stream.write)

    def __call__(self, done: int, total: int, run, record) -> None:
        filled = int(self.WIDTH * done / total) if total else self.WIDTH
        bar = "█" * filled + "░" * (self.WIDTH - filled)
        where = f"{run.arm} · rep {run.repetition} · {run.family}"
        if record is None:
            if self.tty:
                self.control("\r\x1b[2K")
                self.stream.write(f"{bar} {done}/{total} {where} …")
                self.stream.flush()
            return
        mark = "pass" if record["passed"] else "FAIL"
        budget = f" (budget: {record['budget_hit']})" if record.get("budget_hit") else ""
        line = f"{bar} {done}/{total} {where} {mark}{budget} · {record['tool_calls']} tool calls"
        if self.tty:
            self.control("\r\x1b[2K")
            self.stream.write(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
