"""The skill vetting corpus: malicious skills from tests/data/malicious_skills.yaml, and 100
public-style benign skills generated here.

The project had no 100 public skills of its own, so `public_skills` writes them: realistic
playbooks of the kind public collections hold (a description saying when to use the skill,
steps, read-only shell to look at a project, reference tables, templates, and small Python,
JavaScript and Ruby helpers that read files and print), each different in topic and shape.
"""

from __future__ import annotations

import os
from pathlib import Path

from helpers import read_yaml

DATA = Path(__file__).parent / "data" / "malicious_skills.yaml"


def malicious_entries() -> dict[str, dict]:
    return read_yaml(DATA)


def write_malicious(root: Path, name: str, entry: dict, fake_home: Path) -> Path:
    """The skill folder `root/<category>/<name>`; symlink targets' `~` is `fake_home`."""
    directory = root / "community" / name
    directory.mkdir(parents=True)
    description = entry["description"].replace('"', '\\"')
    (directory / "SKILL.md").write_text(
        f'---\nname: {name}\ndescription: "{description}"\n---\n\n{entry["body"]}',
        encoding="utf-8",
    )
    for relative, content in (entry.get("files") or {}).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        if relative.startswith("scripts/"):
            path.chmod(0o755)
    for relative, target in (entry.get("links") or {}).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.replace("~", str(fake_home), 1), path)
    return directory


# ---- 100 public-style benign skills ------------------------------------------------------------

TOPICS = [
    ("software-development", "code-review", "reviewing a pull request before approving it"),
    ("software-development", "refactor-safely", "restructuring code without changing behaviour"),
    ("software-development", "naming-things", "choosing names for functions, types and modules"),
    ("software-development", "dead-code-hunt", "finding functions nothing calls any more"),
    ("software-development", "dependency-audit", "reviewing what a project depends on"),
    ("software-development", "api-design", "designing a small HTTP or library API"),
    ("software-development", "error-messages", "writing error messages a user can act on"),
    ("software-development", "logging-levels", "deciding what to log and at which level"),
    ("software-development", "feature-flags", "planning the removal of an old feature flag"),
    ("software-development", "monorepo-layout", "finding your way around a monorepo"),
    ("software-development", "regex-review", "reading and simplifying regular expressions"),
    ("software-development", "type-hints", "adding type hints to an untyped Python module"),
    ("software-development", "docstring-style", "writing docstrings that say what and why"),
    ("software-development", "commit-messages", "writing commit messages that explain why"),
    ("software-development", "branch-cleanup", "listing merged branches worth deleting"),
    ("software-development", "merge-conflicts", "understanding a merge conflict before fixing it"),
    ("software-development", "changelog-entry", "writing a changelog entry for a release"),
    ("software-development", "semver-bump", "choosing the next semantic version"),
    ("software-development", "code-ownership", "finding who knows a part of the code"),
    ("software-development", "todo-triage", "sorting TODO comments into issues"),
    ("testing", "flaky-tests", "diagnosing a test that fails only sometimes"),
    ("testing", "test-naming", "naming tests as specifications"),
    ("testing", "fixture-design", "designing small, readable test fixtures"),
    ("testing", "snapshot-review", "reviewing a changed snapshot test"),
    ("testing", "coverage-gaps", "finding untested branches from a coverage report"),
    ("testing", "property-tests", "choosing properties for property-based tests"),
    ("testing", "test-data", "building realistic test data without real user data"),
    ("testing", "bug-repro", "reducing a bug report to a minimal reproduction"),
    ("testing", "regression-test", "writing the test that pins a fixed bug"),
    ("testing", "mutation-thinking", "checking that a test would fail if the code broke"),
    ("data", "csv-cleanup", "inspecting a CSV file before loading it"),
    ("data", "json-schema-notes", "describing a JSON document's shape"),
    ("data", "sql-style", "formatting SQL queries for review"),
    ("data", "query-plans", "reading a database query plan"),
    ("data", "index-choice", "choosing database indexes for slow queries"),
    ("data", "migration-review", "reviewing a database migration before it runs"),
    ("data", "pandas-pitfalls", "avoiding common pandas mistakes"),
    ("data", "chart-choice", "choosing a chart for a data question"),
    ("data", "data-dictionary", "documenting the columns of a dataset"),
    ("data", "timezone-handling", "handling dates and time zones in data"),
    ("writing", "release-notes", "writing release notes users read"),
    ("writing", "readme-outline", "outlining a project README"),
    ("writing", "adr-writing", "recording an architecture decision"),
    ("writing", "incident-summary", "summarising an incident for stakeholders"),
    ("writing", "meeting-notes", "turning meeting notes into actions"),
    ("writing", "plain-language", "rewriting jargon in plain language"),
    ("writing", "tutorial-structure", "structuring a step-by-step tutorial"),
    ("writing", "api-reference", "writing reference documentation for an API"),
    ("writing", "style-guide", "applying a documentation style guide"),
    ("writing", "proofreading", "proofreading technical prose"),
    ("ops", "log-reading", "reading application logs to find an error"),
    ("ops", "disk-usage", "finding what fills a disk"),
    ("ops", "config-review", "reviewing a configuration change"),
    ("ops", "runbook-writing", "writing an operational runbook"),
    ("ops", "alert-tuning", "deciding whether an alert is worth keeping"),
    ("ops", "capacity-notes", "estimating capacity from current usage"),
    ("ops", "dockerfile-review", "reviewing a Dockerfile for size and clarity"),
    ("ops", "compose-layout", "reading a docker compose file"),
    ("ops", "k8s-manifest-review", "reviewing a Kubernetes manifest"),
    ("ops", "terraform-plan-review", "reading a Terraform plan before applying it"),
    ("ops", "ci-pipeline-review", "reading a CI pipeline definition"),
    ("ops", "release-train", "planning a release train"),
    ("ops", "postmortem", "running a blameless postmortem"),
    ("ops", "slo-definition", "defining a service level objective"),
    ("ops", "cron-review", "reading crontab schedules"),
    ("frontend", "css-audit", "finding unused and duplicated CSS"),
    ("frontend", "accessibility-check", "checking a page for accessibility basics"),
    ("frontend", "component-naming", "naming UI components"),
    ("frontend", "bundle-size", "reading a bundle size report"),
    ("frontend", "form-design", "designing a form users can finish"),
    ("frontend", "color-contrast", "checking colour contrast of a palette"),
    ("frontend", "i18n-strings", "preparing UI strings for translation"),
    ("frontend", "state-shape", "designing the shape of UI state"),
    ("frontend", "responsive-layout", "planning a responsive layout"),
    ("frontend", "icon-usage", "using icons consistently"),
    ("security", "threat-model", "sketching a threat model for a feature"),
    ("security", "secret-hygiene", "keeping secrets out of a repository"),
    ("security", "input-validation", "validating input at a trust boundary"),
    ("security", "permission-review", "reviewing who can do what in an app"),
    ("security", "dependency-cves", "reading a vulnerability advisory"),
    ("productivity", "daily-plan", "planning a working day"),
    ("productivity", "inbox-zero", "sorting an overflowing inbox"),
    ("productivity", "weekly-review", "running a weekly review"),
    ("productivity", "estimate-tasks", "estimating a task honestly"),
    ("productivity", "focus-blocks", "protecting time for focused work"),
    ("research", "paper-summary", "summarising a research paper"),
    ("research", "literature-map", "mapping related work on a topic"),
    ("research", "experiment-log", "keeping an experiment log"),
    ("research", "benchmark-reading", "reading a benchmark critically"),
    ("research", "survey-design", "designing a short user survey"),
    ("office", "spreadsheet-formulas", "writing readable spreadsheet formulas"),
    ("office", "slide-outline", "outlining a short slide deck"),
    ("office", "email-drafts", "drafting a clear work email"),
    ("office", "pdf-forms", "filling in PDF forms by field name"),
    ("office", "invoice-check", "checking an invoice against an order"),
    ("learning", "flashcards", "turning notes into flashcards"),
    ("learning", "concept-map", "drawing a concept map of a topic"),
    ("learning", "explain-simply", "explaining a concept to a beginner"),
    ("learning", "reading-plan", "planning a reading list"),
    ("learning", "kata-practice", "practising with small coding katas"),
]

READ_ONLY_SHELL = [
    "git log --oneline -n 20",
    "git status --short",
    'grep -rn "TODO" src',
    "ls -la",
    'find . -name "*.py"',
    "cat package.json",
    "wc -l README.md",
    "head -n 40 CHANGELOG.md",
    "git diff --stat",
    "git branch --merged",
]

PY_HELPER = '''"""Print a short summary of the {what} listed in a JSON file given on the command line."""

import json
import sys
from pathlib import Path


def summarise(path: Path) -> str:
    items = json.loads(path.read_text(encoding="utf-8"))
    return f"{{len(items)}} entries in {{path.name}}"


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1])))
'''

JS_HELPER = """// Count the lines of each file named on the command line ({what}).
const fs = require('fs');
for (const name of process.argv.slice(2)) {{
  const lines = fs.readFileSync(name, 'utf8').split('\\n').length;
  console.log(`${{name}}: ${{lines}} lines`);
}}
"""

RB_HELPER = """# Print the headings of a Markdown file ({what}).
File.foreach(ARGV[0]) do |line|
  puts line if line.start_with?('#')
end
"""


def _body(index: int, name: str, purpose: str) -> str:
    title = name.replace("-", " ").capitalize()
    steps = [
        f"Read what is already there before changing anything about {purpose.split()[0]}.",
        "Write down the question you are answering in one sentence.",
        "Make the smallest change that answers it, then check the result.",
        "Note what you learned so the next person starts further ahead.",
    ]
    body = [f"# {title}", "", "## When to use", f"Use this skill when {purpose}.", ""]
    body += ["## Steps", *[f"{n}. {step}" for n, step in enumerate(steps, 1)], ""]
    if index % 2 == 0:
        command = READ_ONLY_SHELL[index % len(READ_ONLY_SHELL)]
        body += ["Look at the project first:", "", "```bash", command, "```", ""]
    if index % 5 == 0:
        body += ["| Check | Why |", "|---|---|", "| Scope | keeps the change reviewable |", ""]
    if index % 7 == 0:
        body += ["> Tip: stop and ask when the task is bigger than it looked.", ""]
    body += [
        "## Pitfalls",
        f"- Skipping the first step of {purpose}.",
        "- Changing two things at once.",
    ]
    return "\n".join(body) + "\n"


def public_skills(root: Path) -> list[str]:
    """Write the 100 benign skills under `root/<category>/<name>`; return their names."""
    names = []
    for index, (category, name, purpose) in enumerate(TOPICS):
        directory = root / category / name
        directory.mkdir(parents=True)
        description = f"Use when {purpose}. Gives a short checklist and the usual pitfalls."
        (directory / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n"
            + ("license: MIT\n" if index % 3 == 0 else "")
            + f"---\n\n{_body(index, name, purpose)}",
            encoding="utf-8",
        )
        if index % 3 == 1:
            (directory / "references").mkdir()
            (directory / "references" / "checklist.md").write_text(
                f"# Checklist for {purpose}\n\n- [ ] scope agreed\n- [ ] result checked\n"
            )
        if index % 4 == 2:
            (directory / "templates").mkdir()
            (directory / "templates" / "note.md").write_text(
                f"# {name}: notes\n\nDate:\nQuestion:\nAnswer:\n"
            )
        helper = index % 6
        if helper in (1, 2, 3):
            (directory / "scripts").mkdir()
            file, text = {
                1: ("summary.py", PY_HELPER),
                2: ("lines.js", JS_HELPER),
                3: ("headings.rb", RB_HELPER),
            }[helper]
            (directory / "scripts" / file).write_text(text.format(what=purpose.split()[0]))
        names.append(name)
    assert len(names) == len(set(names)) == 100
    return names
