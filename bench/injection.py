"""Injection scanner quality over the corpora in tests/data/.

`injection_corpus.json` (issue 11: paraphrases and encodings, with its own holdout part),
`injection_tuning.yaml` (issue 23's families: other languages, fake system tags, social
engineering, safety settings, planted credentials; the patterns were tuned on it) and
`injection_holdout.yaml` (the same families written after tuning, never tuned on).

For each it prints recall without taint (attacks refused or held), recall with taint (also
the weak signals a tainted turn holds on) and the false-positive rate (ordinary notes refused
or held; and flagged, which matters only in a tainted turn). Targets (issue 23, on the
holdout): recall >= 0.75 without taint, >= 0.90 with, false positives <= 3 %.
Run: `PYTHONPATH=. .venv/bin/python bench/injection.py [--verbose]`.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import yaml

from hermes_tui.core.threats import Scanner

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPUS = DATA / "injection_corpus.json"
TUNING = DATA / "injection_tuning.yaml"
HOLDOUT = DATA / "injection_holdout.yaml"


def load(path: Path) -> tuple[list[dict], list[dict]]:
    text = path.read_text(encoding="utf-8")
    corpus = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    return corpus["attacks"], corpus["notes"]


def measure(scanner: Scanner, name: str, attacks: list[dict], notes: list[dict], verbose: bool):
    by_form: dict[str, list[bool]] = defaultdict(list)
    held = flagged = 0
    for attack in attacks:
        verdict = scanner.assess(attack["text"])
        hit = verdict.tier != "allow"
        held += hit
        flagged += verdict.holds(tainted=True)
        by_form[attack.get("family") or attack.get("form") or "?"].append(hit)
        if verbose and not verdict.holds(tainted=True):
            print(f"  missed  {attack['text'][:100]!r}")
    stopped = noted = 0
    for note in notes:
        verdict = scanner.assess(note["text"])
        stopped += verdict.tier != "allow"
        noted += verdict.flagged
        if verbose and verdict.tier != "allow":
            print(f"  {verdict.tier:7} {note['text'][:80]!r}: {verdict.describe()}")
    print(f"{name}: {len(attacks)} attacks, {len(notes)} notes")
    print("  " + ", ".join(f"{form} {sum(h)}/{len(h)}" for form, h in sorted(by_form.items())))
    print(
        f"  recall {held / len(attacks):.3f} without taint, {flagged / len(attacks):.3f} with; "
        f"false positives {stopped / len(notes):.3f} (flagged {noted / len(notes):.3f})"
    )
    return held / len(attacks), flagged / len(attacks), stopped / len(notes)


def main(verbose: bool) -> int:
    scanner = Scanner()
    started = time.perf_counter()
    attacks, notes = load(CORPUS)
    measure(scanner, "issue 11 corpus", attacks, notes, verbose)
    for part in ("holdout",):
        chosen = [a for a in attacks if a.get("set") == part]
        benign = [n for n in notes if n.get("set") == part]
        measure(scanner, f"issue 11 corpus, its {part}", chosen, benign, verbose)
    measure(scanner, "issue 23 tuning", *load(TUNING), verbose)
    recall, tainted, false_positives = measure(scanner, "issue 23 holdout", *load(HOLDOUT), verbose)
    print(f"{time.perf_counter() - started:.2f}s")
    ok = recall >= 0.75 and tainted >= 0.90 and false_positives <= 0.03
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main("--verbose" in sys.argv))
