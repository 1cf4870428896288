"""What redacting a streamed reply as one text costs, against redacting each delta alone.

A reply of ordinary prose and code (about 19,000 characters) goes through the runtime's
redacting sink (`redacting_sink`, which holds back a tail that could begin a secret) in deltas
of 4 and 16 characters, with eight known secrets configured; the baseline is `Redactor.text`
on each delta alone (what the sink did before), measured in the same run. Then two hostile
replies of about 20,000 characters: a private key that never ends, and a JWT-like run of key
characters. Printed: microseconds per delta and the ratio to the baseline; total seconds for
the hostile ones. Last, a tool's output redacted whole: an xxd-style dump of 4,096 random bytes
(its numbers are read as bytes, words, bits for a secret: core/redaction/views.py) against prose
of the same length, in milliseconds and as a ratio. Run: `.venv/bin/python bench/stream_redaction.py`.
"""

from __future__ import annotations

import random
import time

from hermes_tui.core.events import TextDelta, TurnFinished
from hermes_tui.core.redaction import Redactor, redacting_sink

SECRETS = {f"KEY_{i}": f"Zq9-secret-value-{i:04d}-abcdefgh" for i in range(8)}
PROSE = (
    "The build reads its configuration from pyproject.toml, then runs the checks in order. "
    "Install with pip install -e . and run pytest -x; see src/app.py line 42.\n"
) * 120
HOSTILE = {
    "a private key with no END": "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEowIBAAKCAQEA" * 1250,
    "a 21,000-character eyJ run": "eyJ" + "abc" * 7000,
}


def streamed(redactor: Redactor, deltas: list[str]) -> float:
    sink = redacting_sink(lambda _event: None, redactor)
    started = time.perf_counter()
    for delta in deltas:
        sink(TextDelta(delta))
    sink(TurnFinished())
    return time.perf_counter() - started


def per_delta(redactor: Redactor, deltas: list[str]) -> float:
    started = time.perf_counter()
    for delta in deltas:
        redactor.text(delta)
    return time.perf_counter() - started


def main() -> None:
    redactor = Redactor(SECRETS)
    for size in (4, 16):
        deltas = [PROSE[i : i + size] for i in range(0, len(PROSE), size)]
        whole = min(streamed(redactor, deltas) for _ in range(5))
        alone = min(per_delta(redactor, deltas) for _ in range(5))
        print(
            f"{len(PROSE)} characters in {size}-character deltas: "
            f"{whole / len(deltas) * 1e6:.1f} us a delta as one stream, "
            f"{alone / len(deltas) * 1e6:.1f} us each alone (ratio {whole / alone:.1f})"
        )
    for name, text in HOSTILE.items():
        deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
        print(f"{name}, 4-character deltas: {streamed(redactor, deltas):.3f} s in all")
    dump = xxd(random.Random(7).randbytes(4096))
    prose = (PROSE * 8)[: len(dump)]
    # A fresh redactor each time: one gives a long text it redacted back as it is.
    as_dump = min(whole_text(Redactor(SECRETS), dump) for _ in range(5))
    as_prose = min(whole_text(Redactor(SECRETS), prose) for _ in range(5))
    print(
        f"a {len(dump):,}-character hex dump redacted whole: {as_dump * 1e3:.1f} ms, "
        f"prose as long {as_prose * 1e3:.1f} ms (ratio {as_dump / as_prose:.1f})"
    )


def xxd(raw: bytes) -> str:
    """`raw` as xxd prints it: offset, eight 2-byte groups, the characters."""
    lines = []
    for at in range(0, len(raw), 16):
        row = raw[at : at + 16]
        groups = " ".join(row[i : i + 2].hex() for i in range(0, len(row), 2))
        chars = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{at:08x}: {groups:<39}  {chars}")
    return "\n".join(lines) + "\n"


def whole_text(redactor: Redactor, text: str) -> float:
    started = time.perf_counter()
    redactor.text(text)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
