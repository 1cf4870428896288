"""Injection scanner quality over the corpus in tests/data/injection_corpus.json.

Prints recall (attacks refused or held) and the false-positive rate (ordinary notes refused
or held), overall, per attack form, and for the holdout part of the corpus (written after the
patterns were tuned, never tuned against). Targets: recall >= 0.8, false positives <= 5 %.
Run: `PYTHONPATH=. .venv/bin/python bench/injection.py [--verbose]`.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from hermes_tui.core.threats import Scanner

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "injection_corpus.json"


def main(verbose: bool) -> int:
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    scanner = Scanner()
    started = time.perf_counter()
    caught: dict[str, list[bool]] = defaultdict(list)
    holdout_caught: list[bool] = []
    for attack in corpus["attacks"]:
        verdict = scanner.assess(attack["text"])
        hit = verdict.tier != "allow"
        caught[attack["form"]].append(hit)
        if attack.get("set") == "holdout":
            holdout_caught.append(hit)
        if verbose and not hit:
            print(f"missed  [{attack['form']}] {attack['text'][:100]!r}")
    flagged: list[bool] = []
    holdout_flagged: list[bool] = []
    for note in corpus["notes"]:
        verdict = scanner.assess(note["text"])
        hit = verdict.tier != "allow"
        flagged.append(hit)
        if note.get("set") == "holdout":
            holdout_flagged.append(hit)
        if verbose and hit:
            print(f"{verdict.tier:7} {note['text'][:80]!r}: {verdict.describe()}")
    elapsed = time.perf_counter() - started
    every = [hit for hits in caught.values() for hit in hits]
    recall = sum(every) / len(every)
    false_positives = sum(flagged) / len(flagged)
    print(f"attacks {len(every)}, notes {len(flagged)}, {elapsed:.2f}s")
    for form in sorted(caught):
        hits = caught[form]
        print(f"  {form:15} {sum(hits):3}/{len(hits):<3}")
    print(f"recall (refused or held): {recall:.3f}  (target >= 0.80)")
    print(f"false positives (notes refused or held): {false_positives:.3f}  (target <= 0.05)")
    if holdout_caught:
        print(
            f"holdout: recall {sum(holdout_caught) / len(holdout_caught):.3f} "
            f"({len(holdout_caught)} attacks), false positives "
            f"{sum(holdout_flagged) / max(1, len(holdout_flagged)):.3f} ({len(holdout_flagged)} notes)"
        )
    return 0 if recall >= 0.8 and false_positives <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main("--verbose" in sys.argv))
