"""A public-style skill collection cloned into skills/ loads whole: deep nesting, duplicate names,
long descriptions and capitalised names (Agent Skills client guidance: warn and load)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import skill_text, write_skill

from hermes_tui.cli import main

LONG = "Use when writing release notes. " * 40  # 1,280 chars, over the spec's 1,024


def make_collection(origin: Path) -> None:
    """A git repository laid out like the big public collections (three levels and more)."""
    write_skill(origin / "skills" / "writing" / "docs" / "notes", "release-notes")
    write_skill(
        origin / "skills" / "writing" / "docs" / "long",
        "changelog",
        text=skill_text("changelog", LONG),
    )
    write_skill(
        origin / "skills" / "office" / "pdf" / "tools",
        "pdf-tools",
        text=skill_text("PDF Tools", "Fill and merge PDF forms."),
    )
    # The same name twice, as Hermes' own skill_manage allows.
    write_skill(origin / "skills" / "ops" / "k8s" / "deploy", "deploy")
    write_skill(
        origin / "skills" / "ops" / "legacy" / "old",
        "deploy",
        text=skill_text("deploy", "The older deploy playbook."),
    )
    (origin / "README.md").write_text("# Community skills\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(origin)], check=True)
    subprocess.run([*git, "-C", str(origin), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(origin), "commit", "-qm", "skills"], check=True)


@pytest.fixture
def cloned_home(home: Path, tmp_path: Path) -> Path:
    origin = tmp_path / "origin"
    make_collection(origin)
    (home / "skills").mkdir()
    subprocess.run(
        ["git", "clone", "-q", str(origin), str(home / "skills" / "community")], check=True
    )
    return home


def skills_json(home: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    assert main(["skills", "list", "--home", str(home), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_skill_of_the_collection_loads(
    cloned_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {
        row["address"]: row
        for row in skills_json(cloned_home, capsys)
        if row["provenance"] != "bundled"
    }
    assert set(rows) == {
        "release-notes",
        "changelog",
        "PDF Tools",
        "deploy",
        "community/skills/ops/legacy/old/deploy",
    }
    assert not any(row["broken"] for row in rows.values())
    assert all(row["category"] == "community" for row in rows.values())
    assert "over the 1,024 limit" in rows["changelog"]["warnings"][0]
    assert "must be lowercase" in rows["PDF Tools"]["warnings"][0]


def test_duplicates_are_listed_viewable_and_reported_by_doctor(
    cloned_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = skills_json(cloned_home, capsys)
    (duplicate,) = [row for row in rows if row["duplicate_of"]]
    assert duplicate["duplicate_of"].endswith("ops/k8s/deploy/deploy/SKILL.md")
    home = str(cloned_home)
    assert main(["skills", "list", "--home", home]) == 0
    assert "! duplicate: 'deploy' is already" in capsys.readouterr().out
    assert main(["skills", "view", "--home", home, duplicate["address"]]) == 0
    assert "The older deploy playbook." in capsys.readouterr().out
    assert main(["doctor", "--home", home]) == 0
    out = capsys.readouterr().out
    assert "[warn] skills: duplicate name 'deploy'" in out
    assert "community/skills/ops/legacy/old/deploy" in out


def test_chat_runs_with_the_collection_in_its_index(
    cloned_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeLLM() as llm:
        llm.script(
            Reply(tool_calls=[("skill_view", {"name": "community/skills/ops/legacy/old/deploy"})]),
            Reply(text="Loaded the older playbook."),
        )
        for name, value in {
            "OPENAI_API_KEY": "test-key",
            "HERMES_PROVIDER": "openai",
            "HERMES_MODEL": "fake-model",
            "HERMES_BASE_URL": llm.openai_url,
        }.items():
            monkeypatch.setenv(name, value)
        assert main(["chat", "--home", str(cloned_home), "-q", "deploy it"]) == 0
        assert "Loaded the older playbook." in capsys.readouterr().out
        system = llm.requests[0].system
        assert "- community/skills/ops/legacy/old/deploy:" in system and "- PDF Tools:" in system
        assert "The older deploy playbook." in json.dumps(llm.requests[1].body["messages"])
