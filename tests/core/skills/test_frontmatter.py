"""Specification of SKILL.md parsing and validation."""

from __future__ import annotations

import pytest

from hermes_tui.core.skills.frontmatter import SkillFormatError, parse, render

VALID = "---\nname: k8s-deploy\ndescription: Deploy a Flask app to Kubernetes.\nx-custom: 3\n---\n\n# Deploy\n"


def test_parses_name_description_and_body() -> None:
    document = parse(VALID)
    assert document.name == "k8s-deploy"
    assert document.description.startswith("Deploy a Flask")
    assert document.body == "# Deploy\n"


def test_tolerates_a_bom_and_crlf_line_endings() -> None:
    document = parse("\ufeff" + VALID.replace("\n", "\r\n"))
    assert document.name == "k8s-deploy" and document.body == "# Deploy\n"


def test_malformed_yaml_is_reported_with_file_and_line() -> None:
    text = "---\nname: x\ndescription: [unclosed\nmore: 1\n---\n\nbody\n"
    with pytest.raises(
        SkillFormatError, match=r"^skills/x/SKILL.md:\d+: frontmatter is not valid YAML"
    ):
        parse(text, "skills/x/SKILL.md")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter at all\n", "must start with a '---' line"),
        ("---\nname: x\ndescription: y\n", "no closing '---'"),
        ("---\ndescription: y\n---\n\nbody\n", "has no 'name'"),
        ("---\nname: x\n---\n\nbody\n", "has no 'description'"),
        ("---\nname: Bad Name\ndescription: y\n---\n\nbody\n", "must be lowercase"),
        ("---\nname: " + "a" * 65 + "\ndescription: y\n---\n\nbody\n", "at most 64"),
        ("---\nname: x\ndescription: " + "d" * 1025 + "\n---\n\nbody\n", "over the 1,024 limit"),
        ("---\nname: x\ndescription: y\n---\n\n   \n", "body after the frontmatter is empty"),
        ("---\n- a list\n---\n\nbody\n", "must be a mapping"),
    ],
)
def test_invalid_skills_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SkillFormatError, match=message):
        parse(text)


def test_size_limit_is_100000_chars() -> None:
    big = VALID + "x" * 100_001
    with pytest.raises(SkillFormatError, match="over the 100,000 limit"):
        parse(big)


def test_rendering_keeps_unknown_keys_and_their_order() -> None:
    document = parse(VALID)
    again = parse(render(document))
    assert list(again.frontmatter) == ["name", "description", "x-custom"]
    assert again.frontmatter["x-custom"] == 3 and again.body == document.body
