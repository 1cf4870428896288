"""The suite format: the bundled families are honest (their checkers fail on an untouched
workspace and pass on the reference solution) and a suite that is not is refused at load."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hermes_tui.evaluation.checker import CheckerRunner
from hermes_tui.evaluation.suite import SuiteError, load_suite, make_workspace
from hermes_tui.resources import bundled_evals_dir

BUNDLED = bundled_evals_dir() / "default"


@pytest.fixture(scope="module")
def runner() -> CheckerRunner:
    return CheckerRunner()


def test_bundled_suite_has_six_families_each_with_five_distinct_variations() -> None:
    suite = load_suite(BUNDLED)
    assert len(suite.families) >= 6
    for family in suite.families:
        assert len(family.variations) >= 5, family.name
        prompts = {family.prompt_for(v) for v in family.variations}
        assert len(prompts) == len(family.variations), f"{family.name}: variations repeat a prompt"
        assert family.solution is not None and family.solution.is_file()
        assert family.scripted is not None and family.trap


@pytest.mark.parametrize("name", sorted(p.parent.name for p in BUNDLED.glob("*/family.yaml")))
def test_checker_fails_untouched_and_passes_on_the_reference_solution(
    name: str, runner: CheckerRunner, tmp_path: Path
) -> None:
    family = load_suite(BUNDLED).family(name)
    for index, variables in enumerate(family.variations):
        workspace = make_workspace(family, variables, tmp_path / f"v{index}")
        untouched = runner.check(family, variables, workspace)
        assert not untouched.passed, f"{family.name} v{index}: {untouched.output}"
        assert family.solution is not None
        solved = runner.run_script(family.solution, family, variables, workspace)
        assert solved.passed, f"{family.name} v{index} solution failed: {solved.output}"
        checked = runner.check(family, variables, workspace)
        assert checked.passed and checked.score == 1.0, f"{family.name} v{index}: {checked.output}"


def _family(root: Path, check: str = "test -f done.txt\n", **yaml_extra: str) -> Path:
    family = root / "suite" / "fam"
    (family / "workspace").mkdir(parents=True)
    (family / "workspace" / "{{who}}.txt").write_text("hello {{who}}\n")
    (family / "check.sh").write_text(check)
    lines = [
        "name: fam",
        "prompt: Greet {{who}}.",
        "variations: [{who: ada}, {who: bob}]",
        *(f"{k}: {v}" for k, v in yaml_extra.items()),
    ]
    (family / "family.yaml").write_text("\n".join(lines) + "\n")
    return root / "suite"


def test_a_family_whose_checker_passes_untouched_is_rejected_at_load(
    tmp_path: Path, runner: CheckerRunner
) -> None:
    suite = _family(tmp_path, check="exit 0\n")
    with pytest.raises(SuiteError, match="passes on the untouched workspace"):
        load_suite(suite, verify=runner.passes)


def test_a_checker_that_passes_untouched_only_for_one_variation_is_still_rejected(
    tmp_path: Path, runner: CheckerRunner
) -> None:
    suite = _family(tmp_path, check='[ "$EVAL_WHO" = bob ]\n')
    with pytest.raises(SuiteError, match="variation 2"):
        load_suite(suite, verify=runner.passes)


def test_placeholders_fill_file_names_and_contents(tmp_path: Path) -> None:
    suite = load_suite(_family(tmp_path))
    family = suite.family("fam")
    workspace = make_workspace(family, family.variation(2), tmp_path / "w")
    assert (workspace / "bob.txt").read_text() == "hello bob\n"
    assert family.variation(3) == family.variation(1)  # past the last variation: starts over
    assert family.prompt_for(family.variation(1)) == "Greet ada."


def test_a_script_in_the_fixture_is_runnable_even_if_its_mode_was_lost(tmp_path: Path) -> None:
    suite = _family(tmp_path)
    script = suite / "fam" / "workspace" / "run"
    script.write_text("#!/bin/sh\necho {{who}}\n")
    script.chmod(0o644)
    family = load_suite(suite).family("fam")
    workspace = make_workspace(family, family.variation(1), tmp_path / "w")
    assert os.access(workspace / "run", os.X_OK)
    assert not os.access(workspace / "ada.txt", os.X_OK)


def test_an_unknown_placeholder_is_refused_with_its_name(tmp_path: Path) -> None:
    suite = _family(tmp_path)
    (suite / "fam" / "workspace" / "x.txt").write_text("{{nobody}}")
    with pytest.raises(SuiteError, match=r"\{\{nobody\}\}"):
        load_suite(suite)


def test_a_variation_value_cannot_carry_a_file_out_of_the_workspace(tmp_path: Path) -> None:
    suite = _family(tmp_path)
    yaml_path = suite / "fam" / "family.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("{who: bob}", "{who: ../../../escaped}"))
    family = load_suite(suite).family("fam")
    with pytest.raises(SuiteError, match="outside the workspace"):
        make_workspace(family, family.variation(2), tmp_path / "w")
    assert not list(tmp_path.rglob("escaped.txt"))


def test_a_checker_outside_the_family_folder_is_refused(tmp_path: Path) -> None:
    suite = _family(tmp_path, checker="../../../bin/true")
    with pytest.raises(SuiteError, match="outside the family"):
        load_suite(suite)


def test_a_symlinked_fixture_is_refused(tmp_path: Path) -> None:
    suite = _family(tmp_path)
    os.symlink("/etc/passwd", suite / "fam" / "workspace" / "passwd")
    with pytest.raises(SuiteError, match="symlink"):
        load_suite(suite)


def test_the_checker_runs_sandboxed_and_cannot_write_outside_the_workspace(
    tmp_path: Path, runner: CheckerRunner
) -> None:
    outside = tmp_path / "outside.txt"
    suite = _family(tmp_path, check=f"echo pwned > {outside}; touch done.txt; exit 1\n")
    family = load_suite(suite).family("fam")
    workspace = make_workspace(family, family.variation(1), tmp_path / "w")
    result = runner.check(family, family.variation(1), workspace)
    assert not result.passed
    assert not outside.exists() and (workspace / "done.txt").exists()


def test_partial_credit_comes_from_a_last_score_line(tmp_path: Path, runner: CheckerRunner) -> None:
    suite = load_suite(BUNDLED)
    family = suite.family("user-preference")
    variables = family.variation(2)
    workspace = make_workspace(family, variables, tmp_path / "w")
    notes = "# Beacon 0.7\n\n- CSV export\n- fewer retries\n"
    (workspace / "NOTES.md").write_text(notes)
    result = runner.check(family, variables, workspace)
    assert not result.passed and result.score == 0.5


def test_the_bundled_suite_is_found_where_the_package_is() -> None:
    assert (bundled_evals_dir() / "default" / "suite.yaml").is_file()
    assert shutil.which("sh")


def test_shell_in_a_variation_value_stays_text(tmp_path: Path, runner: CheckerRunner) -> None:
    suite = _family(tmp_path, check='test -f done.txt && [ -n "$EVAL_WHO" ]\n')
    yaml_path = suite / "fam" / "family.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("{who: bob}", "{who: '$(touch PWNED)'}"))
    (suite / "fam" / "workspace" / "{{who}}.txt").rename(suite / "fam" / "workspace" / "w.txt")
    family = load_suite(suite, verify=runner.passes).family("fam")
    variables = family.variation(2)
    workspace = make_workspace(family, variables, tmp_path / "w")
    assert (workspace / "w.txt").read_text() == "hello $(touch PWNED)\n"
    (workspace / "done.txt").touch()
    assert runner.check(family, variables, workspace).passed  # the checker ran in the workspace
    assert not list(tmp_path.rglob("PWNED"))
