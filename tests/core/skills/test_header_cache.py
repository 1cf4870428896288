"""Parsed frontmatter remembered across processes: a start with nothing changed parses no YAML."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.core.skills import frontmatter
from hermes_tui.core.skills.header_cache import HeaderCache, cache_path
from hermes_tui.core.skills.library import SkillLibrary


def _skill(root: Path, name: str, header: str) -> Path:
    folder = root / "skills" / "cat" / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\n{header}---\n\nDo it.\n", encoding="utf-8")
    return path


def _library(home: Path) -> SkillLibrary:
    return SkillLibrary(home / "skills", headers=HeaderCache(cache_path(home)))


def _frontmatters(library: SkillLibrary) -> dict[str, dict]:
    return {s.name: s.document.frontmatter for s in library.scan() if s.document}


LISTING = """
import sys
from pathlib import Path
from hermes_tui.core.skills.header_cache import HeaderCache, cache_path
from hermes_tui.core.skills.library import SkillLibrary
home = Path(sys.argv[1])
skills = SkillLibrary(home / "skills", headers=HeaderCache(cache_path(home))).scan()
print(len(skills), sorted(s.document.description for s in skills), "yaml" in sys.modules)
"""


def test_a_second_start_lists_the_same_skills_without_loading_yaml(tmp_path: Path) -> None:
    for index in range(3):
        _skill(tmp_path, f"s{index}", f"name: s{index}\ndescription: Task {index}.\n")

    def listing() -> str:
        done = subprocess.run(
            [sys.executable, "-c", LISTING, str(tmp_path)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    first = listing()
    assert first == "3 ['Task 0.', 'Task 1.', 'Task 2.'] True"  # parsed, then remembered
    assert listing() == "3 ['Task 0.', 'Task 1.', 'Task 2.'] False"


def test_a_changed_frontmatter_is_parsed_again(tmp_path: Path) -> None:
    path = _skill(tmp_path, "s", "name: s\ndescription: Old.\n")
    assert _frontmatters(_library(tmp_path))["s"]["description"] == "Old."
    path.write_text("---\nname: s\ndescription: New.\n---\n\nDo it.\n", encoding="utf-8")
    assert _frontmatters(_library(tmp_path))["s"]["description"] == "New."


def test_what_json_would_change_is_parsed_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A YAML date, an integer key: JSON would give back a string for either.
    _skill(tmp_path, "dated", "name: dated\ndescription: D.\ncreated: 2024-01-02\n")
    _skill(tmp_path, "keyed", "name: keyed\ndescription: K.\nmetadata:\n  1: one\n")
    _skill(tmp_path, "plain", "name: plain\ndescription: P.\n")
    _frontmatters(_library(tmp_path))
    parsed: list[str] = []
    real = frontmatter._parse_header
    monkeypatch.setattr(
        frontmatter, "_parse_header", lambda h, s: parsed.append(Path(s).parent.name) or real(h, s)
    )
    again = _frontmatters(_library(tmp_path))
    assert sorted(parsed) == ["dated", "keyed"]  # plain came from the cache
    assert again["dated"]["created"] == datetime.date(2024, 1, 2)
    assert again["keyed"]["metadata"] == {1: "one"}


def test_skills_with_one_header_do_not_share_its_mapping(tmp_path: Path) -> None:
    header = "name: twin\ndescription: Same.\nmetadata:\n  hermes:\n    tags: [a]\n"
    _skill(tmp_path, "twin", header)
    (tmp_path / "skills" / "other").mkdir(parents=True)
    (tmp_path / "skills" / "other" / "twin").mkdir()
    (tmp_path / "skills" / "other" / "twin" / "SKILL.md").write_text(
        f"---\n{header}---\n\nDo it.\n", encoding="utf-8"
    )
    _library(tmp_path).scan()
    first, second = (s.document.frontmatter for s in _library(tmp_path).scan())
    first["metadata"]["hermes"]["tags"].append("changed")
    assert second["metadata"]["hermes"]["tags"] == ["a"]


@pytest.mark.parametrize(
    "content",
    [
        b"not json at all",
        b"\xff\xfe",
        b'{"format": 99, "headers": {}}',
        b'{"format": 1, "headers": []}',
        b"[1, 2]",
        "forged",  # each entry replaced by a mapping naming another skill
    ],
)
def test_a_damaged_or_foreign_cache_file_is_a_miss_not_an_error(
    tmp_path: Path, content: bytes | str
) -> None:
    _skill(tmp_path, "real", "name: real\ndescription: Real.\n")
    _library(tmp_path).scan()
    path = cache_path(tmp_path)
    if content == "forged":
        document = json.loads(path.read_bytes())
        for key in document["headers"]:
            document["headers"][key] = json.dumps(["name", "evil"])  # not a mapping
        path.write_text(json.dumps(document), encoding="utf-8")
    else:
        path.write_bytes(content)
    assert _frontmatters(_library(tmp_path)) == {"real": {"name": "real", "description": "Real."}}


def test_a_cache_that_cannot_be_written_costs_only_the_parse(tmp_path: Path) -> None:
    _skill(tmp_path, "s", "name: s\ndescription: S.\n")
    (tmp_path / "cache").write_text("a file where the folder should be")  # even root fails
    assert _frontmatters(_library(tmp_path))["s"]["description"] == "S."
    assert _frontmatters(_library(tmp_path))["s"]["description"] == "S."
