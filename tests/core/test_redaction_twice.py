"""Redacting a redacted text changes nothing, so a redactor hands a long text it gave back
before back as it is (a tool's whole output is redacted as its result is bounded, then again as
the faces' event carries it): the proof over hostile texts, and that a newly learned secret is
still found in a text redacted before it was known."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from secret_forms import forms

from hermes_tui.core.events import ToolCallFinished
from hermes_tui.core.redaction import Redactor, redacting_sink
from hermes_tui.core.redaction.known import OUTPUT_KEPT_FROM
from hermes_tui.core.tools.results import ResultLimits, bound_result

KEY = "Vr7kumquatSecret55aa19xq"  # no well-known shape: only knowing it finds it
SHAPED = [
    "ghp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
    "sk-proj-AbCdEf0123456789AbCdEf",
    "AKIAQ1W2E3R4T5Y6U7I8",
    "xoxb-123456789012-abcdefghijkl",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
]
DUMPS = ["od -c", "od -An -tx1", "od -x", "od -b", "od -d", "xxd", "xxd -i", "xxd -b", "hexdump -C"]


def _hostile() -> list[str]:
    """A known value and key shapes in the forms and disguises redaction reads, alone and
    inside longer texts (numbered lines, a dump, JSON), with the labels it writes."""
    raw = KEY.encode()
    carried = [
        *forms(KEY),
        *SHAPED,
        *(shape[::-1] for shape in SHAPED),
        *(base64.b64encode(shape.encode()).decode() for shape in SHAPED),
        KEY.upper(),
        " ".join(KEY),
        "\u00ad".join(KEY),
        "\u200b".join(KEY),
        "".join(chr(0xE0000 + ord(c)) for c in KEY),
        "".join(chr(ord(c) + 0xFEE0) for c in KEY),
        KEY.translate(str.maketrans("aecxqVS", "аесхԛѴЅ")),
        KEY[:3] + f"\\x{ord(KEY[3]):02x}" + KEY[4:],
        KEY[:3] + "&#107;" + KEY[4:10] + "&#x53;" + KEY[11:],
        KEY[:5] + "\\u006d" + KEY[6:],
        "".join(f"\\{b:03o}" for b in raw),
        ", ".join(f"0x{b:02x}" for b in raw),
        str(list(raw)),
        " ".join(f"{b:08b}" for b in raw),
        "\n".join(KEY[i::3] for i in range(3)),
        base64.b32hexencode(raw).decode(),
        f"{KEY[:12]}\n{KEY[12:]}",
        "[REDACTED DB_TOKEN] " + KEY,
        "[REDACTED DB_TOKEN][REDACTED github token]",
    ]
    numbered = "".join(f"{n}\n" for n in range(1, 300))
    texts = []
    for piece in carried:
        texts += [f"see: {piece} (end)", numbered + piece + "\n" + numbered]
        texts.append(json.dumps({"success": True, "output": numbered + piece}))
    return texts


def _dumped(tmp_path: Path) -> list[str]:
    """What real dump tools print of a file holding the key (those installed)."""
    path = tmp_path / "secret.txt"
    path.write_text(f"DB_TOKEN={KEY}\n" * 3)
    printed = []
    for command in DUMPS:
        if shutil.which(command.split()[0]):
            done = subprocess.run([*command.split(), str(path)], capture_output=True, text=True)
            printed.append(done.stdout)
    return printed


@pytest.mark.parametrize("configured", [True, False], ids=["known value", "shapes only"])
def test_redacting_a_redacted_text_changes_nothing(configured: bool, tmp_path: Path) -> None:
    secrets = {"DB_TOKEN": KEY} if configured else {}
    changed = []
    for text in [*_hostile(), *_dumped(tmp_path)]:
        once = Redactor(secrets).text(text)
        # Another redactor, so nothing it remembers answers: the work is done again.
        twice = Redactor(secrets).text(once)
        if twice != once:
            changed.append((text, once, twice))
    assert changed == []
    assert KEY not in Redactor({"DB_TOKEN": KEY}).text(_hostile()[0])


def test_a_long_output_redacted_once_reaches_the_face_redacted_and_unchanged() -> None:
    redactor = Redactor({"DB_TOKEN": KEY})
    output = redactor.text("".join(f"{n}\n" for n in range(1, 5000)) + f"token {KEY}\n")
    assert len(output) >= OUTPUT_KEPT_FROM and KEY not in output
    seen: list = []
    redacting_sink(seen.append, redactor)(
        ToolCallFinished("c1", "terminal", True, 0.1, "", output=output)
    )
    assert seen[0].output == output and seen[0].output.endswith("token [REDACTED DB_TOKEN]\n")


def test_a_secret_learned_later_is_found_in_a_text_redacted_before() -> None:
    redactor = Redactor({"DB_TOKEN": KEY})
    later = "Mq4-later-secret-3390zz"
    output = redactor.text("".join(f"line {n}\n" for n in range(800)) + f"{KEY} {later}\n")
    assert later in output  # not known yet
    redactor.learn({"MCP_TOKEN": later})
    again = redactor.text(output)
    assert later not in again and again.endswith("[REDACTED DB_TOKEN] [REDACTED MCP_TOKEN]\n")


def test_only_the_redactors_own_output_is_handed_back_unchanged() -> None:
    redactor = Redactor({"DB_TOKEN": KEY})
    padding = "".join(f"line {n}\n" for n in range(800))
    redactor.text(padding + "nothing here\n")
    assert KEY not in redactor.text(padding + KEY + "\n")


def test_the_sink_does_not_redact_a_long_output_the_result_already_redacted() -> None:
    class Counted(Redactor):
        """Counts the texts it reads (the work `text` does)."""

        read: list[int] = []

        def _redacted(self, text: str) -> str:
            self.read.append(len(text))
            return super()._redacted(text)

    redactor = Counted({"DB_TOKEN": KEY})
    output = redactor.text("".join(f"{n}\n" for n in range(1, 5000)) + f"token {KEY}\n")
    redacting_sink(lambda _event: None, redactor)(
        ToolCallFinished("c1", "terminal", True, 0.1, "", output=output)
    )
    assert sum(size >= OUTPUT_KEPT_FROM for size in redactor.read) == 1


def _results(text: str) -> list[dict]:
    """Tool results holding `text` as their items do: alone, cut in two items at each third,
    as a key, as items of their own one character each."""
    third = max(1, len(text) // 3)
    return [
        {"success": True, "output": text, "exit_code": 0},
        {"output": text[:third], "error": text[third:]},
        {"content": text[: 2 * third], "path": text[2 * third :], "size": len(text)},
        {text: None, "ok": True},
        {str(n): c for n, c in enumerate(text[:60])},
    ]


@pytest.mark.parametrize("configured", [True, False], ids=["known value", "shapes only"])
def test_the_json_of_a_redacted_result_of_scalars_is_redacted(
    configured: bool, tmp_path: Path
) -> None:
    """What lets `json_of` hand a result's JSON back unredacted again: it is a fixpoint."""
    secrets = {"DB_TOKEN": KEY} if configured else {}
    changed = []
    for text in [*_hostile(), *_dumped(tmp_path)]:
        for result in _results(text):
            _, once = Redactor(secrets).json_of(result)
            if Redactor(secrets).text(once) != once:
                changed.append((result, once))
    assert changed == []


def test_a_secret_as_a_list_of_its_characters_reaches_neither_the_model_nor_the_faces() -> None:
    """A list's strings read together can spell a value none of them is (an MCP tool's
    structured result): the result's JSON is redacted as a text too, and read back."""
    redactor = Redactor({"DB_TOKEN": KEY})
    padding = "".join(f"line {n}\n" for n in range(800))
    raw = {"output": padding, "chars": list(KEY), "count": len(KEY)}
    bounded = bound_result("mcp_tool", raw, ResultLimits(10**6, redactor), None)
    assert bounded.result == {"output": padding, "chars": ["[REDACTED DB_TOKEN]"], "count": 24}
    assert json.dumps(list(KEY)) not in json.dumps(bounded.result)  # what the model reads
    seen: list = []
    redacting_sink(seen.append, redactor)(
        ToolCallFinished("c1", "mcp_tool", True, 0.1, "", result=bounded.full_text)
    )
    assert seen[0].result == bounded.full_text
    assert '"chars": ["[REDACTED DB_TOKEN]"]' in seen[0].result
    # Characters that spell nothing stay a list.
    plain = bound_result("t", {"chars": list("abc")}, ResultLimits(10**6, redactor), None)
    assert plain.result == {"chars": ["a", "b", "c"]}


def test_the_sink_does_not_redact_a_long_result_bound_result_redacted() -> None:
    class Counted(Redactor):
        read: list[int] = []

        def _redacted(self, text: str) -> str:
            self.read.append(len(text))
            return super()._redacted(text)

    redactor = Counted({"DB_TOKEN": KEY})
    output = "".join(f"{n}\n" for n in range(1, 5000)) + f"token {KEY}\n"
    bounded = bound_result(
        "terminal",
        {"success": True, "output": output, "exit_code": 0},
        ResultLimits(10**6, redactor),
        None,
    )
    seen: list = []
    redacting_sink(seen.append, redactor)(
        ToolCallFinished("c1", "terminal", True, 0.1, "", result=bounded.full_text)
    )
    assert seen[0].result == bounded.full_text and KEY not in seen[0].result
    assert seen[0].result.endswith('token [REDACTED DB_TOKEN]\\n", "exit_code": 0}')
    assert sum(size >= OUTPUT_KEPT_FROM for size in redactor.read) == 1


def test_a_long_output_with_pieces_withheld_is_redacted_once_before_the_faces_get_it(
    tmp_path: Path,
) -> None:
    """Pieces of a known value withheld from a long output (core/redaction/pieces.py) make
    texts the redactor has not given back: the registry reads the result once more as it
    reads a result (json_of), so the faces' event, its output and the JSON holding it, passes
    the sink as it is: the same texts, redacted, with no third reading of the whole output."""
    from hermes_tui.core.tools.registry import Tool, ToolContext, ToolRegistry

    class Counted(Redactor):
        read: list[int] = []

        def _redacted(self, text: str) -> str:
            self.read.append(len(text))
            return super()._redacted(text)

    redactor = Counted({"DB_TOKEN": KEY})
    output = "".join(f"{n} kumquat\n" for n in range(1, 3000))  # `kumquat`: a piece of KEY
    tool = Tool(
        "lines",
        "test",
        "lines",
        {"type": "object", "properties": {}},
        lambda arguments, context: {"success": True, "output": output},
    )
    limits = ResultLimits(max_chars=4_000, redactor=redactor, scratch_root=tmp_path)
    context = ToolContext()
    context.secret_pieces = redactor.piece_ledger()
    context.secret_pieces.withheld(["Vr7kumquat"])  # shown before: its share is used up
    bounded = ToolRegistry([tool], limits=limits).run("lines", {}, context)
    shown = bounded.full["output"]
    assert "kumquat" not in shown and "[REDACTED DB_TOKEN piece]" in shown
    seen: list = []
    before = len(redactor.read)
    redacting_sink(seen.append, redactor)(
        ToolCallFinished(
            "c1", "lines", True, 0.1, "", result=bounded.full_text, output=bounded.full["output"]
        )
    )
    assert not any(size >= OUTPUT_KEPT_FROM for size in redactor.read[before:])
    assert (seen[0].result, seen[0].output) == (bounded.full_text, bounded.full["output"])
    assert json.loads(bounded.full_text) == bounded.full
