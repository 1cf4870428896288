"""The skills toolset: skills_list, skill_view and skill_manage, as the model sees them."""

from __future__ import annotations

from typing import Any

from hermes_tui.core.skills.library import (
    DEFAULT_CATEGORY,
    SUPPORT_DIRS,
    SkillError,
    SkillLibrary,
    SkillNotFound,
    SkillView,
    WriteResult,
)
from hermes_tui.core.skills.requirements import runs_here
from hermes_tui.core.skills.runtime import (
    SkillRuntimeSettings,
    config_block,
    expand_for,
    readiness,
    substitute,
)
from hermes_tui.core.tools.registry import Tool, ToolContext

MANAGE_ACTIONS = ["create", "patch", "edit", "delete", "write_file", "remove_file"]

SKILLS_LIST_SCHEMA = {
    "type": "object",
    "properties": {"category": {"type": "string", "description": "Only skills in this category."}},
    "required": [],
    "additionalProperties": False,
}
SKILL_VIEW_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "minLength": 1,
            "description": "The skill's name, as in skills_list.",
        },
        "file_path": {
            "type": "string",
            "description": "A linked file to read instead of SKILL.md, e.g. references/api.md.",
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}
SKILL_MANAGE_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": MANAGE_ACTIONS},
        "name": {
            "type": "string",
            "minLength": 1,
            "description": "Skill name: lowercase letters, digits, '.', '_', '-'.",
        },
        "category": {"type": "string", "description": "create: folder to file the skill under."},
        "content": {
            "type": "string",
            "description": "create/edit: the whole SKILL.md, frontmatter included.",
        },
        "old_string": {
            "type": "string",
            "description": "patch: the text to replace (quote it exactly).",
        },
        "new_string": {"type": "string", "description": "patch: the replacement text."},
        "replace_all": {"type": "boolean", "description": "patch: replace every occurrence."},
        "file_path": {
            "type": "string",
            "description": f"patch/write_file/remove_file: a file under {', '.join(SUPPORT_DIRS)}.",
        },
        "file_content": {"type": "string", "description": "write_file: the file's full content."},
        "absorbed_into": {
            "type": "string",
            "description": "delete: the skill that now covers this one.",
        },
    },
    "required": ["action", "name"],
    "additionalProperties": False,
}


def _written(result: WriteResult, message: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "success": True,
        "name": result.name,
        "action": result.action,
        "message": message,
    }
    if result.strategy:
        payload["match_strategy"] = result.strategy
    if result.verdict == "caution":
        payload["security_note"] = "kept, but flagged for the user: " + "; ".join(
            f"{f.id} in {f.file}" for f in result.findings
        )
    return payload


def view_payload(view: SkillView) -> dict[str, Any]:
    """What skill_view returns to the model for a view of SKILL.md or of one of its files."""
    if view.file_path is not None:
        result: dict[str, Any] = {
            "success": True,
            "name": view.name,
            "file_path": view.file_path,
            "provenance": view.provenance,
            "content": view.content,
        }
        return {**result, **({"binary": True} if view.binary else {})}
    result = {
        "success": True,
        "name": view.name,
        "description": view.description,
        "category": view.category,
        "frontmatter": view.frontmatter,
        "content": view.content,
        "linked_files": view.linked_files,
        "path": str(view.path),
        "provenance": view.provenance,
    }
    if view.duplicate_of is not None:
        result["duplicate_of"] = str(view.duplicate_of)
    if view.warnings:
        result["warnings"] = list(view.warnings)
    return result


def make_skill_tools(
    library: SkillLibrary, settings: SkillRuntimeSettings | None = None
) -> list[Tool]:
    settings = settings or SkillRuntimeSettings()

    def skills_list(args: dict[str, Any], _context: ToolContext) -> dict[str, Any]:
        wanted = args.get("category")
        skills = [
            s
            for s in library.scan()
            if (not wanted or (s.category or DEFAULT_CATEGORY) == wanted)
            # As Hermes: a skill for another operating system is not offered here.
            and (s.document is None or runs_here(s.document.frontmatter))
        ]
        usage = library.usage.all()
        listed = []
        for skill in skills:
            item = {
                "name": skill.address,
                "category": skill.category or DEFAULT_CATEGORY,
                "description": skill.description,
            }
            if skill.duplicate_of is not None:
                item["duplicate_of"] = str(skill.duplicate_of)
                item["note"] = f"another skill is named {skill.name!r}; view this one by its path"
            if skill.broken:
                item["broken"] = skill.error
            if usage.get(skill.name, {}).get("pinned"):
                item["pinned"] = True
            listed.append(item)
        categories = sorted({item["category"] for item in listed})
        return {
            "success": True,
            "count": len(listed),
            "categories": categories,
            "skills": listed,
            "hint": "Load one with skill_view(name) before following it.",
        }

    def skill_view(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        try:
            view = library.view(str(args["name"]), args.get("file_path") or None)
        except SkillError as exc:
            return {"success": False, "error": _error_text(exc)}
        context.viewed_skills.add(str(args["name"]))
        result = view_payload(view)
        skill = library.get(str(args["name"]))
        text = view.content
        if skill is not None and not view.binary:
            content = substitute(text, skill, context.session_id)
            if skill.document is not None and (
                not args.get("file_path") or args["file_path"].strip("./") == "SKILL.md"
            ):
                content = expand_for(content, settings, context)  # SKILL.md's snippets only
                content += config_block(skill, settings)
                result.update(readiness(skill, settings))
            result["content"] = content
        return result

    def skill_manage(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        action, name, origin = args.get("action"), str(args["name"]), context.origin
        try:
            if action == "create":
                if not args.get("content"):
                    return {
                        "success": False,
                        "error": "create needs content: the whole SKILL.md with frontmatter",
                    }
                result = library.create(
                    name, args["content"], category=args.get("category") or None, origin=origin
                )
                context.viewed_skills.add(name)
                return _written(result, f"Skill {name!r} created at {result.path}.")
            if action == "edit":
                if not args.get("content"):
                    return {"success": False, "error": "edit needs content: the whole new SKILL.md"}
                return _written(
                    library.edit(name, args["content"], origin=origin), f"Skill {name!r} rewritten."
                )
            if action == "patch":
                if args.get("old_string") in (None, "") or args.get("new_string") is None:
                    return {"success": False, "error": "patch needs old_string and new_string"}
                result = library.patch(
                    name,
                    args["old_string"],
                    args["new_string"],
                    replace_all=bool(args.get("replace_all")),
                    file_path=args.get("file_path") or None,
                    origin=origin,
                )
                return _written(
                    result,
                    f"Patched {name!r} ({result.extra.get('replacements', 1)} replacement(s)).",
                )
            if action == "delete":
                result = library.delete(
                    name, absorbed_into=args.get("absorbed_into") or None, origin=origin
                )
                return _written(
                    result,
                    f"Skill {name!r} archived (restorable with `hermes-tui skills restore {name}`).",
                )
            if action == "write_file":
                if not args.get("file_path") or args.get("file_content") is None:
                    return {
                        "success": False,
                        "error": "write_file needs file_path and file_content",
                    }
                result = library.write_file(
                    name, args["file_path"], args["file_content"], origin=origin
                )
                return _written(result, f"Wrote {args['file_path']} in {name!r}.")
            if action == "remove_file":
                if not args.get("file_path"):
                    return {"success": False, "error": "remove_file needs file_path"}
                result = library.remove_file(name, args["file_path"], origin=origin)
                return _written(
                    result, f"Removed {args['file_path']} from {name!r} (kept in history)."
                )
        except SkillError as exc:
            return {"success": False, "error": _error_text(exc)}
        return {
            "success": False,
            "error": f"unknown action {action!r}; use one of {', '.join(MANAGE_ACTIONS)}",
        }

    return [
        Tool(
            "skills_list",
            "skills",
            "List the skills (saved playbooks) you can load, with a one-line description each.",
            SKILLS_LIST_SCHEMA,
            skills_list,
            read_only=True,
            preview=lambda r: f"{r.get('count', 0)} skills",
        ),
        Tool(
            "skill_view",
            "skills",
            "Load a skill's full instructions (or one of its linked files) before following it.",
            SKILL_VIEW_SCHEMA,
            skill_view,
            read_only=True,
            preview=lambda r: f"loaded {r.get('name')} {r.get('file_path') or ''}".rstrip(),
        ),
        Tool(
            "skill_manage",
            "skills",
            "Create, patch, edit or delete a skill, or write/remove one of its support files. Save a "
            "skill after a non-trivial task that took several steps or a correction from the user; "
            "patch a skill you loaded when it turned out wrong or incomplete.",
            SKILL_MANAGE_SCHEMA,
            skill_manage,
        ),
    ]


def _error_text(exc: SkillError) -> str:
    """A skill error as the model reads it: a missing skill says how to see what exists."""
    if isinstance(exc, SkillNotFound):
        return f"{exc}. Use skills_list to see every skill."
    return str(exc)
