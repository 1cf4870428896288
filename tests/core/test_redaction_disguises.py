"""Key shapes nobody configured, in the disguises the first rounds left open: JWTs, bearer
tokens and private keys reversed or encoded (base64, also wrapped over lines, and hex), and any
key spelled out one character at a time with a separator (`g h p _ A b …`, `s-k-…`)."""

from __future__ import annotations

import base64
import json

import pytest
from test_redaction import streamed

from hermes_tui.core.redaction import Redactor, redact_shapes

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
BEARER = "Bearer tok3nQ9vW8xY7zA6bC5dE4"
BODY = "MIIEowIBAAKCAQEAq7BFUpkGp3TKnrTZLvMq0aDk8h2Yx9mWcV5bN3sLrPqK1uJ4eHfG"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{BODY}\n{BODY[::-1]}\n-----END RSA PRIVATE KEY-----\n"
GITHUB = "ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34"
OPENAI = "sk-proj-ABCdef1234567890XYZabc"
AWS = "AKIAIOSFODNN7EXAMPLE"

DISGUISED = {
    "jwt reversed": (JWT[::-1], "jwt"),
    "jwt base64": (base64.b64encode(f"token={JWT}".encode()).decode(), "jwt"),
    "jwt url-safe base64": (base64.urlsafe_b64encode(JWT.encode()).decode(), "jwt"),
    "jwt hex": (JWT.encode().hex(), "jwt"),
    "bearer reversed": (BEARER[::-1], "bearer token"),
    "bearer base64": (
        base64.b64encode(f"Authorization: {BEARER}".encode()).decode(),
        "bearer token",
    ),
    "bearer hex": (BEARER.encode().hex(), "bearer token"),
    "private key reversed": (PEM.strip()[::-1], "private key"),
    "private key base64": (base64.b64encode(PEM.encode()).decode(), "private key"),
    "private key base64 wrapped": (
        base64.encodebytes(PEM.encode()).decode().strip(),
        "private key",
    ),
    "private key hex": (PEM.encode().hex(), "private key"),
}
SPELLED = {
    "spaces": (" ".join(GITHUB), "github token"),
    "dashes": ("-".join(OPENAI), "openai key"),
    "commas": (", ".join(OPENAI), "openai key"),
    "dots": (".".join(AWS), "aws key"),
    "underscores": ("_".join(GITHUB), "github token"),
    "pipes": ("|".join(AWS), "aws key"),
    "jwt spaced": (" ".join(JWT), "jwt"),
}


def _leaked(out: str, key: str) -> list[str]:
    """Pieces of `key` (12 characters) still in `out`, in any of the disguises."""
    pieces = [key[i : i + 12] for i in range(0, len(key) - 12, 6)]
    flat = "".join(out.split())
    return [p for p in pieces if p in flat or p[::-1] in flat]


@pytest.mark.parametrize("name", sorted(DISGUISED))
def test_a_jwt_bearer_token_or_private_key_in_disguise_is_redacted(name: str) -> None:
    carried, kind = DISGUISED[name]
    out = redact_shapes(f"found: {carried} (end)")
    assert out == f"found: [REDACTED {kind}] (end)", out


@pytest.mark.parametrize("name", sorted(SPELLED))
def test_a_key_spelled_out_with_separators_is_redacted(name: str) -> None:
    carried, kind = SPELLED[name]
    out = redact_shapes(f"the key is {carried} (spelled)")
    assert out == f"the key is [REDACTED {kind}] (spelled)", out


@pytest.mark.parametrize("name", sorted(SPELLED))
def test_a_spelled_out_key_streamed_in_pieces_is_redacted(name: str) -> None:
    carried, kind = SPELLED[name]
    text = f"here: {carried} done."
    for size in (1, 2, 5):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert streamed(Redactor(), *pieces) == f"here: [REDACTED {kind}] done.", size


@pytest.mark.parametrize("name", ["jwt reversed", "bearer reversed", "private key reversed"])
def test_a_reversed_shape_keeps_nothing_of_the_key(name: str) -> None:
    carried, _ = DISGUISED[name]
    out = redact_shapes(f"x {carried} y")
    for key in (JWT, BEARER, BODY):
        assert _leaked(out, key) == []


@pytest.mark.parametrize(
    "text",
    [
        "e. g. a list: x, y, z, and A. B. C. initials",
        "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z is the alphabet",
        "s p a c e d  o u t  t i t l e s like H E R M E S are a style",
        "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
        "g h i j k l m n o p q r s t u v w x y z",
        "use the Jye.Jye pattern; reraeb is not a word; ETAVIRP neither",
        base64.b64encode(b"an ordinary sentence, nothing secret in it at all").decode(),
        base64.encodebytes(b"line after line of ordinary words " * 4).decode(),
    ],
)
def test_ordinary_spelled_out_and_encoded_text_is_left_alone(text: str) -> None:
    assert redact_shapes(text) == text
    assert streamed(Redactor(), *[text[i : i + 3] for i in range(0, len(text), 3)]) == text


def _blob_with(secret: bytes, at: int, size: int = 3000) -> str:
    """Base64 of `size` bytes of ordinary data with `secret` at byte `at`."""
    filler = bytes(range(32, 127)) * (size // 95 + 1)
    data = filler[:at] + secret + filler[at : size - len(secret)]
    return base64.b64encode(data).decode()


@pytest.mark.parametrize("at", [10, 700, 767, 768, 769, 1500, 2400])
@pytest.mark.parametrize("size", [4, 16, 61])
def test_a_key_inside_a_huge_base64_blob_streamed_never_shows(at: int, size: int) -> None:
    """A run of key characters past what a stream holds whole (DISGUISE_CAP) goes on in whole
    groups from its start with a window held: a key its decoding holds, wherever it begins
    (across the 1,024th character too), is its label and nothing of it shows."""
    blob = _blob_with(GITHUB.encode(), at)
    text = f"blob: {blob} end"
    out = streamed(Redactor(), *[text[i : i + size] for i in range(0, len(text), size)])
    assert "[REDACTED github token]" in out
    assert out.endswith("[REDACTED github token] end"), out[-80:]
    shown = out.removeprefix("blob: ").split("[REDACTED")[0]
    decoded = base64.b64decode(shown + "=" * (-len(shown) % 4))
    assert GITHUB[:4].encode() not in decoded and len(decoded) >= at - 3


@pytest.mark.parametrize("encode", [base64.b64encode, bytes.hex])
def test_a_private_key_in_a_long_encoded_run_streamed_is_one_label(encode) -> None:
    carried = encode(PEM.encode() * 8)
    carried = carried if isinstance(carried, str) else carried.decode()
    text = f"tls.key: {carried}\nnext: line"
    out = streamed(Redactor(), *[text[i : i + 7] for i in range(0, len(text), 7)])
    assert out == "tls.key: [REDACTED private key]\nnext: line", out[:200]


def test_a_long_ordinary_base64_blob_streams_whole_and_unchanged() -> None:
    blob = _blob_with(b"", 0, 6000)
    text = f"image: {blob} (png)"
    assert streamed(Redactor(), *[text[i : i + 5] for i in range(0, len(text), 5)]) == text


RANDOM_KEY = "kQ7xWpLmZrTvBn4YhJsDfGaEuX"  # its last third holds no digit


def test_a_known_secret_printed_in_three_pieces_is_redacted_piece_by_piece() -> None:
    redactor = Redactor({"VAULT_KEY": RANDOM_KEY})
    third = len(RANDOM_KEY) // 3
    pieces = [RANDOM_KEY[:third], RANDOM_KEY[third : 2 * third], RANDOM_KEY[2 * third :]]
    assert not any(char.isdigit() for char in pieces[2])
    for piece in pieces:
        assert redactor.text(f"part: {piece}\n") == "part: [REDACTED VAULT_KEY]\n", piece


@pytest.mark.parametrize(
    ("secret", "text"),
    [
        ("CorrectHorseBattery9Staple", "a CorrectHorse is a horse"),
        ("Zq9-LEAKCHECK-abcdefgh-XYZ", "the LEAKCHECK tool and abcdefgh"),
        ("Zq9-deploy-Token-for-Staging", "deploy-Token-for-Staging"),
    ],
)
def test_a_wordy_piece_of_a_secret_is_not_redacted_on_its_own(secret: str, text: str) -> None:
    assert Redactor({"S": secret}).text(text) == text


@pytest.mark.parametrize("known", [{}, {"DB_TOKEN": "Zq9-known-secret-7781-abcdefgh"}])
@pytest.mark.parametrize("name", sorted(DISGUISED))
def test_a_jwt_bearer_token_or_private_key_in_disguise_streamed_is_redacted(
    name: str, known: dict[str, str]
) -> None:
    """Also with a known secret configured: a tail that may begin one of its forms (`e\no`)
    never cuts a key in disguise in two."""
    carried, kind = DISGUISED[name]
    for after in (" done.", "\nok"):
        text = f"here: {carried}{after}"
        for size in (1, 2, 3, 7):
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            assert streamed(Redactor(known), *pieces) == f"here: [REDACTED {kind}]{after}", size


WRAPPED_PEM = base64.encodebytes(PEM.encode() * 3).decode()


@pytest.mark.parametrize(
    "after", ["", "\n", "next: line", "\nok: yes", "\n\nA new paragraph.", "\r\nend"]
)
def test_a_wrapped_base64_private_key_streamed_reads_as_the_whole_text(after: str) -> None:
    text = f"key:\n{WRAPPED_PEM.rstrip()}{after}"
    whole = redact_shapes(text)
    assert "[REDACTED private key]" in whole and _leaked(whole, BODY) == []
    for size in (1, 5, 13):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert streamed(Redactor(), *pieces) == whole, size


def test_a_known_secrets_wrapped_form_after_a_reversed_jwt_does_not_cut_the_jwt() -> None:
    """A wrapped block (lines of encoding characters) that holds a known secret's form is held
    from its start; a JWT reversed just before it (joined by no separator the block knows) is
    held whole with it, not cut at its last dot."""
    known = "Zq9-known-secret-7781-abcdefgh"
    text = f"x {JWT[::-1]}\n{known[::-1]}\nA done"
    for size in (13, 40, 41):
        out = streamed(
            Redactor({"DB_TOKEN": known}), *[text[i : i + size] for i in range(0, len(text), size)]
        )
        assert out == "x [REDACTED jwt]\n[REDACTED DB_TOKEN]\nA done", (size, out)


@pytest.mark.parametrize(
    "carry",
    [
        lambda key: json.dumps(list(key)),
        lambda key: str(list(key)),
        lambda key: json.dumps(list(key), separators=(",", ":")),
        lambda key: f"{key[0::2]}\n{key[1::2]}",
    ],
    ids=["json list", "python list", "compact json list", "even and odd"],
)
def test_a_known_secret_as_a_list_of_characters_or_even_and_odd_halves_is_redacted(carry) -> None:
    """ATTACK3 A3-5: `json.dumps(list(secret))`, and its even and odd characters on two lines."""
    key = "Vr7kumquatPlum55aa19xq"
    out = Redactor({"DB_TOKEN": key}).text(f"printed: {carry(key)}\nend")
    assert "[REDACTED DB_TOKEN]" in out and out.endswith("\nend"), out
    assert key[0::2] not in out and key[1::2] not in out and '"V", "r", "7"' not in out
    if out.startswith(('printed: ["', "printed: ['")):  # the list is still a list
        assert json.loads(out.split("\n")[0].removeprefix("printed: ").replace("'", '"'))


def test_a_secret_value_with_spaces_is_known_by_its_random_looking_words() -> None:
    """ATTACK3 A3-11: a connection string or JSON credentials under a secret name hold spaces;
    their random-looking words are known secrets, a sentence gives none."""
    from hermes_tui.core.redaction import collect_secrets

    found = collect_secrets(
        {
            "DB_CONNECTION": "Server=db;User Id=sa;Password=Sq1PassZ9x;",
            "SA_CREDENTIALS": '{"type": "service_account", "client_secret": "CsecretJson7788"}',
        },
        {
            "AUTH_MESSAGE": "Please log in again",
            "APP_CREDENTIALS": "user=admin password=Hunter2xyz99",
        },
    )
    assert sorted(found.values()) == ["CsecretJson7788", "Hunter2xyz99", "Sq1PassZ9x"]
    redactor = Redactor(found)
    assert redactor.text("cat: Password=Sq1PassZ9x and CsecretJson7788") == (
        "cat: Password=[REDACTED DB_CONNECTION] and [REDACTED SA_CREDENTIALS]"
    )
    assert redactor.text("Please log in again") == "Please log in again"


def test_no_shape_or_disguise_is_shorter_than_the_texts_left_unread() -> None:
    # redact_shapes returns a text shorter than SHORTEST_SHAPE unread: every pattern that can
    # redact must need at least that many characters. Two find less on their own, and redact
    # only where SHAPES then matches text made of at least as many of the input's characters:
    # _WRAPPED_KEY (the lines joined) and _REVERSED_LEADS (the key read backwards).
    import re

    from hermes_tui.core.redaction import shapes

    def shortest(pattern: re.Pattern[str]) -> int:
        return re._parser.parse(pattern.pattern, pattern.flags).getwidth()[0]  # type: ignore[attr-defined]

    patterns = {
        name: value
        for name, value in vars(shapes).items()
        if isinstance(value, re.Pattern) and name not in ("_WRAPPED_KEY", "_REVERSED_LEADS")
    }
    redacting = ("SHAPES", "_FOLDED", "_ENCODED_RUN", "_WRAPPED_RUN", "_SPELLED", "_HIDDEN_RUN")
    assert set(redacting) <= set(patterns)
    for name in (*redacting, "_REVERSED_PRIVATE_KEY"):
        assert shortest(patterns[name]) >= shapes.SHORTEST_SHAPE, name
    assert shortest(shapes.SHAPES) == shapes.SHORTEST_SHAPE  # the bound is not looser than it
    bearer = "bearer abcd1234"
    assert len(bearer) == shapes.SHORTEST_SHAPE and "REDACTED" in redact_shapes(bearer)
