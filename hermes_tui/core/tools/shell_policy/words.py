"""Shell words as bash would see them: quotes, backslashes and known variables resolved.

A word is a tree-sitter-bash node. `Word.values` holds every literal the word can become
(a for-loop variable has several); None means bash decides it at run time (a variable we do
not know, a substitution, `$'...'` we cannot decode). `Word.sources` names the commands
inside any substitution in the word, so a caller can tell `"$(curl …)"` from `"$(date)"`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

Node = Any  # tree_sitter.Node; tree_sitter is imported lazily, on the first parse

MAX_VALUES = 32  # a word that could take more values than this is treated as unknown
GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Word:
    text: str
    values: tuple[str, ...] | None
    glob: bool = False  # an unquoted *, ? or [ that the shell will expand
    sources: frozenset[str] = field(default_factory=frozenset)

    @property
    def known(self) -> bool:
        return self.values is not None

    @property
    def value(self) -> str | None:
        """The single value, or None when unknown or ambiguous."""
        return self.values[0] if self.values is not None and len(self.values) == 1 else None


def literal(text: str) -> Word:
    return Word(text, (text,), bool(GLOB_CHARS.search(text)))


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(source: str) -> Node:
    """The root node of `source`; callers check `has_error`."""
    return _parser().parse(source.encode("utf-8")).root_node


def node_text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace")


_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The value of bash's $'...' quoting: \\xHH, \\NNN, \\uHHHH, \\cX and the usual letters."""
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            out.append(char)
            i += 1
            continue
        code = body[i + 1]
        if code in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[code])
            i += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            match = re.match(rf"[0-9a-fA-F]{{1,{width}}}", body[i + 2 :])
            if match:
                out.append(chr(int(match.group(), 16)))
                i += 2 + len(match.group())
            else:
                out.append("\\" + code)
                i += 2
        elif code in "01234567":
            match = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert match is not None
            out.append(chr(int(match.group(), 8) & 0xFF))
            i += 1 + len(match.group())
        elif code == "c" and i + 2 < len(body):
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + code)
            i += 2
    return "".join(out)


def _unescape_bare(text: str) -> tuple[str, bool]:
    """An unquoted word's value (backslash quotes the next char) and whether it globs."""
    out: list[str] = []
    glob = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        if char in "*?[":
            glob = True
        out.append(char)
        i += 1
    return "".join(out), glob


def _unescape_double(text: str) -> str:
    return re.sub(r'\\([\\$`"\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


class Resolver:
    """Turns word nodes into Words, given what is known about variables."""

    def __init__(self, variables: Mapping[str, tuple[str, ...] | None]) -> None:
        self.variables = variables

    def word(self, node: Node) -> Word:
        sources: set[str] = set()
        parts = self._parts(node, sources, quoted=False)
        text = node_text(node)
        if parts is None:
            return Word(text, None, False, frozenset(sources))
        values: list[str] = [""]
        glob = False
        for options, part_glob in parts:
            glob = glob or part_glob
            values = [v + o for v in values for o in options]
            if len(values) > MAX_VALUES:
                return Word(text, None, glob, frozenset(sources))
        return Word(text, tuple(dict.fromkeys(values)), glob, frozenset(sources))

    def _variable(self, name: str, quoted: bool) -> tuple[str, ...] | None:
        values = self.variables.get(name)
        if values is None:
            return None
        if not quoted and any(re.search(r"\s", v) or v == "" for v in values):
            return None  # word splitting would change the word count
        return values

    def _parts(
        self, node: Node, sources: set[str], quoted: bool
    ) -> list[tuple[tuple[str, ...], bool]] | None:
        """The word as a list of (possible values, globs) pieces, or None if unknown."""
        kind = node.type
        text = node_text(node)
        if kind in ("word", "number", "command_name"):
            if kind == "command_name":
                inner = node.named_children
                return self._parts(inner[0], sources, quoted) if len(inner) == 1 else None
            if kind == "word" and text.startswith("~") and not quoted:
                head, _, _rest = text.partition("/")
                homes = self.variables.get("HOME")
                if head != "~" or not homes:
                    return None  # ~user, ~+ and ~- point wherever they point
                value, glob = _unescape_bare(text[1:])
                return [(tuple(home + value for home in homes), glob)]
            value, glob = (text, False) if quoted else _unescape_bare(text)
            return [((value,), glob)]
        if kind == "raw_string":
            return [((text[1:-1],), False)]
        if kind == "ansi_c_string":
            return [((decode_ansi_c(text[2:-1]),), False)]
        if kind in ("string", "translated_string"):
            pieces: list[tuple[tuple[str, ...], bool]] = []
            for child in node.named_children:
                sub = self._parts(child, sources, quoted=True)
                if sub is None:
                    self._collect_sources(node, sources)
                    return None
                pieces.extend(sub)
            return pieces or [(("",), False)]
        if kind == "string_content":
            return [((_unescape_double(text),), False)]
        if kind == "concatenation":
            pieces = []
            for child in node.children:
                sub = self._parts(child, sources, quoted)
                if sub is None:
                    self._collect_sources(node, sources)
                    return None
                pieces.extend(sub)
            return pieces
        if kind == "simple_expansion":
            names = [c for c in node.named_children if c.type == "variable_name"]
            if len(names) == 1:
                values = self._variable(node_text(names[0]), quoted)
                if values is not None:
                    return [(values, False)]
            return None
        if kind == "expansion":
            # Only the plain ${NAME} form has a value we can know.
            names = node.named_children
            if (
                len(names) == 1
                and names[0].type == "variable_name"
                and text == ("${" + node_text(names[0]) + "}")
            ):
                values = self._variable(node_text(names[0]), quoted)
                if values is not None:
                    return [(values, False)]
            self._collect_sources(node, sources)
            return None
        self._collect_sources(node, sources)
        return None

    @staticmethod
    def _collect_sources(node: Node, sources: set[str]) -> None:
        """Names of the commands inside substitutions under `node`."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "command_name":
                sources.add(node_text(current).strip("'\"\\").rsplit("/", 1)[-1])
            stack.extend(current.children)
