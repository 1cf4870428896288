"""Known secret values (provider keys, `.env` values, secret-named variables) and the forms
they leave in; `Redactor` replaces them and the key shapes of core/redaction/shapes.py."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from hermes_tui.core.redaction.forms import (
    SEPARATORS,
    WRAPPED,
    AnyCase,
    LooseForms,
    Starts,
    base64_forms,
    encoded_forms,
    loose_forms,
    name_of,
    partial_forms,
    piece_encodings,
    squash,
    trie_pattern,
    unwrapped,
)
from hermes_tui.core.redaction.pieces import PieceLedger
from hermes_tui.core.redaction.recognise import (
    labelled,
    looks_like_secret_value,
    secret_parts,
    value_secrets,
    variable_secrets,
)
from hermes_tui.core.redaction.shapes import (
    DISGUISE_CAP,
    KEY_CHARACTERS,
    SHAPES,
    redact_shapes,
    reversed_bearer_tail,
    shape_starts,
    spelled_out,
    spelled_tail,
)
from hermes_tui.core.redaction.views import View, character_views, dump_views

_WORD = KEY_CHARACTERS + "."  # what a key in disguise is made of (a JWT reversed has dots)
_WORD_RUN = re.compile(r"[A-Za-z0-9+/=_.\-]*")
_DOTTED_HEAD = re.compile(r"[A-Za-z0-9_\-]{12,}\.")
# A text this long that `Redactor.text` gave back is remembered (the last OUTPUTS_KEPT of them):
# handed back again, it is returned as it is. A tool's whole output is redacted as its result is
# bounded, then again as the faces' event carries it; redacting a redacted text changes nothing
# (tests/core/test_redaction_twice.py), but took a second or more for a 200,000-line output.
OUTPUT_KEPT_FROM = 4096
OUTPUTS_KEPT = 4


def _remember(memory: tuple[dict[str, None], threading.Lock], output: str) -> None:
    """Remember a long output of `Redactor.text` (the last OUTPUTS_KEPT of them)."""
    if len(output) >= OUTPUT_KEPT_FROM:
        outputs, lock = memory
        with lock:
            outputs[output] = None
            if len(outputs) > OUTPUTS_KEPT:
                del outputs[next(iter(outputs))]


def collect_secrets(
    dotenv: Mapping[str, str],
    environ: Mapping[str, str],
    provider_keys: Mapping[str, str] = {},
    *,
    also: Iterable[Mapping[str, str]] = (),
) -> dict[str, str]:
    """Name → value of what must never leave the process.

    Every value of `<home>/.env` (it exists to hold secrets) and of the `.env` files `also`
    names (the user's own when the demo runs in a home of its own), the configured provider keys
    (and other configured secrets), and what core/redaction/recognise.py calls secret in an
    environment variable (a secret-looking name, a URL's password, a webhook's token, a key
    shape); the credentials a `.env` value carries are known apart too (a URL's password printed
    alone). One name with two values (the shell's and the .env's) keeps both: the second is
    named `NAME (2)`.
    """
    found: dict[str, str] = {}

    def keep(name: str, value: str) -> None:
        label, count = name, 1
        while found.get(label, value) != value:
            count += 1
            label = f"{name} ({count})"
        found[label] = value

    for name, value in environ.items():
        for secret in variable_secrets(name, value):
            keep(name, secret)
    for source in (dotenv, *also, provider_keys):
        for name, value in source.items():
            for secret in dict.fromkeys([*secret_parts(value), *value_secrets(value)]):
                keep(name, secret)
    return found


def kept_labels(raw: str, shown: str, edited: str) -> list[str]:
    """The labels standing for a secret of `raw` (`shown` is `raw` redacted) that `edited`, a
    text made from `shown`, still holds: saved, each would be written where the secret was. A
    label `raw` holds as text is its own; one more than that stands for a secret."""
    labels = set(re.findall(r"\[REDACTED [^\]]+\]", shown))
    return sorted(
        label
        for label in labels
        if shown.count(label) > raw.count(label) and edited.count(label) > raw.count(label)
    )


@functools.lru_cache(maxsize=8)
def _compiled(secrets: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """A Redactor's patterns for `secrets` (name, value pairs), which nothing changes once
    built: made once per process for the same values and shared by the Redactors holding them
    (a runtime's, an ACP session's after `learn`, an eval arm's, a crash report's). Building
    them costs 3-4 ms of CPU for one value (its encoded forms, pieces and tries); what a
    Redactor remembers of the texts it gave back is its own (`_outputs`)."""
    loose: dict[str, str] = {}  # squashed value → name
    encoded: dict[str, str] = {}  # lower-cased form → name
    encoded_tails: dict[str, str] = {}
    b64: dict[str, str] = {}
    b64_tails: dict[str, str] = {}
    for name, value in secrets:
        if not looks_like_secret_value(value):
            continue
        for form in loose_forms(value):
            loose.setdefault(form, name)
        for form, tail in encoded_forms(value).items():
            encoded.setdefault(form.lower(), name)
            encoded_tails[form.lower()] = tail
        for form, tail in base64_forms(value).items():
            b64.setdefault(form, name)
            b64_tails[form] = tail
    decoded: dict[str, str] = {}  # every piece of a third, matched in decoded views only
    # A piece encoded alone, form → (name, tail): matched last, once the whole value's
    # forms (a wrapped block joined) had their turn.
    piece_b64: dict[str, tuple[str, str]] = {}
    piece_blind: dict[str, tuple[str, str]] = {}
    for name, value in secrets:  # after the whole forms: they name first
        if looks_like_secret_value(value):
            for piece in partial_forms(value):
                encoded.setdefault(piece.lower(), name)
                encoded_tails.setdefault(piece.lower(), "")
            for piece in partial_forms(value, wordy=True):
                decoded.setdefault(piece.lower(), name)
            b64_pieces, blind_pieces = piece_encodings(value)
            for form, tail in b64_pieces.items():
                piece_b64.setdefault(form, (name, tail))
            for form, tail in blind_pieces.items():
                piece_blind.setdefault(form, (name, tail))
    piece_tails = {f: t for f, (_, t) in piece_blind.items()}
    loose_pattern = LooseForms(loose) if loose else None
    # (Its keys are lower case, and its tails, base32's, take either case.)
    encoded_pattern = AnyCase(encoded_tails, "") if encoded_tails else None
    base64_pattern = trie_pattern(b64_tails, "")
    # Whether a streamed text's tail may grow into a form: written out, or encoded.
    starts = [
        Starts(loose, SEPARATORS, fold=True),
        Starts([*encoded, *b64], "\r\n", fold=True),
    ]
    return {
        "_decoded_names": decoded,
        "_piece_names": {f: n for forms in (piece_b64, piece_blind) for f, (n, _) in forms.items()},
        "_piece_b64": trie_pattern({f: t for f, (_, t) in piece_b64.items()}, ""),
        "_piece_blind": AnyCase(piece_tails, "") if piece_tails else None,
        # (A wordy piece, `atSecret`, is ordinary text as written; hex-encoded alone it is not.)
        "_decoded": AnyCase(dict.fromkeys(decoded, ""), "") if decoded else None,
        "_loose_names": loose,
        "_encoded_names": encoded,
        "_base64_names": b64,
        "_loose": loose_pattern,
        "_encoded": encoded_pattern,
        "_base64": base64_pattern,
        "_patterns": [p for p in (loose_pattern, encoded_pattern, base64_pattern) if p is not None],
        "_starts": starts,
        "_reach": max(4 * one.longest + 4 for one in starts),
    }


class Redactor:
    """Replaces known secret values (in the forms of core/redaction/forms.py) and well-known key
    shapes."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._secrets = dict(secrets or {})
        self.__dict__.update(_compiled(tuple(self._secrets.items())))
        # Long texts `text` gave back, oldest first, with the lock that guards them: one
        # attribute, so a text redacted while `learn` replaces this state keeps its output
        # in the old state's memory, never in the new one's.
        self._outputs: tuple[dict[str, None], threading.Lock] = ({}, threading.Lock())

    def learn(self, secrets: Mapping[str, str]) -> None:
        """Know `secrets` too from now on (an ACP editor's MCP servers' tokens, known when its
        session opens), in this very object: every store and sink holding its methods redacts
        them. A label already taken for another value gets ` (2)`, …"""
        merged = labelled(((name, [value]) for name, value in secrets.items()), self._secrets)
        if merged != self._secrets:
            # One assignment: a text redacted meanwhile sees the old state or the new one.
            self.__dict__ = Redactor(merged).__dict__

    def piece_ledger(self) -> PieceLedger:
        """A new conversation's count of the small pieces of these values it was shown."""
        return PieceLedger(self._secrets)

    def __bool__(self) -> bool:
        """Whether any known value is configured (key shapes are redacted either way)."""
        return bool(self._patterns)

    def text(self, text: str) -> str:
        outputs, lock = self._outputs
        long = len(text) >= OUTPUT_KEPT_FROM
        if long and text in outputs:
            return text  # this redactor's own output: redacting it again changes nothing
        redacted = self._redacted(text)
        _remember((outputs, lock), redacted)
        return redacted

    def json_of(self, value: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """`value(value)` and its JSON text (a tool's result, tools/results.py), the strings
        read together too. When every item of the value is a scalar, its JSON is its strings
        side by side, each redacted, and redacting it again changes nothing
        (tests/core/test_redaction_twice.py: hostile texts alone, split across items, as keys):
        this JSON is handed back as it is when the faces' event brings it. In a list, strings
        read together can make a value no one of them showed (a secret as a list of its
        characters): that JSON is redacted as a text, and the value read back from it."""
        memory = self._outputs  # this state's: a secret learned meanwhile is looked for again
        redacted = self.value(value)
        text = json.dumps(redacted, ensure_ascii=False, default=str)
        if all(item is None or isinstance(item, (str, int, float)) for item in redacted.values()):
            _remember(memory, text)
            return redacted, text
        again = self.text(text)
        if again == text:
            return redacted, text
        try:  # a label never holds a quote or a backslash: the JSON stays JSON
            read = json.loads(again)
        except ValueError:
            return redacted, text
        return (read, again) if isinstance(read, dict) else (redacted, text)

    def _redacted(self, text: str) -> str:
        if self._patterns:
            text = self._in_views(text, character_views(text))
        if self._loose is not None:
            text = self._loose.sub(self._loose_label, text)
        if self._encoded is not None or self._base64 is not None:
            text = self._encodings(text)
            if "\n" in text or "\\n" in text:  # real line breaks or JSON's escapes
                text = WRAPPED.sub(self._unwrapped_label, text)
        decoded = (self._decoded, self._decoded_label)
        if self._patterns:
            text = self._in_views(text, dump_views(text), (*self._every(), decoded))
        if self._piece_b64 is not None:  # a half encoded alone (attack4's A4-5 addendum)
            text = self._piece_b64.sub(self._piece_label, text)
        if self._piece_blind is not None:
            text = self._piece_blind.sub(self._piece_label, text)
        return redact_shapes(text)

    def _every(self) -> tuple[tuple[Any, Any], ...]:
        return (
            (self._encoded, self._encoded_label),
            (self._base64, self._base64_label),
            (self._loose, self._loose_label),
        )

    def _piece_label(self, match: re.Match[str]) -> str:
        """A piece's form (its case as found, or lower case for hex and base32) and its tail."""
        found = match.group(0)
        for text in (found, found.lower()):
            forms = [form for form in self._piece_names if text.startswith(form)]
            if forms:
                return f"[REDACTED {self._piece_names[max(forms, key=len)]}]"
        return "[REDACTED secret]"

    def _decoded_label(self, match: re.Match[str]) -> str:
        return f"[REDACTED {self._decoded_names.get(match.group(0).lower(), 'secret')}]"

    def _in_views(
        self, text: str, views: Iterable[View], only: tuple[tuple[Any, Any], ...] = ()
    ) -> str:
        """`text` with what decodes to a known value in one of its `views` replaced (by the
        patterns `only` names, when it does)."""
        found: list[tuple[int, int, str]] = []
        patterns = only or self._every()
        for view in views:
            for pattern, label in patterns:
                for match in pattern.finditer(view.text) if pattern is not None else ():
                    found.append((*view.span(*match.span()), label(match)))
        if not found:
            return text
        pieces, at = [], 0
        for start, end, label in sorted(found):
            if end <= at:
                continue
            pieces.append(text[at:start] + label if start >= at else "")
            at = end
        return "".join(pieces) + text[at:]

    def _encodings(self, text: str) -> str:
        if self._encoded is not None:
            text = self._encoded.sub(self._encoded_label, text)
        if self._base64 is not None:
            text = self._base64.sub(self._base64_label, text)
        return text

    def _unwrapped_label(self, match: re.Match[str]) -> str:
        """A wrapped block, its lines joined where that shows a secret (as it is otherwise)."""
        joined = unwrapped(match.group(0))
        redacted = self._encodings(joined)
        return redacted if redacted != joined else match.group(0)

    def _loose_label(self, match: re.Match[str]) -> str:
        return f"[REDACTED {name_of(squash(match.group(0)), self._loose_names, False)}]"

    def _encoded_label(self, match: re.Match[str]) -> str:
        return f"[REDACTED {name_of(match.group(0), self._encoded_names, True)}]"

    def _base64_label(self, match: re.Match[str]) -> str:
        return f"[REDACTED {name_of(match.group(0), self._base64_names, False)}]"

    def held_from(self, text: str, call_ended: bool = False) -> int:
        """Where the tail of streamed `text` that could still grow into a secret begins
        (`len(text)`: nothing to hold). `text[:cut]` redacted on its own reads as it would
        inside the whole stream: no match it holds goes on past the cut. `call_ended`: the
        model call ended there, so a key spelled out or a token reversed is taken as whole
        (the next call's text is another message)."""
        cut = len(text)
        found = shape_starts().search(text)
        if found:
            cut = found.start()
        # A key spelled out one character at a time (`g h p _ A b …`) may still be coming.
        spelled = None if call_ended else spelled_tail(text)
        if spelled and shape_starts().search(spelled_out(spelled)):  # a key may begin in it
            cut = min(cut, spelled.start())
        # A long run of key characters at the end may be a key in disguise (reversed, encoded)
        # still streaming: it waits whole for the character that ends it.
        run = len(text.rstrip(KEY_CHARACTERS))
        # A JWT reversed (its signature first, 12 characters or more, then dots) waits whole
        # too; a token reversed waits for its `reraeB`.
        dotted = len(text.rstrip(KEY_CHARACTERS + "."))
        if dotted < run and _DOTTED_HEAD.match(text, dotted):
            run = dotted
        if len(text) - run <= DISGUISE_CAP:
            cut = min(cut, run)
        if not call_ended:
            cut = min(cut, reversed_bearer_tail(text))
        if self._patterns:
            window_start = max(0, len(text) - self._reach)
            window = text[window_start:]
            for starts in self._starts:
                start = starts.start(window)
                if start is not None:
                    cut = min(cut, window_start + start)
        # A whole match that reaches the end may go on (a longer key, base64 padding, a private
        # key's body); one that spans the cut would be cut in two. Either is held from its start.
        matches = self._matches(text)
        moved = True
        while moved:
            moved = False
            for start, end in matches:
                if start < cut and (end > cut or end == len(text)):
                    cut, moved = start, True
            whole = self._word_start(text, cut, call_ended)
            if whole < cut:
                cut, moved = whole, True
        return cut

    @staticmethod
    def _word_start(text: str, cut: int, call_ended: bool) -> int:
        """`cut`, or the start of the word it would cut when that word is long enough to be a
        key in disguise (reversed, encoded: 16 characters or more, dots counted), or a token
        whose `reraeB` follows: a cut in it would leave neither half recognisable."""
        if cut >= len(text) or text[cut] not in _WORD:
            return cut
        word = len(text[:cut].rstrip(_WORD)) if cut and text[cut - 1] in _WORD else cut
        end = _WORD_RUN.match(text, cut).end()  # type: ignore[union-attr]
        if end - word >= 16 and cut - word <= DISGUISE_CAP:
            return word
        if call_ended or text[word] not in "rR" or not text[word - 1 : word].isspace():
            return cut
        return min(cut, reversed_bearer_tail(text[:end]))

    def _matches(self, text: str) -> list[tuple[int, int]]:
        """Where each pattern matches in `text` (start, end), whatever it matches."""
        spans = [m.span() for p in (*self._patterns, SHAPES) for m in p.finditer(text)]
        if self._patterns and ("\n" in text or "\\n" in text):  # a wrapped block holding one
            blocks = WRAPPED.finditer(text)
            spans += [m.span() for m in blocks if self._unwrapped_label(m) != m.group(0)]
        return spans

    def cut_before(self, text: str, at: int, group: int = 1) -> int:
        """Where `text` may be cut at `at` or before it, at a multiple of `group`, without
        cutting a secret in two: back to the start of the matches that span it."""
        at -= at % group
        moved = True
        while moved and at > 0:
            moved = False
            for start, end in self._matches(text):
                if start < at < end:
                    at, moved = start - start % group, True
        return at

    def split_at(self, text: str, at: int) -> int:
        """Where `text` may be cut at `at` or after it without cutting a secret in two: the end
        of the matches that span `at` (`at` itself when none does)."""
        moved = True
        while moved:
            moved = False
            for start, end in self._matches(text):
                if start < at < end:
                    at, moved = end, True
        return at

    def pair(self, first: str, second: str) -> tuple[str, str]:
        """`first` and `second` redacted as the one text they read as when one follows the other
        (a reply's reasoning and its text): a secret that ends the first and begins the second is
        one label at the end of the first, and its rest is gone from the second."""
        whole = first + second
        cut = self.split_at(whole, len(first)) if first and second else len(first)
        return self.text(whole[:cut]), self.text(whole[cut:])

    def arguments(self, text: str) -> str:
        """A tool call's JSON arguments redacted, still JSON when they were: the very same text
        when nothing in it is secret (the request prefix stays byte-identical), else the
        object with every string redacted, written again and redacted as text once more (a
        secret split across two of its values)."""
        if "\\" not in text and self.text(text) == text:
            return text  # no escape hides a character: the text shows all its values hold
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            return self.text(text)
        redacted = self.value(parsed)
        if redacted == parsed and self.text(text) == text:
            return text
        written = json.dumps(redacted, ensure_ascii=False)
        again = self.text(written)
        try:
            json.loads(again)
        except ValueError:
            return written
        return again

    def value(self, value: Any) -> Any:
        """The same JSON-like value with every string (keys included) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def deep(self, value: Any) -> Any:
        """Like `value`, but keeps tuples and dataclasses (an event's fields), and returns the
        very same object when nothing in it changed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, (list, tuple)):
            items = [self.deep(v) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return type(value)(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            pairs = [(self.deep(k), self.deep(v)) for k, v in value.items()]
            if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
                return value
            return dict(pairs)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changed = {}
            for item in dataclasses.fields(value):
                old = getattr(value, item.name)
                new = self.deep(old)
                if new is not old:
                    changed[item.name] = new
            return dataclasses.replace(value, **changed) if changed else value
        return value
