"""SKILL.md = YAML frontmatter between `---` lines + a Markdown body (Agent Skills format).

Parsing tolerates a UTF-8 BOM and CRLF line endings; validation enforces the limits of
DESIGN.md section 7 and names the file and line of the problem. Rewriting keeps unknown keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_CHARS = 100_000

try:  # the C loader is ~10x faster, which matters when indexing a thousand skills
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


class SkillFormatError(ValueError):
    """A SKILL.md that cannot be used; the message starts with the file (and line) at fault."""


@dataclass(frozen=True)
class SkillDocument:
    frontmatter: dict[str, Any]
    body: str

    @property
    def name(self) -> str:
        return str(self.frontmatter.get("name", ""))

    @property
    def description(self) -> str:
        return str(self.frontmatter.get("description", ""))

    @property
    def tags(self) -> list[str]:
        hermes = (self.frontmatter.get("metadata") or {}).get("hermes") or {}
        tags = hermes.get("tags") if isinstance(hermes, dict) else None
        return [str(t) for t in tags] if isinstance(tags, list) else []

    @property
    def related_skills(self) -> list[str]:
        hermes = (self.frontmatter.get("metadata") or {}).get("hermes") or {}
        related = hermes.get("related_skills") if isinstance(hermes, dict) else None
        return [str(r) for r in related] if isinstance(related, list) else []


def normalise_text(text: str) -> str:
    """Drop a BOM and turn CRLF/CR into LF, so the rest of the code sees one shape."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse(text: str, source: str = "SKILL.md") -> SkillDocument:
    """Split and validate a SKILL.md; raises SkillFormatError naming `source`."""
    if len(text) > MAX_SKILL_CHARS:
        raise SkillFormatError(
            f"{source}: {len(text):,} chars, over the {MAX_SKILL_CHARS:,} limit; move detail "
            "into references/ files"
        )
    text = normalise_text(text)
    if not text.startswith("---\n"):
        raise SkillFormatError(
            f"{source}:1: must start with a '---' line opening the YAML frontmatter"
        )
    end = re.search(r"^---[ \t]*$", text[4:], flags=re.M)
    if end is None:
        raise SkillFormatError(f"{source}: the frontmatter has no closing '---' line")
    header = text[4 : 4 + end.start()]
    body = text[4 + end.end() :].lstrip("\n")
    try:
        data = yaml.load(header, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        # The context mark is where the broken construct began (an unclosed '[' line), which
        # is where a person should look; the problem mark is where the parser gave up.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""  # +1 for 1-based, +1 for '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SkillFormatError(f"{source}{line}: frontmatter is not valid YAML: {problem}") from exc
    if not isinstance(data, dict):
        raise SkillFormatError(
            f"{source}: frontmatter must be a mapping of keys, not {type(data).__name__}"
        )
    document = SkillDocument(frontmatter=data, body=body)
    validate(document, source)
    return document


def validate(document: SkillDocument, source: str = "SKILL.md") -> None:
    data = document.frontmatter
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise SkillFormatError(f"{source}: frontmatter has no 'name'")
    if len(name) > MAX_NAME or not NAME_RE.match(name):
        raise SkillFormatError(
            f"{source}: name {name!r} must be lowercase letters, digits, '.', '_' or '-', "
            f"start with a letter or digit, and be at most {MAX_NAME} chars"
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillFormatError(f"{source}: frontmatter has no 'description'")
    if len(description) > MAX_DESCRIPTION:
        raise SkillFormatError(
            f"{source}: description is {len(description):,} chars, over the {MAX_DESCRIPTION:,} limit"
        )
    if not document.body.strip():
        raise SkillFormatError(f"{source}: the body after the frontmatter is empty")


def render(document: SkillDocument) -> str:
    """Serialise back to SKILL.md text; key order and unknown keys are kept."""
    header = yaml.safe_dump(
        document.frontmatter,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return f"---\n{header}---\n\n{document.body.lstrip(chr(10))}"


def check_name(name: str) -> str | None:
    """Why `name` is not a valid skill name, or None."""
    if not name or len(name) > MAX_NAME or not NAME_RE.match(name):
        return (
            f"skill name {name!r} must be lowercase letters, digits, '.', '_' or '-', start "
            f"with a letter or digit, and be at most {MAX_NAME} chars"
        )
    return None
