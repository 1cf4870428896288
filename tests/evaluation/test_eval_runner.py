"""The runner with the offline scripted model: learning shows where it should, nowhere else,
budgets count as failures, the user's home is only read, and a cut-off eval resumes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hermes_tui.core.memory import MemoryStore
from hermes_tui.evaluation.report import build_report
from hermes_tui.evaluation.runner import EvalError, EvalOptions, EvalRunner, scripted_provider
from hermes_tui.evaluation.suite import load_suite
from hermes_tui.resources import bundled_evals_dir

BUNDLED = bundled_evals_dir() / "default"


@pytest.fixture(autouse=True)
def _user_home(tmp_path: Path, _remembered_verdicts: bytes) -> None:
    """The user's hermes home each eval reads (tmp_path/user), with the scanner's verdicts
    remembered as after the user's first session: its arms' scratch homes start from them, as
    they would on the user's machine (runner.REMEMBERED_VERDICTS)."""
    cache = tmp_path / "user" / "cache"
    cache.mkdir(parents=True)
    (cache / "scan_verdicts.json").write_bytes(_remembered_verdicts)


def _run(tmp_path: Path, suite, *, reads_prompt: bool = True, **options) -> dict:
    user = tmp_path / "user"
    user.mkdir(exist_ok=True)
    opts = EvalOptions(suite=suite, out=tmp_path / "out", user_home=user, **options)
    state = EvalRunner(
        opts, provider=lambda: scripted_provider(suite, reads_prompt=reads_prompt)
    ).run()
    return build_report(state)


def test_bundled_suite_learn_arm_drops_tool_calls_and_control_does_not(tmp_path: Path) -> None:
    report = _run(tmp_path, load_suite(BUNDLED), repeat=3)
    calls = report["overall"]["tool_calls"]
    assert calls["last_difference"]["significant"] and calls["last_difference"]["mean"] < 0
    assert calls["change"]["learn"]["significant"] and calls["change"]["learn"]["mean"] < 0
    assert not calls["change"]["control"]["significant"]
    assert any("saved" in line and "tool calls" in line for line in report["verdict"])
    assert any(
        "control arm's tool calls" in line and "within noise" in line for line in report["verdict"]
    )
    runs = report["runs"]
    assert len(runs) == 2 * 3 * 6
    learn_later = [r for r in runs if r["arm"] == "learn" and r["repetition"] > 1]
    assert all(r["passed"] for r in learn_later)
    # The learn arm's skills were written by its reviews, then loaded by the later runs.
    assert {s for r in runs if r["arm"] == "learn" for s in r["skills_written"]} >= {
        "run-project-tests",
        "staging-deploy",
    }
    assert any("run-project-tests" in r["skills_loaded"] for r in learn_later)
    control = [r for r in runs if r["arm"] == "control"]
    assert not any(
        r["skills_written"] or r["skills_loaded"] or r["memory_written"] for r in control
    )
    # The preference stated once is kept by learning and lost without it.
    pref = report["families"]["user-preference"]["passed"]
    assert pref["learn"] == [1.0, 1.0, 1.0] and pref["control"] == [1.0, 0.0, 0.0]
    meta = report["meta"]
    assert meta["model"] == "scripted-eval" and meta["suite_version"] == "1"
    assert meta["hermes_tui_version"] and meta["seed"] == 0


def test_a_model_that_ignores_its_prompt_shows_no_difference(tmp_path: Path) -> None:
    suite = load_suite(BUNDLED).select(["env-var", "deploy-order", "flaky-test"])
    report = _run(tmp_path, suite, reads_prompt=False, repeat=2)
    calls = report["overall"]["tool_calls"]
    assert not calls["last_difference"]["significant"] and calls["last_difference"]["mean"] == 0
    assert not calls["change"]["learn"]["significant"]
    assert any("within noise" in line and "Tool calls" in line for line in report["verdict"])
    assert report["overall"]["tool_calls"]["learn"][1]["low"] is not None  # 3 families: judged


def _budget_suite(tmp_path: Path, command: str, **budget: str) -> Path:
    family = tmp_path / "suite" / "slow"
    (family / "workspace").mkdir(parents=True)
    (family / "workspace" / "README").write_text("{{who}}\n")
    (family / "check.sh").write_text("test -f done.txt\n")
    (family / "solve.sh").write_text("touch done.txt\n")
    budget_yaml = ", ".join(f"{k}: {v}" for k, v in budget.items())
    (family / "family.yaml").write_text(
        "name: slow\nprompt: Do it for {{who}}.\nvariations: [{who: ada}]\n"
        f"budget: {{{budget_yaml}}}\nsolution: solve.sh\n"
        "scripted:\n  marker: never-there\n  lesson: nothing\n"
        f"  unaware: ['{command}', 'ls', 'ls', 'touch done.txt']\n  aware: ['touch done.txt']\n"
    )
    return tmp_path / "suite"


def test_an_arm_s_home_starts_with_the_users_remembered_scan_verdicts(tmp_path: Path) -> None:
    """The scanner's verdicts the user's sessions reached are copied into each arm's scratch
    home (the user's file is only read), so its first session scans only what is new."""
    import json

    user_file = tmp_path / "user" / "cache" / "scan_verdicts.json"
    document = json.loads(user_file.read_bytes())
    some_verdict = next(iter(document["verdicts"].values()))
    document["verdicts"]["0" * 64] = some_verdict  # a text no session here scans
    user_file.write_text(json.dumps(document))
    before = user_file.read_bytes()
    _run(tmp_path, load_suite(BUNDLED).select(["env-var"]), arms=("control",), repeat=1)
    arm_file = tmp_path / "out" / "homes" / "control" / "cache" / "scan_verdicts.json"
    assert "0" * 64 in json.loads(arm_file.read_bytes())["verdicts"]
    assert user_file.read_bytes() == before


def test_a_run_that_hits_its_iteration_budget_counts_as_a_failure(tmp_path: Path) -> None:
    suite = load_suite(_budget_suite(tmp_path, "ls", iterations="2"))
    report = _run(tmp_path, suite, arms=("control",), repeat=1)
    (run,) = report["runs"]
    assert run["budget_hit"] == "iterations" and run["passed"] == 0.0 and run["score"] == 0.0
    assert run["tool_calls"] == 2


def test_a_run_that_hits_its_time_budget_counts_as_a_failure(tmp_path: Path) -> None:
    suite = load_suite(_budget_suite(tmp_path, "sleep 30", seconds="1"))
    report = _run(tmp_path, suite, arms=("control",), repeat=1)
    (run,) = report["runs"]
    assert run["budget_hit"] == "seconds" and run["passed"] == 0.0
    assert run["wall_time"] < 30  # the command was stopped, not waited for


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def test_from_home_starts_from_a_copy_of_the_users_memory_and_never_writes_it(
    tmp_path: Path,
) -> None:
    user = tmp_path / "user"
    MemoryStore(user / "memories").add(
        "memory", "Package builds need BUILD_PROFILE=release set for ./build.sh."
    )
    before = _digest(user)
    suite = load_suite(BUNDLED).select(["env-var"])
    report = _run(tmp_path, suite, repeat=2, from_home=True)
    assert _digest(user) == before
    # Both arms knew the fact from the start: no trap, not even on the first run (the learn
    # arm's review then wrote a skill, which its second run loads: one call more).
    calls = report["families"]["env-var"]["tool_calls"]
    assert calls["control"] == [1.0, 1.0] and calls["learn"][0] == 1.0


def test_an_empty_home_arm_does_not_see_the_users_memory(tmp_path: Path) -> None:
    user = tmp_path / "user"
    MemoryStore(user / "memories").add(
        "memory", "Package builds need BUILD_PROFILE=release set for ./build.sh."
    )
    suite = load_suite(BUNDLED).select(["env-var"])
    report = _run(tmp_path, suite, repeat=1, arms=("control",))
    assert report["families"]["env-var"]["tool_calls"]["control"] == [3.0]


class _Stop(Exception):
    pass


def test_a_cut_off_eval_resumes_where_it_stopped(tmp_path: Path) -> None:
    suite = load_suite(BUNDLED).select(["env-var", "flaky-test"])
    user = tmp_path / "user"
    options = EvalOptions(suite=suite, out=tmp_path / "out", user_home=user, repeat=2)

    def stop_after_three(done, total, run, record) -> None:
        if record is not None and done == 3:
            raise _Stop

    with pytest.raises(_Stop):
        EvalRunner(
            options, provider=lambda: scripted_provider(suite), progress=stop_after_three
        ).run()
    import json

    first = json.loads((tmp_path / "out" / "state.json").read_text())["records"]
    assert len(first) == 3
    state = EvalRunner(options, provider=lambda: scripted_provider(suite)).run()
    records = state["records"]
    assert len(records) == 8 and records[:3] == first
    assert len({r["key"] for r in records}) == 8
    # The learn arm kept what it had learned before the cut: its 2nd repetition used the skills.
    learn2 = [r for r in records if r["arm"] == "learn" and r["repetition"] == 2]
    assert all(r["skills_loaded"] for r in learn2)


def test_an_out_folder_of_another_eval_is_refused(tmp_path: Path) -> None:
    suite = load_suite(BUNDLED).select(["env-var"])
    _run(tmp_path, suite, repeat=1, arms=("control",))
    with pytest.raises(EvalError, match="different eval"):
        _run(tmp_path, suite, repeat=2, arms=("control",))


def test_a_resumed_eval_must_keep_its_model(tmp_path: Path) -> None:
    suite = load_suite(BUNDLED).select(["env-var"])
    user = tmp_path / "user"
    options = EvalOptions(suite=suite, out=tmp_path / "out", user_home=user, repeat=2)

    def stop(done, total, run, record) -> None:
        if record is not None:
            raise _Stop

    with pytest.raises(_Stop):
        EvalRunner(options, provider=lambda: scripted_provider(suite), progress=stop).run()
    ignorant = lambda: scripted_provider(suite, reads_prompt=False)  # noqa: E731
    with pytest.raises(EvalError, match="scripted-eval, not scripted/scripted-eval-ignorant"):
        EvalRunner(options, provider=ignorant).run()
