"""What making a Redactor costs at every start, by the number of secrets it knows.

Every `chat -q`, app start, eval arm and ACP session builds one for the secrets in the
environment, `.env` and config.yaml; a developer's shell often holds a dozen tokens. Printed,
for 4 and 15 random 32-character tokens (each count in a fresh process, so no pattern compiled
by an earlier one is reused): the CPU of `Redactor(...)`, and beside it the baseline measured in
the same process, the case-blind pattern of the same loose forms with the separator class
between every two characters (what the loose forms compiled to before forms.LooseForms), and
the ratio of the first to both. Then the CPU of redacting 4 MB of ASCII prose and 4 MB of prose with accents.
Run: `.venv/bin/python bench/redactor_build.py`.
"""

from __future__ import annotations

import subprocess
import sys

ONE = """
import re, secrets, sys, time
from hermes_tui.core.redaction import forms
from hermes_tui.core.redaction.known import Redactor

count = int(sys.argv[1])
values = {f"TOKEN_{i}": "tk_" + secrets.token_urlsafe(24) for i in range(count)}
started = time.process_time()
redactor = Redactor(values)
built = time.process_time() - started
loose = {form: "" for value in values.values() for form in forms.loose_forms(value)}
started = time.process_time()
forms._trie_pattern.__wrapped__(tuple(sorted(loose.items())), forms.GAP, re.IGNORECASE)
baseline = time.process_time() - started
redactor.text("warm é 2026-11-27 12:34:56")
texts = {
    "ascii": "the quick brown fox jumps over the lazy dog 0123 " * 80_000,
    "accents": "le renard brun rapide saute par-dessus le chien paresseux é " * 70_000,
}
spent = {}
for name, text in texts.items():
    started = time.process_time()
    redactor.text(text)
    spent[name] = time.process_time() - started
print(built, baseline, spent["ascii"], spent["accents"])
"""


def main() -> None:
    print(
        f"{'secrets':>8} {'Redactor()':>11} {'old loose compile':>18} {'ratio':>6}"
        f" {'4 MB ascii':>11} {'4 MB accents':>13}"
    )
    for count in (4, 15):
        out = subprocess.run(
            [sys.executable, "-c", ONE, str(count)], capture_output=True, text=True, check=True
        ).stdout.split()
        built, baseline, ascii_text, accents = map(float, out)
        ratio = built / (built + baseline)
        print(
            f"{count:>8} {built:>10.3f}s {baseline:>17.3f}s {ratio:>6.2f}"
            f" {ascii_text:>10.2f}s {accents:>12.2f}s"
        )
    print("(ratio: Redactor() now against Redactor() with the case-blind loose pattern it no")
    print(" longer compiles, that pattern measured on the same forms in the same process)")


if __name__ == "__main__":
    main()
