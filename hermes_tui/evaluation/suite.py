"""A task suite: a folder of families, each a YAML file, a workspace fixture, a checker and a
reference solution.

    <suite>/suite.yaml                 name, version, description
    <suite>/<family>/family.yaml       prompt template, variations, repetitions, budget, checker
    <suite>/<family>/workspace/        copied (with {{placeholders}} filled) for every run
    <suite>/<family>/check.sh          run in the workspace after the turn: exit 0 passes;
                                       a last line `score=0.5` gives partial credit
    <suite>/<family>/solution.sh       the reference solution (the suite's own tests run it)

Placeholders `{{name}}` take a variation's values, in the prompt, in workspace file names and
contents, and in the scripted model's commands; the checker gets them as EVAL_<NAME>. Loading
checks everything a run would trip over later (an unknown placeholder, a path that leaves the
workspace, a symlink in a fixture) and, with `verify`, runs each checker on each untouched
workspace: a family whose checker passes there is rejected, since doing nothing would score.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hermes_tui.core.llm.demo_eval import ScriptedPlay

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
MAX_FIXTURE_FILE = 1 << 20


class SuiteError(Exception):
    """The suite cannot be used; the message names the file and what to fix."""


@dataclass(frozen=True)
class Budget:
    seconds: float = 300.0
    iterations: int = 20


# How the offline scripted model plays the family (core/llm/demo_eval.py).
Scripted = ScriptedPlay


@dataclass(frozen=True)
class Family:
    name: str
    directory: Path
    trap: str
    prompt: str
    variations: tuple[Mapping[str, str], ...]
    repetitions: int
    budget: Budget
    checker: Path
    solution: Path | None = None
    scripted: Scripted | None = None

    @property
    def workspace(self) -> Path:
        return self.directory / "workspace"

    def variation(self, repetition: int) -> Mapping[str, str]:
        """The variation of the 1-based `repetition`: in order, starting over past the last."""
        return self.variations[(repetition - 1) % len(self.variations)]

    def prompt_for(self, variables: Mapping[str, str]) -> str:
        return render(self.prompt, variables, f"{self.name}: prompt")


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    description: str
    directory: Path
    families: tuple[Family, ...] = field(default_factory=tuple)

    def family(self, name: str) -> Family:
        for family in self.families:
            if family.name == name:
                return family
        raise SuiteError(
            f"suite {self.name!r} has no family {name!r}; it has: "
            + ", ".join(f.name for f in self.families)
        )

    def select(self, names: Iterable[str]) -> Suite:
        chosen = tuple(self.family(name) for name in dict.fromkeys(names))
        return Suite(self.name, self.version, self.description, self.directory, chosen)


def render(text: str, variables: Mapping[str, str], where: str) -> str:
    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in variables:
            raise SuiteError(f"{where}: {{{{{key}}}}} is not a value of the variation")
        return variables[key]

    return PLACEHOLDER.sub(fill, text)


# Checks one rendered workspace: (family, variables, workspace) → passed.
Verifier = Callable[[Family, Mapping[str, str], Path], bool]


def load_suite(directory: Path, *, verify: Verifier | None = None) -> Suite:
    """The suite in `directory` (raises SuiteError). With `verify`, each family's checker is
    run on each untouched workspace and a family it passes there is rejected."""
    directory = directory.resolve()
    meta_path = directory / "suite.yaml"
    meta = _yaml(meta_path) if meta_path.is_file() else {}
    families = []
    for family_yaml in sorted(directory.glob("*/family.yaml")):
        family = load_family(family_yaml.parent)
        if verify is not None:
            for index, variables in enumerate(family.variations, 1):
                with tempfile.TemporaryDirectory(prefix="hermes-eval-check-") as scratch:
                    workspace = make_workspace(family, variables, Path(scratch) / "w")
                    if verify(family, variables, workspace):
                        raise SuiteError(
                            f"{family.directory}: the checker passes on the untouched workspace "
                            f"of variation {index}, so doing nothing would count as success; "
                            "make the checker look for what the task produces"
                        )
        families.append(family)
    if not families:
        raise SuiteError(f"{directory}: no family found (each is a folder with a family.yaml)")
    return Suite(
        name=str(meta.get("name") or directory.name),
        version=str(meta.get("version", "0")),
        description=str(meta.get("description", "")),
        directory=directory,
        families=tuple(families),
    )


def load_family(directory: Path) -> Family:
    path = directory / "family.yaml"
    data = _yaml(path)
    name = str(data.get("name") or directory.name)
    if not NAME.match(name):
        raise SuiteError(f"{path}: name {name!r} must be lowercase letters, digits and hyphens")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise SuiteError(
            f"{path}: 'prompt' (the task's text, with {{{{placeholders}}}}) is missing"
        )
    variations = _variations(path, data.get("variations"))
    budget_data = data.get("budget") or {}
    if not isinstance(budget_data, dict):
        raise SuiteError(f"{path}: 'budget' must be a mapping of seconds and iterations")
    try:
        budget = Budget(
            float(budget_data.get("seconds", Budget.seconds)),
            int(budget_data.get("iterations", Budget.iterations)),
        )
        repetitions = int(data.get("repetitions", 3))
    except (TypeError, ValueError) as exc:
        raise SuiteError(f"{path}: budget and repetitions must be numbers ({exc})") from None
    if budget.seconds <= 0 or budget.iterations < 1 or repetitions < 1:
        raise SuiteError(f"{path}: budget and repetitions must be positive")
    checker = _inside(directory, data.get("checker", "check.sh"), path, "checker")
    if not checker.is_file():
        raise SuiteError(f"{path}: the checker {checker.name} does not exist")
    solution_name = data.get("solution")
    solution = _inside(directory, solution_name, path, "solution") if solution_name else None
    family = Family(
        name=name,
        directory=directory.resolve(),
        trap=str(data.get("trap", "")),
        prompt=prompt.strip(),
        variations=variations,
        repetitions=repetitions,
        budget=budget,
        checker=checker,
        solution=solution,
        scripted=_scripted(path, data.get("scripted")),
    )
    _check_templates(family, path)
    return family


def make_workspace(family: Family, variables: Mapping[str, str], destination: Path) -> Path:
    """A fresh working directory: the fixture with placeholders filled, modes kept (and a
    file starting with `#!` executable)."""
    destination.mkdir(parents=True, exist_ok=False)
    source = family.workspace
    if not source.is_dir():
        return destination
    for path in sorted(source.rglob("*")):
        relative = render(str(path.relative_to(source)), variables, f"{family.name}: {path}")
        target = (destination / relative).resolve()
        if destination.resolve() not in target.parents:
            raise SuiteError(f"{path}: its name becomes {relative!r}, outside the workspace")
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            target.write_bytes(data)  # a binary fixture is copied as it is
        else:
            target.write_text(render(text, variables, f"{family.name}: {path}"), encoding="utf-8")
        shutil.copymode(path, target)
        if data.startswith(b"#!"):  # a script stays runnable from a copy that lost its modes
            target.chmod(target.stat().st_mode | 0o111)
    return destination


def _yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        raise SuiteError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: expected a mapping at the top")
    return data


def _variations(path: Path, raw: Any) -> tuple[Mapping[str, str], ...]:
    if not isinstance(raw, list) or not raw:
        raise SuiteError(f"{path}: 'variations' must be a non-empty list of mappings")
    variations = []
    keys: set[str] | None = None
    for index, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise SuiteError(f"{path}: variation {index} is not a mapping")
        values = {str(k): "" if v is None else str(v) for k, v in item.items()}
        if keys is not None and set(values) != keys:
            raise SuiteError(
                f"{path}: variation {index} has keys {sorted(values)}, the first has {sorted(keys)}"
            )
        keys = set(values)
        variations.append(values)
    return tuple(variations)


def _inside(directory: Path, name: Any, path: Path, what: str) -> Path:
    target = (directory / str(name)).resolve()
    if directory.resolve() not in target.parents:
        raise SuiteError(f"{path}: the {what} {name!r} is outside the family's folder")
    return target


def _scripted(path: Path, raw: Any) -> Scripted | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise SuiteError(f"{path}: 'scripted' must be a mapping")
    try:
        skill = raw.get("skill") or {}
        return Scripted(
            marker=str(raw["marker"]),
            lesson=str(raw["lesson"]),
            unaware=tuple(str(c) for c in raw["unaware"]),
            aware=tuple(str(c) for c in raw["aware"]),
            lesson_target=str(raw.get("lesson_target", "memory")),
            skill_name=str(skill["name"]) if skill else None,
            skill_description=str(skill.get("description", "")) if skill else "",
        )
    except (KeyError, TypeError) as exc:
        raise SuiteError(
            f"{path}: 'scripted' needs marker, lesson, unaware, aware ({exc})"
        ) from None


def _check_templates(family: Family, path: Path) -> None:
    """Every placeholder in use is a value of every variation; no fixture is a symlink."""
    texts = [family.prompt]
    if family.scripted is not None:
        texts += [*family.scripted.unaware, *family.scripted.aware]
    if family.workspace.is_dir():
        for item in family.workspace.rglob("*"):
            if item.is_symlink():
                raise SuiteError(f"{item}: a workspace fixture must not be a symlink")
            texts.append(str(item.relative_to(family.workspace)))
            if item.is_file():
                if item.stat().st_size > MAX_FIXTURE_FILE:
                    raise SuiteError(f"{item}: fixture files are limited to 1 MiB")
                with contextlib.suppress(UnicodeDecodeError):  # binary: copied, not filled
                    texts.append(item.read_text(encoding="utf-8"))
    for index, variables in enumerate(family.variations, 1):
        for text in texts:
            render(text, variables, f"{path} (variation {index})")
