"""What hermes-tui writes passes the Agent Skills reference validator (skills-ref).

Every test's `home` is checked after the test (tests/conftest.py): each skill created there
through our writes must validate. These tests pin the check itself (tests/test_bundled_skills.py covers the bundled set).
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import spec_problems_of_created_skills, write_skill
from skills_ref import validate

from hermes_tui.core.audit import AuditLog
from hermes_tui.core.skills.library import SkillLibrary


def test_the_after_test_check_catches_a_skill_that_breaks_the_spec(home: Path) -> None:
    write_skill(
        home / "skills",
        "sloppy",
        text="---\nname: sloppy\ndescription: x\ntags: [a]\n---\n\nbody\n",
    )
    AuditLog(home / "logs" / "audit.jsonl").record(
        origin="agent", kind="skill", action="create", target="sloppy", before=None, after=""
    )
    problems = spec_problems_of_created_skills(home)
    assert list(problems) == ["skills/sloppy"]
    # Leave the home clean for the fixture's own check.
    (home / "logs" / "audit.jsonl").unlink()


def test_a_skill_written_with_hermes_extras_is_stored_in_the_spec_shape(home: Path) -> None:
    library = SkillLibrary(home / "skills", audit=AuditLog(home / "logs" / "audit.jsonl"))
    library.create(
        "hermes-style",
        "---\nname: hermes-style\ndescription: As Hermes writes it.\nversion: 1.0.0\n"
        "author: someone\nplatforms: [linux, macos]\nmetadata:\n  hermes:\n"
        "    tags: [a, b]\n    related_skills: []\n---\n\n# Steps\n",
        category="devops",
        origin="agent",
    )
    assert validate(home / "skills" / "devops" / "hermes-style") == []
    hermes = library.get("hermes-style").document.frontmatter["metadata"]["hermes"]
    assert json.loads(json.dumps(hermes)) == {
        "tags": ["a", "b"],
        "version": "1.0.0",
        "author": "someone",
        "platforms": ["linux", "macos"],
    }
