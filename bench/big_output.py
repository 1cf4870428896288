"""A big tool output with no space in it (100 KB of one word, as `head -c 100000 /dev/zero |
tr '\\0' a` prints) through what every tool result goes through (the scanner's views, the
taint index, redaction), beside 100 KB of ordinary words in the same run. Two patterns tried
every start inside a long word (threats/views.py's underscored words, redaction/forms.py's
wrapped blocks), so this took minutes; target: at most 3x the ordinary output.
Run: `.venv/bin/python bench/big_output.py`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hermes_tui.core import threats  # noqa: E402
from hermes_tui.core.agent.provenance import ContentIndex  # noqa: E402
from hermes_tui.core.redaction import Redactor  # noqa: E402

TARGET = 3.0


def cost(output: str, redactor: Redactor) -> float:
    text = json.dumps({"success": True, "exit_code": 0, "output": output}) + "\n"
    started = time.process_time()
    threats.views(text)
    ContentIndex().add("terminal", "call-1", text)
    redactor.text(text)
    return time.process_time() - started


def fresh() -> Redactor:
    return Redactor({"DB_TOKEN": "Vr7kumquatSecret55aa19xq"})


def main() -> None:
    words = ("the build passed in 3.2 s and wrote dist/app.whl\n" * 2100)[:100_000]
    one_word = "a" * 100_000
    cost(words, fresh())  # patterns compiled, word lists loaded
    # A fresh redactor each time: one gives a long text it redacted back as it is.
    plain = min(cost(words, fresh()) for _ in range(3))
    long = min(cost(one_word, fresh()) for _ in range(3))
    ratio = long / plain
    print(f"100 KB of words: {plain * 1000:.0f} ms; 100 KB of one word: {long * 1000:.0f} ms")
    print(f"ratio {ratio:.2f}x (target <= {TARGET:.1f}x)")


if __name__ == "__main__":
    main()
