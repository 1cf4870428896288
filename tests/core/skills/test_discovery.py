"""Specification of discovery as Hermes does it: any depth, duplicates listed, warn and load."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import skill_text, write_skill

from hermes_tui.core.skills.index import build_index
from hermes_tui.core.skills.library import SkillError, SkillLibrary


def test_finds_skills_at_any_depth_with_the_first_folder_as_category(home: Path) -> None:
    skills = home / "skills"
    write_skill(skills / "collection" / "sub" / "deeper", "deep-skill")
    write_skill(skills / "devops" / "k8s", "deploy")
    write_skill(skills, "flat")
    found = {s.name: s for s in SkillLibrary(skills).scan()}
    assert set(found) == {"deep-skill", "deploy", "flat"}
    assert found["deep-skill"].category == "collection" and found["deploy"].category == "devops"
    assert found["deep-skill"].relative_path == "collection/sub/deeper/deep-skill"
    assert found["flat"].category == ""


def test_skips_dot_folders_archive_dependencies_and_whatever_is_inside_a_skill(
    home: Path,
) -> None:
    skills = home / "skills"
    outer = write_skill(skills / "tools", "outer")
    write_skill(outer / "references", "kept-as-data")  # a preserved package is documentation
    write_skill(outer / "examples", "template")  # an example SKILL.md belongs to its skill
    for hidden in (".archive", ".git", ".hub", "node_modules", "site-packages"):
        write_skill(skills / "tools" / hidden, "ghost")
    assert [s.name for s in SkillLibrary(skills).scan()] == ["outer"]


def test_a_folder_added_right_after_a_scan_is_found(home: Path) -> None:
    # The folder listing cache must not trust a listing taken in the same timestamp tick.
    skills = home / "skills"
    write_skill(skills / "cat", "first")
    library = SkillLibrary(skills)
    assert [s.name for s in library.scan()] == ["first"]
    write_skill(skills / "cat", "second")
    assert [s.name for s in library.scan()] == ["first", "second"]


def test_a_symlinked_collection_is_followed_and_a_link_loop_ends(
    home: Path, tmp_path: Path
) -> None:
    skills = home / "skills"
    write_skill(tmp_path / "kept-elsewhere" / "pack", "linked-in")
    skills.mkdir()
    (skills / "collection").symlink_to(tmp_path / "kept-elsewhere", target_is_directory=True)
    (tmp_path / "kept-elsewhere" / "loop").symlink_to(skills, target_is_directory=True)
    (skills / "dangling").symlink_to(tmp_path / "missing", target_is_directory=True)
    found = SkillLibrary(skills).scan()
    assert [(s.name, s.duplicate_of) for s in found] == [("linked-in", None)]


def test_duplicate_names_are_both_listed_and_the_second_is_addressed_by_path(
    home: Path,
) -> None:
    skills = home / "skills"
    write_skill(skills / "a", "deploy", text=skill_text("deploy", "First copy."))
    write_skill(skills / "b" / "vendor", "deploy", text=skill_text("deploy", "Second copy."))
    library = SkillLibrary(skills)
    first, second = sorted(library.scan(), key=lambda s: s.duplicate_of is not None)
    assert first.duplicate_of is None and second.duplicate_of == first.skill_md
    assert second.address == "b/vendor/deploy" and first.address == "deploy"
    assert library.get("deploy") == first
    assert library.get("b/vendor/deploy") == second
    assert library.get(str(second.skill_md)) == second
    assert library.view("b/vendor/deploy").description == "Second copy."
    assert library.duplicates() == [second]
    index = build_index(library.scan(), {}, 6000)
    assert "- deploy: First copy." in index and "- b/vendor/deploy: Second copy." in index


@pytest.mark.parametrize(
    ("frontmatter", "warning"),
    [
        ("name: My Skill\ndescription: Spaces and capitals.", "must be lowercase letters"),
        ("name: -leading\ndescription: A leading hyphen.", "must be lowercase letters"),
        ("name: long-desc\ndescription: " + "d" * 1500, "over the 1,024 limit"),
        ("description: No name; the folder names it.", "has no 'name'"),
    ],
)
def test_rule_breaks_load_with_a_warning(home: Path, frontmatter: str, warning: str) -> None:
    skills = home / "skills"
    folder = skills / "lenient"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n\n# Body\n")
    (skill,) = SkillLibrary(skills).scan()
    assert not skill.broken and warning in skill.warnings[0]
    assert SkillLibrary(skills).view(skill.name).content == "# Body\n"


def test_an_oversized_skill_md_loads_with_a_warning(home: Path) -> None:
    # Hermes' research-paper-writing SKILL.md is 102,734 chars.
    text = skill_text("research-paper-writing", body="# Write\n\n" + "word " * 20_600)
    assert len(text) > 100_000
    write_skill(home / "skills" / "research", "research-paper-writing", text=text)
    (skill,) = SkillLibrary(home / "skills").scan()
    assert not skill.broken and "over the 100,000 limit" in skill.warnings[0]


def test_only_what_cannot_be_parsed_is_broken(home: Path) -> None:
    skills = home / "skills"
    write_skill(skills, "no-frontmatter", text="# Just markdown\n")
    write_skill(skills, "bad-yaml", text="---\nname: x\ndescription: [oops\n---\n\nbody\n")
    write_skill(skills, "no-description", text="---\nname: no-description\n---\n\nbody\n")
    assert all(skill.broken for skill in SkillLibrary(skills).scan())


def test_skill_view_opens_any_text_file_inside_the_skill(library: SkillLibrary) -> None:
    folder = write_skill(library.skills_dir / "writing", "newsletter")
    (folder / "examples").mkdir()
    (folder / "examples" / "company-newsletter.md").write_text("# Issue 1\n")
    (folder / "NOTES.txt").write_text("root file\n")
    assert library.view("newsletter", "examples/company-newsletter.md").content == "# Issue 1\n"
    assert library.view("newsletter", "NOTES.txt").content == "root file\n"
    assert library.view("newsletter", "SKILL.md").content == "# Steps\n\n1. Do it.\n"
    assert library.view("newsletter").linked_files == {
        "other": ["NOTES.txt", "examples/company-newsletter.md"]
    }


def test_skill_view_never_leaves_the_skill(library: SkillLibrary, tmp_path: Path) -> None:
    folder = write_skill(library.skills_dir, "fenced")
    secret = tmp_path / "secret.txt"
    secret.write_text("token=abc\n")
    (folder / "link.md").symlink_to(secret)
    (folder / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    for path in ("../fenced/../../secret.txt", "/etc/passwd", "link.md", "linked-dir/secret.txt"):
        with pytest.raises(SkillError):
            library.view("fenced", path)
    assert "link.md" not in str(library.view("fenced").linked_files)


def test_binary_support_files_are_described_not_returned(library: SkillLibrary) -> None:
    folder = write_skill(library.skills_dir, "with-logo")
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (folder / "assets" / "nul.txt").write_bytes(b"text\x00more")
    result = library.view("with-logo", "assets/logo.png")
    assert result.content == "binary file, 264 bytes" and result.binary is True
    assert library.view("with-logo", "assets/nul.txt").content == "binary file, 9 bytes"


@pytest.mark.parametrize("name", ["my_skill.v2", "deploy--fast", "notes-", "-x", "Caps", "a\n"])
def test_names_we_create_follow_the_spec(library: SkillLibrary, name: str) -> None:
    with pytest.raises(SkillError, match="single hyphens"):
        library.create(name, skill_text(name), origin="agent")
    with pytest.raises(SkillError, match="single hyphens"):
        library.create("fine-name", skill_text("fine-name"), category=name, origin="agent")
    assert not any(library.skills_dir.rglob("SKILL.md"))


def test_what_we_write_has_spec_fields_on_top_and_block_lists(library: SkillLibrary) -> None:
    text = (
        "---\nname: tidy\ndescription: Tidy things.\nversion: 1.2.0\ntags: [a, b]\n"
        "metadata:\n  hermes: {related_skills: [other]}\n---\n\n# Tidy\n"
    )
    library.create("tidy", text, origin="agent")
    written = (library.skills_dir / "tidy" / "SKILL.md").read_text()
    assert "[" not in written.split("---")[1] and "{" not in written.split("---")[1]
    hermes = library.get("tidy").document.frontmatter["metadata"]["hermes"]
    assert hermes == {"related_skills": ["other"], "version": "1.2.0", "tags": ["a", "b"]}
    assert written.endswith("# Tidy\n")


def test_an_existing_skill_keeps_its_legacy_name_when_edited(library: SkillLibrary) -> None:
    write_skill(library.skills_dir, "old_style", text=skill_text("old_style"))
    library.patch("old_style", "Do it.", "Do it twice.", origin="agent")
    assert "Do it twice." in library.view("old_style").content


def test_discovery_cache_survives_a_deep_tree(home: Path) -> None:
    skills = home / "skills"
    for index in range(30):
        write_skill(skills / f"c{index % 3}" / "sub" / "deeper", f"skill-{index}")
    library = SkillLibrary(skills)
    first = library.scan()
    assert len(first) == 30 and all(a is b for a, b in zip(first, library.scan(), strict=True))
    os.utime(first[0].skill_md, ns=(1, 1))
    assert library.scan()[0] is not first[0]
