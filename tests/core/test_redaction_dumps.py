"""ATTACK4 A4-5: a known secret in what everyday dump tools print of a file holding it (od, xxd,
hexdump, basenc, a list of its bytes), and in look-alike characters (NFKC, homoglyphs, soft
hyphens, tag characters), is redacted; a dump of a file that does not hold it is left alone.

The dumps are the real tools' output when the tool is installed (each case skips otherwise)."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.redaction import Redactor

KEY = "Vr7kumquatSecret55aa19xq"
LABEL = "[REDACTED DB_TOKEN]"

# (command, its program): each prints the file named last in its default way, or as told.
DUMPS = [
    "od -c",
    "od -An -c",
    "od -An -tx1",
    "od -x",
    "od -An -x",
    "od -tx4",
    "od -b",
    "od -An -tu1",
    "od -to1",
    "od -d",
    "od -o",
    "xxd",
    "xxd -i",
    "xxd -b",
    "xxd -c 4",
    "xxd -c 6",
    "xxd -e",
    "xxd -g 1",
    "hexdump",
    "hexdump -C",
    "hexdump -x",
    "hexdump -d",
    "hexdump -b",
    "hexdump -o",
    "od -tx8",
    "od -tx4 -w4",
    "od -An -tx1 -w1",
    "od -An -tu1 -w1",
    "od -c -w1",
    "xxd -u",
    "xxd -p -c 2",
    "xxd -b -c1",
    "xxd -b -c3",
    "basenc --base32hex",
    "basenc --z85",
    "basenc --base2msbf",
    "basenc --base2lsbf",
    "basenc --base16",
]
# The same bytes as programs print them (no dump tool).
PRINTED = {
    "decimal list": lambda raw: str(list(raw)),
    "decimal, commas": lambda raw: ",".join(map(str, raw)),
    "hex 0x, commas": lambda raw: ", ".join(f"0x{byte:02x}" for byte in raw),
    "hex 0x, spaces": lambda raw: " ".join(hex(byte) for byte in raw),
    "hex list repr": lambda raw: str([hex(byte) for byte in raw]),
    "quoted-printable": lambda raw: "".join(f"={byte:02X}" for byte in raw),
    "octal escapes, spaced": lambda raw: " ".join(f"\\{byte:03o}" for byte in raw),
    "bits, spaced": lambda raw: " ".join(f"{byte:08b}" for byte in raw),
    "hex words, little-endian": lambda raw: " ".join(
        raw[i : i + 2][::-1].hex() for i in range(0, len(raw), 2)
    ),
    "base32hex": lambda raw: base64.b32hexencode(raw).decode(),
    "base32hex, lower case": lambda raw: base64.b32hexencode(raw).decode().lower(),
}
# Each character in a disguise no pattern reads as written.
CHARACTERS = {
    "soft hyphens between": lambda key: "\u00ad".join(key),
    "tag characters between": lambda key: "\U000e0041".join(key),
    "tag characters only": lambda key: "".join(chr(0xE0000 + ord(c)) for c in key),
    "math bold": lambda key: "".join(_math_bold(c) for c in key),
    "circled": lambda key: "".join(_circled(c) for c in key),
    "full-width, soft hyphens": lambda key: "\u00ad".join(chr(ord(c) + 0xFEE0) for c in key),
    "cyrillic look-alikes": lambda key: key.translate(str.maketrans("aecxqVS", "аесхԛѴЅ")),
    "every third character": lambda key: "\n".join(key[i::3] for i in range(3)),
    "utf-16 bytes repr": lambda key: repr(key.encode("utf-16-le")),
    "one character \\x-escaped": lambda key: key[:3] + f"\\x{ord(key[3]):02x}" + key[4:],
    "two characters %-escaped": lambda key: key[:6] + "%71" + key[7:15] + "%35" + key[16:],
    "html entities here and there": lambda key: (
        key[:3] + "&#107;" + key[4:10] + "&#x53;" + key[11:]
    ),
    "json escapes here and there": lambda key: key[:5] + "\\u006d" + key[6:],
    "every fourth character, long key": lambda key: "\n".join((key * 2)[i::4] for i in range(4)),
}


def _math_bold(char: str) -> str:
    if char.isupper():
        return chr(0x1D400 + ord(char) - 65)
    if char.islower():
        return chr(0x1D41A + ord(char) - 97)
    return chr(0x1D7CE + ord(char) - 48)


def _circled(char: str) -> str:
    if char.isupper():
        return chr(0x24B6 + ord(char) - 65)
    if char.islower():
        return chr(0x24D0 + ord(char) - 97)
    return "⓪" if char == "0" else chr(0x2460 + ord(char) - 49)


def dump(command: str, path: Path) -> str:
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    done = subprocess.run([*command.split(), str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"{command}: {done.stderr.strip()}")
    return done.stdout


@pytest.mark.parametrize("lead", ["", "DB_TOKEN=", "x"])
@pytest.mark.parametrize("command", DUMPS)
def test_a_dump_of_a_file_holding_a_known_secret_shows_no_part_of_it(
    command: str, lead: str, tmp_path: Path
) -> None:
    path = tmp_path / "secret.txt"
    path.write_text(f"{lead}{KEY}\n")
    shown = dump(command, path)
    kept = Redactor({"DB_TOKEN": KEY}).text(shown)
    assert LABEL in kept, (command, shown)
    # Nothing left that still reads as a piece of the key: the redacted dump read again with
    # the key's two halves as known values finds neither.
    halves = Redactor({"A": KEY[:12], "B": KEY[12:]}).text(kept)
    assert halves == kept, (command, kept)


@pytest.mark.parametrize("name", PRINTED)
def test_the_bytes_of_a_known_secret_printed_as_numbers_are_redacted(name: str) -> None:
    shown = PRINTED[name](f"token={KEY}\n".encode())
    kept = Redactor({"DB_TOKEN": KEY}).text(f"out: {shown} end")
    assert LABEL in kept and kept.startswith("out: ") and kept.endswith(" end"), kept


@pytest.mark.parametrize("name", CHARACTERS)
def test_a_known_secret_in_look_alike_or_invisible_characters_is_redacted(name: str) -> None:
    key = KEY if "long" not in name else KEY + "Zp4Kw9Lm3Qx8Rt"
    kept = Redactor({"DB_TOKEN": key}).text(f"see {CHARACTERS[name](key)} here")
    assert LABEL in kept and kept.startswith("see ") and kept.endswith(" here"), kept


def test_z85_of_a_known_secret_is_redacted() -> None:
    """`basenc --z85` printed this for KEY (ZeroMQ's base85: Python 3.11 has no encoder)."""
    kept = Redactor({"DB_TOKEN": KEY}).text("r=QcmB.#bvvrtBVv@=d5h8O/Jf/:F#\n")
    assert kept == f"{LABEL}\n"


@pytest.mark.parametrize("command", DUMPS)
def test_a_dump_of_a_binary_without_the_secret_comes_through_unchanged(
    command: str, tmp_path: Path
) -> None:
    binary = Path(shutil.which("ls") or "/bin/ls").read_bytes()[:6000]
    path = tmp_path / "blob.bin"
    path.write_bytes(binary + "Größe 𝐛𝐨𝐥𝐝 текст 2026-11-27 06:16:56\n".encode())
    shown = dump(command, path)
    redactor = Redactor({"DB_TOKEN": KEY, "OTHER": "Zq9-secret-value-0001-abcdefgh"})
    assert redactor.text(shown) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Привет, это обычный русский текст о погоде: сегодня тепло. 𝐁𝐨𝐥𝐝 ① ② ③",
        "-rw-r--r-- 1 root root 4096 Nov 27 06:16 a.txt\n" * 40,
        "10.0.0.1 - - [27/Nov/2026:06:16:56 +0000] GET /a 200 512\n" * 40,
        "550e8400-e29b-41d4-a716-446655440000 deadbeef cafebabe 0x7f 0x45 0x4c 0x46\n" * 20,
    ],
)
def test_ordinary_text_with_numbers_or_other_scripts_is_left_alone(text: str) -> None:
    assert Redactor({"DB_TOKEN": KEY}).text(text) == text


def _halves() -> dict[str, str]:
    b64, b32, hexed = (
        base64.b64encode(KEY.encode()).decode(),
        base64.b32encode(KEY.encode()).decode(),
        KEY.encode().hex(),
    )
    return {
        "base64, first half": b64[:16],
        "base64, second half": b64[16:],
        "base64 cut mid-group": b64[5:22],
        "base32, first half": b32[:20],
        "base32, second half (cut mid-byte)": b32[20:],
        "base64 of the second half alone": base64.b64encode(KEY[12:].encode()).decode(),
        "hex of a wordy third": KEY[8:16].encode().hex(),
        "hex cut mid-byte": hexed[3:30],
        "a half reversed": KEY[:12][::-1],
    }


@pytest.mark.parametrize(("form", "text"), _halves().items())
def test_a_piece_of_the_value_encoded_alone_is_redacted(form: str, text: str) -> None:
    """attack4's A4-5 addendum: the whole value encoded was redacted, a half was not."""
    redacted = Redactor({"DB_TOKEN": KEY}).text(f"out: {text} end")
    assert text not in redacted and "[REDACTED DB_TOKEN]" in redacted, form


def test_ordinary_encoded_words_are_left_alone() -> None:
    text = "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 " + (
        base64.b64encode(b"an ordinary config value, nothing secret").decode()
    )
    assert Redactor({"DB_TOKEN": KEY}).text(text) == text


def test_numbers_in_a_row_are_not_a_wordy_piece_of_a_value() -> None:
    """`seq 1 200000` decodes, as decimal bytes, to "0123456789" at 48..57: a piece of digits
    alone is no piece (a value ending in 0123456789 blanked those lines of the output)."""
    token = "ghp_e2eSecretValue0123456789"
    text = "\n".join(str(n) for n in range(1, 2001))
    assert Redactor({"GITHUB_TOKEN": token}).text(text) == text


@pytest.mark.parametrize("form", ["{}", "{:02x}", "{:03o}"], ids=["decimal", "hex", "octal"])
def test_a_value_printed_one_byte_a_line_is_redacted_as_printed_and_as_json(form: str) -> None:
    """A program printing a file's bytes one number a line (`for b in data: print(b)`), among
    numbered lines, or the same as a JSON string (`print(json.dumps(...))`, where `\\n` ends
    its lines: its decimal bytes reached the model whole). Each line a number alone, which
    views._runs reads apart (faster), as the general reading does: one run, no offset, no
    column; after a letter no run, but for the `n` of `\\n`."""
    import json

    from hermes_tui.core.redaction.views import _runs

    numbered = "".join(f"{n}\n" for n in range(1, 40))
    printed = numbered + "".join(form.format(b) + "\n" for b in KEY.encode()) + numbered
    middle = "".join(form.format(b) + "\n" for b in KEY.encode()[8:16])
    for output in (printed, json.dumps(printed) + "\n"):
        shown = Redactor({"DB_TOKEN": KEY}).text(output)
        assert LABEL in shown and json.dumps(middle)[1:-1] not in shown and middle not in shown
    result, text = Redactor({"DB_TOKEN": KEY}).json_of({"success": True, "output": printed})
    assert LABEL in result["output"] and LABEL in text
    runs = _runs("7\n0x1f\nff\nab7\n" + json.dumps("12\n34 35\n56"))
    assert [run and (run.start, run.text, run.numbers, run.column) for run in runs] == [
        (0, "7", ["7"], ""),
        (2, "0x1f", ["1f"], ""),
        (7, "ff", ["ff"], ""),
        (10, "ab7", ["ab7"], ""),
        (15, "12", ["12"], ""),  # after the quote
        (19, "34 35", ["34", "35"], ""),  # after `\\n`
        (26, '56"', ["56"], ""),  # its separators after it
    ]
