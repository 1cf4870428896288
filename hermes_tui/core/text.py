"""Text bound for a terminal: control characters and escape sequences made visible, never obeyed.

Everything a face shows can come from outside the user's own typing: model replies, tool output,
memory and skill files, other sessions. A terminal obeys what it is sent, so `ESC ] 0 ; … BEL`
renames the window, `ESC [ 2 J` wipes the screen and 8-bit `CSI` (U+009B) does the same on
terminals that honour C1. `neutralise` maps every such character to a visible stand-in, one
character at a time (so streamed fragments can be neutralised one by one):

- C0 controls (U+0000–U+001F) except newline and tab become their Control Pictures glyph
  (ESC → ␛, BEL → ␇, CR → ␍), DEL becomes ␡; `\\r\\n` is read as a newline.
- C1 controls (U+0080–U+009F) are shown as the 7-bit sequence they stand for: U+009B (CSI)
  becomes `␛[`, U+009D (OSC) `␛]`, so what would have happened stays legible.
- Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
  reorder what is displayed ("Trojan Source"), become `⟨U+202E⟩`. The plain direction marks
  (U+200E, U+200F, U+061C) only nudge neutral characters and stay, as right-to-left text needs them.
- Characters that draw nothing but carry or hide text become `⟨U+200B⟩` too: the zero-width
  space, word joiner and invisible operators (U+200B, U+2060–U+2064), the BOM (U+FEFF), the
  line and paragraph separators (U+2028, U+2029, which some terminals draw as a line break and
  some as nothing), Unicode tag characters (U+E0000–U+E007F: each one an invisible copy of an
  ASCII character, the carrier of "ASCII smuggling" injections) and the variation selectors
  supplement (U+E0100–U+E01EF, the carrier of "emoji smuggling"). The zero-width joiner and
  non-joiner (U+200D, U+200C) stay: emoji sequences (👩‍💻) and Persian and Indic scripts need
  them, and one character at a time cannot tell those from a joiner inside a word.
- A lone surrogate (U+D800–U+DFFF, half of a UTF-16 pair, which a hostile or broken stream can
  send as `\\ud800`) becomes U+FFFD, the replacement character: it has no UTF-8 encoding, so
  left in it would make every write of the text fail.

The escape sequence's parameters stay as plain text after its glyph (`␛[2J`), so a user sees
exactly what the text tried to do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_HIDDEN = "\u200b\u2028\u2029\u2060-\u2064\ufeff\U000e0000-\U000e007f\U000e0100-\U000e01ef"
# A surrogate on its own is half of a UTF-16 pair: no character, and no UTF-8 encoding, so
# writing it to a terminal, a file or sqlite raises UnicodeEncodeError.
_SURROGATES = "\ud800-\udfff"
_UNSAFE = re.compile(f"\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_HIDDEN}{_SURROGATES}]")
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}{_HIDDEN}{_SURROGATES}]")
_LONE_SURROGATE = re.compile(f"[{_SURROGATES}]")


def _stand_in(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0x9F:
        return "\u241b" + chr(code - 0x40)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"⟨U+{code:04X}⟩"


def neutralise(text: str) -> str:
    """`text` with every control character and escape sequence made visible (newline, tab kept)."""
    if not text or _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_stand_in, text)


def title_of(words: str, limit: int = 80) -> str:
    """A session title from what the user typed: its first line that has any words, whitespace
    collapsed, control characters visible, cut at a word boundary (with …) past `limit`."""
    line = next((" ".join(line.split()) for line in words.splitlines() if line.strip()), "")
    line = neutralise(line)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" .,;:") + "…"


def whole_characters(text: str) -> str:
    """`text` with every lone surrogate as U+FFFD (a pair written as two surrogates is joined).

    For text kept rather than shown (the conversation, its database): unlike `neutralise` it
    changes nothing else, and it makes every later write of the text possible.
    """
    if _LONE_SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def is_clean(text: str) -> bool:
    """True when `neutralise(text)` would change nothing."""
    return _UNSAFE.search(text) is None


def json_for_terminal(value: Any, **kwargs: Any) -> str:
    """JSON with C1 controls, DEL, bidi controls and hidden characters written as `\\u` escapes,
    which `json.dumps` leaves raw.

    Machine-readable output stays exact (the escapes decode to the same string) while a person
    who prints it to a terminal is not attacked by it. C0 controls are already escaped by json.
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: _json_escape(m.group()), text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # astral: a UTF-16 surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class NeutralisedStream:
    """A text stream wrapper for the CLI's stdout and stderr: every write is neutralised, and
    redacted (`redact`: key shapes at first, the runtime's known secrets once it is open)."""

    def __init__(self, stream: Any, redact: Callable[[str], str] = str) -> None:
        self._stream = stream
        self.redact = redact

    def write(self, text: str) -> int:
        self._stream.write(neutralise(self.redact(text)))
        return len(text)

    def write_control(self, sequence: str) -> None:
        """Our own cursor controls (a live status line), never text from outside."""
        self._stream.write(sequence)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def estimate_tokens(text: str) -> int:
    """A rough count of the tokens `text` adds to a request: about four characters a token
    for English and code (the rule of thumb OpenAI and Anthropic both give). For the input's
    hint only; real counts come back in the provider's usage."""
    return (len(text) + 3) // 4
