"""A quick yes for the plainest tool calls: arguments that certainly match a flat schema.

Most calls of our own tools pass a few strings, numbers and booleans against a flat object
schema. `certainly_valid` says yes only when it can tell for sure: a `type: object` schema with
no keyword but properties, required and additionalProperties, each property one scalar type
(string, integer, number, boolean), perhaps with an enum, and arguments of exactly those types
(a boolean is not an integer, 1.0 is left to the validator). Anything else it answers no, and
the compiled validator decides as before (registry.py). It never says yes to what JSON Schema
refuses; that is what lets a one-shot turn's `skills_list {}` skip fastjsonschema's import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties"})
_PROPERTY_KEYS = frozenset({"type", "enum"})
_WORDS = frozenset({"description", "title"})  # say nothing about validity
_SCALARS: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int,
    "number": lambda value: type(value) in (int, float),
    "boolean": lambda value: type(value) is bool,
}


def certainly_valid(schema: Any, arguments: Any) -> bool:
    """True only when `arguments` surely match `schema`; False means "ask the validator"."""
    if not isinstance(schema, dict) or not isinstance(arguments, dict):
        return False
    if schema.get("type") != "object" or not schema.keys() <= _OBJECT_KEYS | _WORDS:
        return False
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)  # JSON Schema: absent allows any
    if not isinstance(properties, dict) or not isinstance(required, list):
        return False
    if any(not isinstance(name, str) or name not in arguments for name in required):
        return False
    for name, value in arguments.items():
        rule = properties.get(name)
        if rule is None:
            if extra is not True:
                return False
        elif not _plain(rule, value):
            return False
    return True


def _plain(rule: Any, value: Any) -> bool:
    if not isinstance(rule, dict) or not rule.keys() <= _PROPERTY_KEYS | _WORDS:
        return False
    kind = rule.get("type")
    check = _SCALARS.get(kind) if isinstance(kind, str) else None
    if check is None or not check(value):
        return False
    if "enum" not in rule:
        return True
    enum = rule["enum"]
    return isinstance(enum, list) and any(
        type(member) is type(value) and member == value for member in enum
    )
