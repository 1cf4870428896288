"""`hermes-tui eval` on the command line: a light --help, the dry run's plan and cost, clear
usage errors, the report files, and past runs listed."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import cli_env, run_main

from hermes_tui.evaluation.report import build_report, fmt, markdown, terminal_table
from hermes_tui.evaluation.stats import estimate

HEAVY = ("textual", "openai", "anthropic", "jsonschema", "acp")


def test_eval_help_imports_no_ui_or_provider_sdk(home: Path) -> None:
    probe = (
        "import sys\nfrom hermes_tui.cli import main\ntry:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        f"print('HEAVY=' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r})), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "--home", str(home), "eval", "--help"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert "--from-home" in result.stdout and "HEAVY=\n" in result.stderr, result.stderr


def test_dry_run_prints_the_plan_and_its_cost_and_runs_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    result = run_main(
        capsys,
        home,
        "eval",
        "--provider",
        "openai",
        "--model",
        "gpt-4.1-mini",
        "--families",
        "env-var",
        "flaky-test",
        "--repeat",
        "2",
        "--out",
        str(out),
        "--dry-run",
        OPENAI_API_KEY="sk-x",
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "learn: 4 runs = 2 families × up to 2 repetitions" in text
    assert "control: 4 runs" in text and "model calls: about" in text
    assert "estimated cost: $" in text and "openai/gpt-4.1-mini" in text
    assert not out.exists()


def test_dry_run_of_a_model_without_a_price_says_the_cost_is_unknown(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(
        capsys,
        home,
        "eval",
        "--provider",
        "openai",
        "--model",
        "my-local-llm",
        "--dry-run",
        OPENAI_API_KEY="sk-x",
    )
    assert result.returncode == 0 and "estimated cost: unknown" in result.stdout


def test_an_eval_without_a_provider_says_what_to_set_and_makes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(capsys, home, "eval", "--families", "env-var")
    assert result.returncode == 2 and "no LLM provider is configured" in result.stderr
    assert not (home / "evals").exists()


def test_usage_errors_say_what_is_wrong(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_arm = run_main(
        capsys, home, "eval", "--provider", "demo", "--arms", "learn,placebo", "--dry-run"
    )
    assert bad_arm.returncode == 2 and "--arms" in bad_arm.stderr
    no_suite = run_main(capsys, home, "eval", "no-such-suite", "--provider", "demo", "--dry-run")
    assert no_suite.returncode == 2 and "no suite 'no-such-suite'" in no_suite.stderr
    no_family = run_main(
        capsys, home, "eval", "--provider", "demo", "--families", "nope", "--dry-run"
    )
    assert no_family.returncode == 2 and "no family 'nope'" in no_family.stderr


def test_a_scripted_eval_writes_its_reports_under_the_home_and_lists_them(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(
        capsys,
        home,
        "eval",
        "--provider",
        "demo",
        "--families",
        "env-var",
        "--repeat",
        "2",
        "--arms",
        "learn",
    )
    assert result.returncode == 0, result.stderr
    (folder,) = (home / "evals").iterdir()
    assert {"report.json", "report.md", "report.svg", "state.json"} <= {
        p.name for p in folder.iterdir()
    }
    assert "tool calls" in result.stdout and "2/2 learn · rep 2 · env-var pass" in result.stderr
    listed = run_main(capsys, home, "eval", "--list")
    assert folder.name in listed.stdout and "scripted-eval" in listed.stdout


def _state(values: dict[str, list[list[float]]]) -> dict:
    """Records where family f's tool calls are values[arm][f] by repetition."""
    records = []
    families = [f"f{i}" for i in range(len(values["learn"]))]
    for arm, per_family in values.items():
        for family, curve in zip(families, per_family, strict=True):
            for rep, calls in enumerate(curve, 1):
                records.append(
                    {
                        "key": f"{arm}/{family}/{rep}",
                        "arm": arm,
                        "family": family,
                        "repetition": rep,
                        "variation": rep,
                        "passed": 1.0,
                        "score": 1.0,
                        "tool_calls": calls,
                        "tool_errors": 0,
                        "turns": calls + 1,
                        "tokens_in": 100,
                        "tokens_out": 10,
                        "cached_share": 0.5,
                        "cost": None,
                        "wall_time": 1.0,
                        "skills_loaded": [],
                        "skills_written": [],
                        "budget_hit": None,
                    }
                )
    return {
        "identity": {"arms": list(values), "families": families},
        "meta": {"seed": 7, "suite": "t", "model": "m"},
        "records": records,
    }


def test_noisy_differences_are_called_within_noise() -> None:
    report = build_report(
        _state(
            {
                "learn": [[5, 3], [5, 9], [5, 4], [5, 8]],
                "control": [[5, 6], [5, 4], [5, 7], [5, 5]],
            }
        )
    )
    diff = report["overall"]["tool_calls"]["last_difference"]
    assert diff["low"] < 0 < diff["high"] and not diff["significant"]
    assert any(
        line.startswith("Tool calls by the 2nd repetition") and "within noise" in line
        for line in report["verdict"]
    )


def test_fewer_than_three_samples_get_no_interval_and_the_verdict_says_so() -> None:
    assert estimate([1.0, 2.0], random.Random(0)).low is None
    report = build_report(_state({"learn": [[5, 2], [5, 2]], "control": [[5, 5], [5, 5]]}))
    assert report["overall"]["tool_calls"]["learn"][1]["low"] is None
    assert not report["overall"]["tool_calls"]["last_difference"]["significant"]
    assert report["verdict"][0].startswith("Only 2 families")


def test_markdown_and_terminal_show_the_json_numbers() -> None:
    report = build_report(
        _state({"learn": [[6, 3], [4, 2], [5, 3]], "control": [[6, 6], [4, 4], [5, 5]]})
    )
    text = markdown(report)
    assert f"| tool calls | learn | {fmt(5, 'tool_calls')}" in text
    assert "Learning saved 47 % of the tool calls by the 2nd repetition" in text
    table = terminal_table(report)
    assert "█▁ 5→2.67" in table and "██ 5→5" in table  # overall tool calls: learn, control
    json.dumps(report)  # plain JSON all the way down


def test_ctrl_c_keeps_the_finished_runs_and_says_how_to_go_on(home: Path, tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "eval", "--provider", "demo"]
        + ["--families", "env-var,flaky-test", "--repeat", "3", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        # A suite started as a background job inherits SIGINT ignored, and so would the
        # child (it then ran all twelve runs and exited 0): give it a terminal's default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        state = out / "state.json"
        if state.exists() and json.loads(state.read_text())["records"]:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert f"run the same command with --out {out}" in stderr
    kept = json.loads((out / "state.json").read_text())["records"]
    assert 1 <= len(kept) < 12
