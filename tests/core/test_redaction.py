"""Redaction: known secrets in every encoding they can leave in, and key shapes nobody configured."""

from __future__ import annotations

import base64
import logging
import threading
import urllib.parse
from dataclasses import dataclass

import pytest
from secret_forms import forms

from hermes_tui.core.events import (
    ErrorEvent,
    Notice,
    ReasoningDelta,
    ServerWaiting,
    TextDelta,
    TextReset,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from hermes_tui.core.redaction import (
    RedactingFilter,
    Redactor,
    redact_shapes,
    redacting_sink,
)

SECRET = "Zq9-known-secret-7781xy"  # no well-known shape: only knowing it finds it


@pytest.mark.parametrize("prefix", ["", "K", "KE", "KEY=", "export TOKEN=", "😀"])
def test_a_known_secret_is_found_in_every_encoding_whatever_precedes_it(prefix: str) -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    raw = (prefix + SECRET + "\n").encode()
    carried = [
        prefix + SECRET,
        (prefix + SECRET)[::-1],
        raw.hex(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        urllib.parse.quote(prefix + SECRET),
    ]
    for text in carried:
        out = redactor.text(f"here it is: {text} (done)")
        assert "[REDACTED DB_TOKEN]" in out, text
        for form in forms(SECRET):
            assert form not in out, (text, form)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Incorrect API key provided: Bearer abc.DEF-123_xyz", "bearer token"),
        ("authorization: bearer eyJraWQiOi1234", "bearer token"),
        ("key sk-proj-AbCdEf0123456789AbCdEf", "openai key"),
        ("sk-ant-api03-AbCdEf0123456789-xyz", "anthropic key"),
        ("token=ghp_0123456789abcdefghijABCDEFGHIJ012345", "github token"),
        ("github_pat_11ABCDEFG0123456789_abcdefghij", "github token"),
        ("AKIAIOSFODNN7EXAMPLE", "aws key"),
        ("xoxb-123456789012-abcdefghijkl", "slack token"),
        ("AIzaSyA-0123456789abcdefghijklmnopqrstu", "google key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU", "jwt"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private key"),
    ],
)
def test_well_known_key_shapes_are_redacted_without_configuration(text: str, kind: str) -> None:
    out = redact_shapes(text)
    assert f"[REDACTED {kind}]" in out
    secret_part = text.split()[-1] if kind != "private key" else "MIIEow"
    assert secret_part not in out


@pytest.mark.parametrize(
    "text",
    [
        "pip install scikit-learn; sk-learn is fine",
        "the task-abcdefghijklmnopqrstuvwxyz is a slug, not a key",
        "a bearer of bad news",
        "AKIA is a prefix",
        "see /home/u/.ssh/id_ed25519",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor({"X_KEY": SECRET}).text(text) == text


def test_a_configured_key_is_named_by_its_variable_not_its_shape() -> None:
    key = "sk-proj-AbCdEf0123456789AbCdEf"
    assert Redactor({"OPENAI_API_KEY": key}).text(f"x {key} y") == "x [REDACTED OPENAI_API_KEY] y"


def test_events_reach_the_face_redacted_and_untouched_ones_are_the_same_object() -> None:
    seen = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(ErrorEvent(f"openai (HTTP 401): Incorrect API key provided: {SECRET[::-1]}"))
    encoded = base64.b64encode(SECRET.encode()).decode()
    finished = ToolCallFinished("c1", "terminal", True, 0.1, "ok", output=f"echo {encoded}")
    sink(finished)
    plain = ErrorEvent("nothing secret here")
    sink(plain)
    assert SECRET[::-1] not in seen[0].text and "[REDACTED DB_TOKEN]" in seen[0].text
    assert seen[1].output == "echo [REDACTED DB_TOKEN]"
    assert seen[2] is plain


@dataclass(frozen=True)
class _Nested:
    items: tuple[str, ...]


def test_deep_keeps_tuples_and_dataclasses() -> None:
    value = _Nested(("ok", f"Bearer {SECRET}"))
    out = Redactor().deep(value)
    assert isinstance(out, _Nested) and isinstance(out.items, tuple)
    assert out.items == ("ok", "Bearer [REDACTED bearer token]")


def test_a_log_line_and_its_traceback_are_redacted(tmp_path) -> None:
    path = tmp_path / "x.log"
    handler = logging.FileHandler(path)
    handler.addFilter(RedactingFilter(Redactor({"DB_TOKEN": SECRET})))
    logger = logging.getLogger("test_redaction_log")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise RuntimeError(f"connect failed with {SECRET}")
        except RuntimeError:
            logger.exception("request with %s failed", SECRET[::-1])
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = path.read_text()
    assert "connect failed with [REDACTED DB_TOKEN]" in text
    for form in forms(SECRET):
        assert form not in text


# ---- streamed text: a secret cut across deltas ------------------------------------------

SHAPED_KEYS = [
    "Bearer abc.DEF-123_xyz",
    "sk-proj-AbCdEf0123456789AbCdEf",
    "sk-ant-api03-AbCdEf0123456789-xyz",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-123456789012-abcdefghijkl",
    "AIzaSyA-0123456789abcdefghijklmnopqrstu",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU",
    "glpat-0123456789abcdefghij",
    "hf_0123456789abcdefghijABCDEFGHIJ",
    "sk_live_0123456789abcdefXY",
    "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
]


def streamed(redactor: Redactor, *deltas: str, end: bool = True) -> str:
    """What a face is shown of `deltas` streamed on this thread (then the turn ends)."""
    seen: list = []
    sink = redacting_sink(seen.append, redactor)
    for delta in deltas:
        sink(TextDelta(delta))
    if end:
        sink(TurnFinished())
    return "".join(event.text for event in seen if isinstance(event, TextDelta))


@pytest.mark.parametrize("secret", [*SHAPED_KEYS, *forms(SECRET)])
def test_a_secret_cut_across_two_deltas_is_redacted_at_every_cut(secret: str) -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    text = f"before {secret} after"
    whole = redactor.text(text)
    assert "[REDACTED" in whole
    for cut in range(1, len(text)):
        assert streamed(redactor, text[:cut], text[cut:]) == whole, cut


def test_a_secret_streamed_a_character_at_a_time_is_redacted() -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    text = f"x {SECRET} y {SHAPED_KEYS[1]} z {base64.b64encode(SECRET.encode()).decode()}."
    assert streamed(redactor, *text) == redactor.text(text)


def test_ordinary_text_streams_on_and_only_a_possible_start_waits() -> None:
    """What waits: the word still being streamed (it may be a key in disguise, reversed or
    encoded, that only its end shows), or a start of a secret. The rest is shown at once."""
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(TextDelta("The build passed. "))
    sink(TextDelta("Next, run the tests and"))
    assert "".join(e.text for e in seen) == "The build passed. Next, run the tests "
    sink(TextDelta(" check the s"))  # "s" may begin "sk-": it waits, the rest is shown
    assert seen[-1].text == "and check the "
    sink(ServerWaiting(1.0))  # waiting for the server does not end the stream
    assert seen[-1] == ServerWaiting(1.0)
    sink(TextDelta("ummary."))
    # "y." may begin the secret reversed and spelled out (y.x.1.8…): only that waits.
    assert seen[-1].text == "summar"
    sink(TurnFinished())
    assert seen[-2].text == "y."


def test_the_end_of_the_call_lets_the_held_tail_go_and_a_reset_drops_it() -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    assert streamed(redactor, "half a key: sk-proj-Ab") == "half a key: sk-proj-Ab"
    seen: list = []
    sink = redacting_sink(seen.append, redactor)
    sink(TextDelta("retried: Zq9-kn"))
    sink(TextReset("server error"))
    sink(TextDelta("fresh"))
    sink(TurnFinished())
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "retried: fresh"


def test_another_threads_event_does_not_let_a_held_tail_go() -> None:
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(TextDelta("key " + SECRET[:6]))
    other = threading.Thread(target=sink, args=(Notice("info", "review done"),))
    other.start()
    other.join()
    sink(TextDelta(SECRET[6:] + " end"))
    sink(TurnFinished())
    shown = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert shown == "key [REDACTED DB_TOKEN] end"


def test_reasoning_is_held_the_same_way() -> None:
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(ReasoningDelta("I see " + SECRET[:9]))
    sink(ReasoningDelta(SECRET[9:] + " in .env"))
    sink(TextDelta("Done."))
    reasoning = "".join(e.text for e in seen if isinstance(e, ReasoningDelta))
    assert reasoning == "I see [REDACTED DB_TOKEN] in .env"
    assert seen[-1] == TextDelta("Done.")


def test_a_private_key_streamed_in_pieces_is_one_label_whether_or_not_it_ends() -> None:
    body = "MIIEowIBAAKCAQEA7d3b\n" * 200  # longer than what is held outside a key
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----"
    text = f"here: {key}\nafter"
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    assert streamed(Redactor(), *pieces) == "here: [REDACTED private key]\nafter"
    cut_off = f"here: {key[:-40]}"  # the stream ends inside the key
    pieces = [cut_off[i : i + 5] for i in range(0, len(cut_off), 5)]
    assert streamed(Redactor(), *pieces) == "here: [REDACTED private key]"


def test_a_secret_split_around_a_tool_call_is_one_label_and_a_retry_keeps_the_first_half() -> None:
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(TextDelta("key: " + SECRET[:12]))  # the first call ends, a tool runs
    sink(ToolCallStarted("c1", "todo", {}))
    sink(ToolCallFinished("c1", "todo", True, 0.1, "ok"))
    sink(Notice("warning", "Retrying in 1.0s"))
    sink(TextDelta(SECRET[12:15]))  # the second call fails and is retried: its text is dropped
    sink(TextReset("server error"))
    sink(TextDelta(SECRET[12:] + " done"))
    sink(TurnFinished())
    shown = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert shown == "key: [REDACTED DB_TOKEN] done"


def test_the_last_word_before_a_tool_call_stays_in_its_own_message() -> None:
    # The word still streaming waits for its end; a tool call ends the model's call, so the word
    # is whole and shown before the call (it used to open the next message: "evildone").
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(TextDelta("reply evil"))
    sink(ToolCallStarted("c1", "todo", {}))
    sink(ToolCallFinished("c1", "todo", True, 0.1, "ok"))
    sink(TextDelta("done"))
    sink(TurnFinished())
    kinds = [(type(e).__name__, getattr(e, "text", "")) for e in seen]
    started = kinds.index(("ToolCallStarted", ""))
    before = "".join(text for kind, text in kinds[:started] if kind == "TextDelta")
    after = "".join(text for kind, text in kinds[started:] if kind == "TextDelta")
    assert (before, after) == ("reply evil", "done")


# ---- a key glued to a name by `_` -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("token_sk-proj-AbCdEf0123456789AbCdEf", "openai key"),
        ("KEY_ghp_0123456789abcdefghijABCDEFGHIJ012345", "github token"),
        ("AWS_AKIAIOSFODNN7EXAMPLE", "aws key"),
        ("slack_xoxb-123456789012-abcdefghijkl", "slack token"),
        ("AUTH_Bearer abc.DEF-123_xyz", "bearer token"),
        ("x=my_sk-ant-api03-AbCdEf0123456789-xyz", "anthropic key"),
    ],
)
def test_a_key_glued_to_a_name_by_an_underscore_is_redacted(text: str, kind: str) -> None:
    out = redact_shapes(text)
    assert f"[REDACTED {kind}]" in out, out
    assert text.split("_", 1)[1].split()[-1][-10:] not in out


@pytest.mark.parametrize(
    "text",
    [
        "def ask_skeleton_for(project): return task_sk_list",
        "disk-sk-cache and risk-assessment-of-the-new-endpoint",
        "my_bearer_of_news = 1",
        "the_akia_module_is_fine",
    ],
)
def test_snake_case_code_around_key_leads_is_left_alone(text: str) -> None:
    assert Redactor({"X_KEY": SECRET}).text(text) == text


# ---- a secret split between the reasoning and the reply ----------------------------------


@pytest.mark.parametrize("secret", [SECRET, SHAPED_KEYS[3], SHAPED_KEYS[1]])
def test_a_secret_split_between_reasoning_and_text_is_one_label_in_the_reasoning(
    secret: str,
) -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    for cut in range(1, len(secret)):
        seen: list = []
        sink = redacting_sink(seen.append, redactor)
        sink(ReasoningDelta("I will say " + secret[:cut]))
        sink(TextDelta(secret[cut:] + " is it."))
        sink(TurnFinished())
        reasoning = "".join(e.text for e in seen if isinstance(e, ReasoningDelta))
        text = "".join(e.text for e in seen if isinstance(e, TextDelta))
        assert reasoning.startswith("I will say [REDACTED"), (cut, reasoning)
        assert text == " is it.", (cut, text)
        kinds = [type(e) for e in seen if isinstance(e, (ReasoningDelta, TextDelta))]
        assert kinds == sorted(kinds, key=lambda k: k is TextDelta), "reasoning comes first"


def test_reasoning_then_ordinary_text_reads_as_streamed() -> None:
    seen: list = []
    sink = redacting_sink(seen.append, Redactor({"DB_TOKEN": SECRET}))
    sink(ReasoningDelta("thinking about s"))
    sink(TextDelta("kills and tools."))
    sink(TurnFinished())
    reasoning = "".join(e.text for e in seen if isinstance(e, ReasoningDelta))
    assert reasoning == "thinking about s"
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "kills and tools."


def test_pair_redacts_a_secret_across_the_seam_and_leaves_ordinary_pairs_alone() -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    assert redactor.pair("x " + SECRET[:5], SECRET[5:] + " y") == ("x [REDACTED DB_TOKEN]", " y")
    assert redactor.pair("plain thought", "plain answer") == ("plain thought", "plain answer")
    assert redactor.pair("", SECRET) == ("", "[REDACTED DB_TOKEN]")


# ---- forms a demanding user expects: case, base32, spelled out, wrapped -----------------


def _wrapped(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def _carried_forms(prefix: str) -> dict[str, str]:
    """How a tool or the model may carry `prefix + SECRET` out, by name."""
    whole = prefix + SECRET
    raw = (whole + "\n").encode()
    return {
        "upper": whole.upper(),
        "lower": whole.lower(),
        "swapped": whole.swapcase(),
        "reversed upper": whole[::-1].upper(),
        "base32": base64.b32encode(raw).decode(),
        "base32 lower": base64.b32encode(raw).decode().lower(),
        "base64 of upper": base64.b64encode(whole.upper().encode()).decode(),
        "hex of reversed": whole[::-1].encode().hex(),
        "spaced": " ".join(whole),
        "dashed": "-".join(whole),
        "dotted upper": ".".join(whole.upper()),
        "words": whole.replace("-", " "),
        "base64 wrapped at 76": _wrapped(base64.b64encode(b"x" * 70 + raw).decode(), 76),
        "base64 wrapped at 4": _wrapped(base64.b64encode(raw).decode(), 4),
        "base64 wrapped, CRLF": _wrapped(base64.b64encode(raw).decode(), 10).replace("\n", "\r\n"),
        "url-safe base64 wrapped": _wrapped(base64.urlsafe_b64encode(raw).decode(), 7),
        "xxd -p": _wrapped(raw.hex(), 6),
        "base32 wrapped": _wrapped(base64.b32encode(raw).decode(), 9),
    }


@pytest.mark.parametrize("prefix", ["", "K", "KE", "KEY=", "export TOKEN="])
@pytest.mark.parametrize("form", sorted(_carried_forms("")))
def test_a_known_secret_is_found_in_the_forms_a_user_expects(prefix: str, form: str) -> None:
    carried = _carried_forms(prefix)[form]
    out = Redactor({"DB_TOKEN": SECRET}).text(f"here it is: {carried} (done)")
    assert "[REDACTED DB_TOKEN]" in out, (form, out)
    flat = "".join(out.split())
    squashed = "".join(ch for ch in out if ch.isalnum()).lower()
    for piece in ("known", "secret", "7781", "nwonk", "terces"):
        assert piece not in squashed, (form, out)
    for shown in forms(SECRET):
        assert shown.lower() not in flat.lower(), (form, out)


def test_a_wrapped_form_in_json_text_is_redacted_and_the_json_stays_valid() -> None:
    import json

    encoded = _wrapped(base64.b64encode(f"KEY={SECRET}\n".encode()).decode(), 8)
    text = json.dumps({"output": f"cat .env | base64\n{encoded}\n", "spelled": " ".join(SECRET)})
    out = Redactor({"DB_TOKEN": SECRET}).text(text)
    value = json.loads(out)
    assert value["output"].count("[REDACTED DB_TOKEN]") == 1, value
    assert value["spelled"] == "[REDACTED DB_TOKEN]"


@pytest.mark.parametrize("form", ["spaced", "base64 wrapped at 4", "xxd -p", "upper"])
def test_a_new_form_streamed_a_character_at_a_time_is_redacted(form: str) -> None:
    redactor = Redactor({"DB_TOKEN": SECRET})
    text = f"x {_carried_forms('KEY=')[form]} y."
    shown = streamed(redactor, *text)
    assert "[REDACTED DB_TOKEN]" in shown, shown
    flat = "".join(shown.split()).lower()
    for piece in forms(SECRET):
        assert piece.lower() not in flat, (piece, shown)


def test_ordinary_source_and_prose_are_left_alone_with_secrets_configured() -> None:
    """The project's own code and README (about 1.5 MB, with words like `secret`, `token`,
    base64 and hex in it) read the same after redaction: no false positive."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    secrets = {f"KEY_{i}": f"Zq9-secret-value-{i:04d}-abcdefgh" for i in range(4)}
    secrets.update(DB_PASSWORD="correct-horse-battery", API_TOKEN="a1b2c3d4e5f6a7b8")
    redactor = Redactor(secrets)
    changed = []
    for path in [root / "README.md", *sorted((root / "hermes_tui").rglob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        if redactor.text(text) != text:
            changed.append(path.name)
    assert changed == []


def test_one_name_with_two_values_keeps_both() -> None:
    from hermes_tui.core.redaction import collect_secrets

    found = collect_secrets(
        {"OPENAI_API_KEY": "from-the-dotenv-123"},
        {"OPENAI_API_KEY": "from-the-shell-4567", "HOME": "/root"},
        {"OPENAI_API_KEY": "from-the-dotenv-123", "SVC_TOKEN": "mcp-server-token-9"},
    )
    assert found == {
        "OPENAI_API_KEY": "from-the-shell-4567",
        "OPENAI_API_KEY (2)": "from-the-dotenv-123",
        "SVC_TOKEN": "mcp-server-token-9",
    }
    redactor = Redactor(found)
    assert "from-the" not in redactor.text("from-the-shell-4567 / from-the-dotenv-123")


# ---- key shapes nobody configured, in disguise ------------------------------------------

UNCONFIGURED = {
    "openai key": "sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDfGhJk",
    "github token": "ghp_Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXc7890",
    "aws key": "AKIAQ1W2E3R4T5Y6U7I8",
    "slack token": "xoxb-123456789012-Q1w2E3r4T5y6",
}


def _disguises(key: str) -> dict[str, str]:
    return {
        "reversed": key[::-1],
        "upper": key.upper(),
        "lower": key.lower(),
        "base64": base64.b64encode(f"TOKEN={key}\n".encode()).decode(),
        "url-safe base64": base64.urlsafe_b64encode(key.encode()).decode().rstrip("="),
        "hex": key.encode().hex(),
    }


@pytest.mark.parametrize("kind", sorted(UNCONFIGURED))
@pytest.mark.parametrize("disguise", sorted(_disguises("x")))
def test_an_unconfigured_key_shape_in_disguise_is_redacted(kind: str, disguise: str) -> None:
    key = UNCONFIGURED[kind]
    carried = _disguises(key)[disguise]
    out = redact_shapes(f"found: {carried} (end)")
    assert out == f"found: [REDACTED {kind}] (end)", out


@pytest.mark.parametrize(
    "text",
    [
        "SK-HYNIX-MEMORY-MODULE-DDR-FOUR is a part number",
        "the TASK-SK-ASSESSMENT-OF-RISKS-1234 ticket",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad and ks-dlrow-olleh",
        "uuid 123e4567-e89b-12d3-a456-426614174000 in AKIA-docs",
    ],
)
def test_ordinary_encoded_and_upper_case_text_is_not_taken_for_a_key(text: str) -> None:
    assert redact_shapes(text) == text


@pytest.mark.parametrize("disguise", sorted(_disguises("x")))
def test_an_unconfigured_key_in_disguise_streamed_in_pieces_is_redacted(disguise: str) -> None:
    carried = _disguises(UNCONFIGURED["openai key"])[disguise]
    text = f"here: {carried} done."
    for size in (1, 3, 7):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert streamed(Redactor(), *pieces) == "here: [REDACTED openai key] done.", size


@pytest.mark.parametrize("where", ["{}", "x {}", "{} y", "a_{}"])
def test_a_reversed_key_is_redacted_wherever_it_stands(where: str) -> None:
    key = UNCONFIGURED["github token"]
    assert redact_shapes(where.format(key[::-1])) == where.format("[REDACTED github token]")


def test_every_key_shape_has_a_sample_that_is_redacted_as_its_kind() -> None:
    """A shape added to KEY_SHAPES must begin with one of SHAPES' first characters."""
    from hermes_tui.core.redaction import KEY_SHAPES

    labelled = {kind for key in SHAPED_KEYS for kind, _ in KEY_SHAPES if kind in redact_shapes(key)}
    assert labelled == {kind for kind, _ in KEY_SHAPES}


# ---- the attacker's list (ATTACK.md F2, F6): byte escapes, ROT13, UTF-16, hidden chars ----


def _escaped_forms(value: str) -> dict[str, str]:
    import codecs
    import html  # noqa: F401 - the entities below are what html.escape would not write

    raw = value.encode()
    return {
        "hex colon": ":".join(f"{b:02x}" for b in raw),
        "hex space": raw.hex(" "),
        "mixed-case hex": raw.hex()[:10] + raw.hex()[10:].upper(),
        "\\x escapes": "".join(f"\\x{b:02x}" for b in raw),
        "%XX every byte": "".join(f"%{b:02X}" for b in raw),
        "%xx every byte": "".join(f"%{b:02x}" for b in raw),
        "octal escapes": "".join(f"\\{b:03o}" for b in raw),
        "decimal bytes": " ".join(map(str, raw)),
        "rot13": codecs.encode(value, "rot13"),
        "json \\u": "".join(f"\\u{ord(c):04x}" for c in value),
        "html decimal": "".join(f"&#{ord(c)};" for c in value),
        "html hex": "".join(f"&#x{ord(c):x};" for c in value),
        "utf-16 hex": value.encode("utf-16-le").hex(),
        "utf-16 base64": base64.b64encode(value.encode("utf-16-le")).decode(),
        "utf-16 printed": value.encode("utf-16-le").decode("latin-1"),
        "zero-width": "\u200b".join(value),
        "full-width": "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in value),
        "combining": "".join(c + "\u0301" for c in value),
        "base85": base64.b85encode(raw).decode(),
        "ascii85": base64.a85encode(raw).decode(),
        "base64 of base64": base64.b64encode(base64.b64encode(raw)).decode(),
        "halves on two lines": value[:12] + "\n" + value[12:],
    }


@pytest.mark.parametrize("form", sorted(_escaped_forms(SECRET)))
def test_a_known_secret_spelled_byte_by_byte_or_hidden_is_redacted(form: str) -> None:
    carried = _escaped_forms(SECRET)[form]
    out = Redactor({"DB_TOKEN": SECRET}).text(f"see: {carried} (end)")
    # What hides between characters may be left after the last one: it carries nothing.
    assert out.replace("\u0301", "").replace("\x00", "") == "see: [REDACTED DB_TOKEN] (end)", out


@pytest.mark.parametrize(
    "text",
    [
        "token-ghp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "tokenghp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "1ghp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "xAKIAQWERTYUIOPASDFGH",
        "KEYAKIAQWERTYUIOPASDFGH",
        "KEYsk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp-abcdefAA",
        "abcsk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
        "axoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "authBearer abcdefghijklmnop1234",
        "ghp\u200b_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "g\u200bhp_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "ｇｈｐ_Q2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6",
        "ghp_Q2w3E4r5T6y7U8i9\nO0pA1sD2fG3hJ4kL5zX6",
    ],
)
def test_a_key_shape_glued_to_a_word_or_hidden_is_redacted(text: str) -> None:
    out = redact_shapes(f"({text})")
    assert "[REDACTED" in out and "Q2w3E4r5" not in out and "QWERTYUIOP" not in out, out
    assert "Zz9Yy8Xx" not in out and "AbCdEfGh" not in out and "abcdefghijklmnop" not in out, out


def test_a_random_looking_secret_printed_in_two_halves_is_redacted_half_by_half() -> None:
    """Two commands (two tool results) each print half: neither half is shown."""
    redactor = Redactor(
        {"DB_TOKEN": "Vr7-kumquat-Secret-55aa19", "DB_URL": "postgres://u@db:5432/x"}
    )
    assert redactor.text("first: Vr7-kumquat-") == "first: [REDACTED DB_TOKEN]"
    assert redactor.text("then: Secret-55aa19.") == "then: [REDACTED DB_TOKEN]."
    # Pieces of a URL, or without a digit, are ordinary text.
    assert (
        redactor.text("postgres on db:5432, kumquat-Secret")
        == "postgres on db:5432, kumquat-Secret"
    )


@pytest.mark.parametrize("value", ["ghp_e2eSecretValue0123456789", "Äpfel-Secret-99x"])
def test_an_encoded_form_in_any_letter_case_is_found_where_a_case_blind_search_finds_it(
    value: str,
) -> None:
    """The encoded forms are searched lower-cased in ASCII text (forms.AnyCase): each form,
    its letters' case flipped one by one, is redacted in ASCII text and around a non-ASCII
    word, at the places the case-blind pattern finds it."""
    from hermes_tui.core.redaction.forms import encoded_forms

    redactor = Redactor({"TOKEN": value})
    encoded = redactor._encoded
    assert encoded is not None
    for form in encoded_forms(value):
        flipped = "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(form))
        for text in (f"x {flipped} y", f"{flipped}\n{form.swapcase()}", f"é {flipped} ñ"):
            found = [m.span() for m in encoded.finditer(text)]
            assert found == [m.span() for m in encoded.pattern.finditer(text)]
            assert found and value not in redactor.text(text)
            assert flipped not in redactor.text(text)


def test_a_form_written_with_the_letters_case_folding_adds_is_found_as_case_blind_finds_it() -> (
    None
):
    """In a text not all ASCII, the encoded forms are searched in its ASCII fold
    (forms.ascii_folded), not by compiling a case-blind pattern: a hex or base32 form written
    with the four characters a case-blind search reads as ASCII letters (İ ı for i, ſ for s,
    the Kelvin sign for k), or next to other letters (é, Σ), is found at the places the
    case-blind pattern finds it, and redacted."""
    from hermes_tui.core.redaction.forms import encoded_forms

    value = "sk-ikis-Secret-0123456789kiss"
    redactor = Redactor({"TOKEN": value})
    encoded = redactor._encoded
    assert encoded is not None
    # A dump read as bytes past ASCII (dates, sizes) compiles no case-blind pattern.
    assert redactor.text("é 2026-11-27 12:34:56 ff fe fd") == "é 2026-11-27 12:34:56 ff fe fd"
    assert encoded._blind is None
    swaps = (str.maketrans("iIsSkK", "İıſſ\u212a\u212a"), str.maketrans("iskISK", "ıſKİſK"))
    tried = 0
    for form in encoded_forms(value):
        for swap in swaps:
            odd = form.translate(swap)
            if odd == form:
                continue
            tried += 1
            for text in (f"x {odd} y", f"É Σ {odd}\n{form.upper()} ñ"):
                found = [m.span() for m in encoded.finditer(text)]
                assert found == [m.span() for m in encoded.pattern.finditer(text)]
                assert found and odd not in redactor.text(text)
    assert tried > 10


def test_the_loose_text_matches_python_s_case_blind_gap_for_every_character() -> None:
    """forms.loose_text writes a character as a space exactly when the case-blind GAP matches
    it, as an ASCII letter exactly when a case-blind pattern reads it as that letter, and
    changes no other character: the loose forms matched in it match where the case-blind
    pattern does (forms.LooseForms)."""
    import re

    from hermes_tui.core.redaction.forms import _LOOSE_TEXT, GAP, loose_text

    every = "".join(map(chr, range(0x110000)))
    written = loose_text(every)
    assert len(written) == len(every)
    gap = re.compile(GAP[3 : GAP.index("]|") + 1], re.IGNORECASE)
    separators = {m.start() for m in gap.finditer(every)}
    assert {m.start() for m in re.finditer(" ", written)} == separators
    letters = {m.start() for m in re.finditer("[a-z]", every, re.IGNORECASE)}
    changed = set(_LOOSE_TEXT) - {ord(" ")}
    assert changed == (separators | letters) - {ord(" "), *range(ord("a"), ord("z") + 1)}
    for code in letters:
        assert re.fullmatch(written[code], every[code], re.IGNORECASE), hex(code)


@pytest.mark.parametrize("value", ["Vr7-kumquat-Secret-55aa19", "Äpfel-Geheim-99xQ"])
def test_a_value_written_out_loosely_is_found_where_the_case_blind_pattern_finds_it(
    value: str,
) -> None:
    """The loose forms (forms.LooseForms) match, at the same places, what their case-blind
    pattern matches: separators of every kind between the characters (zero-width, combining
    marks, ι, full-width punctuation, JSON's \\n), letters in either case or as İ ı ſ K,
    full-width letters, too many separators (no match), and redact it."""
    import re

    from hermes_tui.core.redaction.forms import GAP, LooseForms, loose_forms, trie_pattern

    forms = loose_forms(value)
    blind = trie_pattern(dict.fromkeys(forms, ""), GAP, re.IGNORECASE)
    assert blind is not None
    loose = LooseForms(forms)
    swaps = str.maketrans({"i": "İ", "s": "ſ", "k": "\u212a", "e": "E", "a": "A"})
    texts = []
    for form in sorted(forms):
        for gap in (" ", "-\u200b", "\u0301", "\u03b9", "\uff0e", "\\n", " \t\n", "    "):
            spaced = gap.join(form)
            texts += [f"x {spaced} y", spaced.translate(swaps), f"é{spaced.upper()}ñ"]
    texts.append("ＶＲ７ＫＵＭＱＵＡＴＳＥＣＲＥＴ５５ＡＡ１９ and ÄPFELGEHEIM99XQ")
    found = 0
    for text in texts:
        spans = [m.span() for m in loose.finditer(text)]
        assert spans == [m.span() for m in blind.finditer(text)], repr(text)
        found += bool(spans)
    assert found > len(texts) // 2
    redactor = Redactor({"TOKEN": value})
    assert "[REDACTED TOKEN]" in redactor.text(f"it is {' '.join(value.upper())}.")


def test_the_ascii_fold_matches_python_s_case_blind_matching_for_every_character() -> None:
    """forms.ascii_folded turns a character into an ASCII letter exactly when a case-blind
    pattern matches it as that letter, keeps every length, and str.lower() (its fast path)
    makes no other character ASCII."""
    import re

    from hermes_tui.core.redaction.forms import _NOT_LOWERED, ascii_folded

    every = "".join(map(chr, range(0x80, 0x110000)))
    blind = {m.group(): m.group().lower() for m in re.finditer("[a-z]", every, re.IGNORECASE)}
    folded = ascii_folded(every)
    assert len(folded) == len(every)
    made_ascii = {every[m.start()] for m in re.finditer("[\\x00-\\x7f]", folded)}
    assert made_ascii == set(blind)
    for char in blind:
        assert re.fullmatch(ascii_folded(char), char, re.IGNORECASE)
    rest = _NOT_LOWERED.sub("", every)
    lowered = rest.lower()
    assert len(lowered) == len(rest)
    assert {rest[m.start()] for m in re.finditer("[\\x00-\\x7f]", lowered)} == {"\u212a"}
