"""SKILL.md = YAML frontmatter between `---` lines + a Markdown body (Agent Skills format).

Reading is lenient, writing strict (the Agent Skills client guidance, "warn and load"):
`read()` loads anything it can parse and returns the rule breaks as warnings (a name with
capitals or spaces, a description or file over the limits, an empty body); only text it cannot
parse at all (no frontmatter, invalid YAML, no description) is an error. `parse()` is the strict
form every write goes through. `to_spec()` gives what we write the spec's shape: new non-spec
top-level fields move under `metadata.hermes` (keys a skill already had stay where they are:
Hermes reads `platforms`, `prerequisites`, `required_environment_variables` at the top), lists
are block style (the reference validator
reads strict YAML, which refuses `tags: [a, b]`). Parsing tolerates a BOM and CRLF endings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from hermes_tui.core.records import datarecord

if TYPE_CHECKING:  # imported when a text is parsed: a start with every header remembered
    # (header_cache.py) never loads YAML
    from hermes_tui.core.skills.header_cache import HeaderCache

# The Agent Skills spec: lowercase letters and digits in hyphen-separated runs (no leading,
# trailing or doubled hyphen). Always used with fullmatch, so a trailing newline never passes.
NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SPEC_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_CHARS = 100_000


def _loader() -> type:
    import yaml

    # The C loader is ~10x faster, which matters when indexing a thousand skills.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SkillFormatError(ValueError):
    """A SKILL.md that cannot be used; the message starts with the file (and line) at fault."""


@datarecord
class SkillDocument:
    """A SKILL.md split into its frontmatter mapping and its Markdown body."""

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
    """Split and validate strictly (what we write); raises SkillFormatError naming `source`."""
    document, problems = read(text, source)
    if problems:
        raise SkillFormatError(problems[0])
    return document


def parse_for_write(text: str, source: str, existing_name: str | None = None) -> SkillDocument:
    """Strict parse of what is about to be written. A skill that already exists keeps its name
    even when that name predates the spec's rules (renaming would break every reference)."""
    document, problems = read(text, source)
    name_problem = f"{source}: {check_name(document.name)}"
    if existing_name is not None and document.name == existing_name:
        problems = tuple(problem for problem in problems if problem != name_problem)
    if problems:
        raise SkillFormatError(problems[0])
    return document


def read(
    text: str, source: str = "SKILL.md", headers: HeaderCache | None = None
) -> tuple[SkillDocument, tuple[str, ...]]:
    """Split and check leniently: the document and the rules it breaks (warn and load).

    Raises SkillFormatError only for what cannot be used at all. `headers` remembers what each
    frontmatter text parsed to, across processes.
    """
    size = len(text)
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
    data = headers.get(header) if headers is not None else None
    if data is None:
        data = _parse_header(header, source)
        if headers is not None and isinstance(data, dict):
            headers.put(header, data)
    if not isinstance(data, dict):
        raise SkillFormatError(
            f"{source}: frontmatter must be a mapping of keys, not {type(data).__name__}"
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillFormatError(f"{source}: frontmatter has no 'description'")
    document = SkillDocument(frontmatter=data, body=body)
    problems = []
    if size > MAX_SKILL_CHARS:
        problems.append(
            f"{source}: {size:,} chars, over the {MAX_SKILL_CHARS:,} limit; move detail "
            "into references/ files"
        )
    return document, (*problems, *validate(document, source))


def _parse_header(header: str, source: str) -> Any:
    """The frontmatter text as YAML reads it; SkillFormatError naming where it broke."""
    import yaml

    try:
        return yaml.load(header, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        # The context mark is where the broken construct began (an unclosed '[' line), which
        # is where a person should look; the problem mark is where the parser gave up.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""  # +1 for 1-based, +1 for '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SkillFormatError(f"{source}{line}: frontmatter is not valid YAML: {problem}") from exc


def validate(document: SkillDocument, source: str = "SKILL.md") -> list[str]:
    """The rules `document` breaks, each as a message that starts with `source`."""
    data = document.frontmatter
    problems = []
    name = data.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{source}: frontmatter has no 'name'")
    elif problem := check_name(name):
        problems.append(f"{source}: {problem}")
    description = str(data.get("description", ""))
    if len(description) > MAX_DESCRIPTION:
        problems.append(
            f"{source}: description is {len(description):,} chars, over the {MAX_DESCRIPTION:,} limit"
        )
    if not document.body.strip():
        problems.append(f"{source}: the body after the frontmatter is empty")
    return problems


def top_level_keys(text: str) -> frozenset[str]:
    """The frontmatter's top-level keys ('' set when it cannot be read)."""
    try:
        document, _ = read(text)
    except SkillFormatError:
        return frozenset()
    return frozenset(map(str, document.frontmatter))


def is_spec_shaped(text: str, keep: frozenset[str] = frozenset()) -> bool:
    """True when the frontmatter has only spec fields at the top and no flow-style collections.

    Keys in `keep` (non-spec keys a skill already had, such as Hermes' `platforms`) are left
    as they are and not looked into: they are the author's, not ours to reshape.
    """
    text = normalise_text(text)
    end = re.search(r"^---[ \t]*$", text[4:], flags=re.M)
    if not text.startswith("---\n") or end is None:
        return False
    import yaml

    root = yaml.compose(text[4 : 4 + end.start()], Loader=_loader())
    if not isinstance(root, yaml.MappingNode):
        return False
    if any(str(key.value) not in SPEC_FIELDS | keep for key, _ in root.value):
        return False
    pending: list[yaml.Node] = [value for key, value in root.value if str(key.value) not in keep]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode):
            if node.flow_style or not node.value:
                return False
            pending += [value for _, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            if node.flow_style or not node.value:
                return False
            pending += node.value
    return True


def to_spec(document: SkillDocument, keep: frozenset[str] = frozenset()) -> SkillDocument:
    """The same skill with new non-spec top-level fields under metadata.hermes (ours kept
    there); keys in `keep`, which the skill already had at the top, stay where they are."""
    data = dict(document.frontmatter)
    extra = {key: data.pop(key) for key in list(data) if key not in SPEC_FIELDS | keep}
    if extra:
        metadata = data.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        hermes = metadata.get("hermes")
        hermes = dict(hermes) if isinstance(hermes, dict) else {}
        for key, value in extra.items():
            hermes.setdefault(str(key), value)
        metadata["hermes"] = hermes
        data["metadata"] = metadata
    return SkillDocument(frontmatter=data, body=document.body)


def spec_complaints(document: SkillDocument) -> list[str]:
    """What the Agent Skills validator would say of top-level keys we leave alone."""
    extra = sorted(str(key) for key in document.frontmatter if key not in SPEC_FIELDS)
    if not extra:
        return []
    return [
        f"not Agent Skills spec fields, kept at the top where the skill had them (Hermes reads "
        f"them there): {', '.join(extra)}"
    ]


def _without_empty(value: Any) -> Any:
    """Drop empty lists and mappings, which YAML can only write in flow style (`[]`, `{}`)."""
    if isinstance(value, dict):
        kept = {k: _without_empty(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def render(document: SkillDocument) -> str:
    """Serialise back to SKILL.md text in block style; key order and unknown keys are kept."""
    import yaml

    header = yaml.safe_dump(
        _without_empty(document.frontmatter),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return f"---\n{header}---\n\n{document.body.lstrip(chr(10))}"


def check_name(name: str, what: str = "name") -> str | None:
    """Why `name` is not a valid skill name under the Agent Skills spec, or None; `what`
    ("category") names what is checked in the message, a category held to the same rule."""
    if not name or len(name) > MAX_NAME or not NAME_RE.fullmatch(name):
        example = "devops" if what == "category" else "deploy-flask-app"
        return (
            f"{what} {name!r} must be lowercase letters and digits in runs joined by single "
            f"hyphens (no leading, trailing or doubled '-'), at most {MAX_NAME} chars, "
            f"e.g. {example!r}"
        )
    return None
