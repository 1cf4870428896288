"""Injection scanner quality over the corpora in tests/data/.

`injection_corpus.json` (issue 11: paraphrases and encodings, with its own holdout part),
`injection_tuning.yaml` (issue 23's families: other languages, fake system tags, social
engineering, safety settings, planted credentials; the patterns were tuned and the scorer
trained on it) and `injection_holdout_{5,6,7,8}.yaml` (the same families written after tuning;
5 and 6 were trained on in the scorer's second round, after they were measured; 7 and 8 never).

For each it prints recall without taint (attacks refused or held), recall with taint (also
the weak signals a tainted turn holds on) and the false-positive rate (ordinary notes refused
or held; and flagged, which matters only in a tainted turn). Targets (issue 23, on each
holdout): recall >= 0.75 without taint, >= 0.90 with, false positives <= 3 %.
Run: `PYTHONPATH=. .venv/bin/python bench/injection.py [--verbose]`.

`--train` first learns the scorer's weights (hermes_tui/core/threats/model.py) from the tuning
texts only: injection_tuning.yaml, the issue 11 corpus without its holdout part, and the fifth
and sixth holdouts, each measured first (its figures are in its header) and added in the
scorer's second round. The issue 11 corpus's holdout part and injection_holdout_{7,8}.yaml
are never trained on (the third round added texts in the languages the seventh showed no corpus
had, none taken from it).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import yaml

from hermes_tui.core.threats import Scanner

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPUS = DATA / "injection_corpus.json"
TUNING = DATA / "injection_tuning.yaml"
HOLDOUTS = tuple(DATA / f"injection_holdout_{n}.yaml" for n in (5, 6, 7, 8))
TRAINED_HOLDOUTS = HOLDOUTS[:2]  # measured first, then trained on (second round)


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


def training_examples() -> list[tuple[str, bool]]:
    """The texts the scorer learns from: never a holdout's."""
    attacks, notes = load(TUNING)
    more_attacks, more_notes = load(CORPUS)
    attacks += [a for a in more_attacks if a.get("set") != "holdout"]
    notes += [n for n in more_notes if n.get("set") != "holdout"]
    for path in TRAINED_HOLDOUTS:
        more_attacks, more_notes = load(path)
        attacks += more_attacks
        notes += more_notes
    return [(a["text"], True) for a in attacks] + [(n["text"], False) for n in notes]


def train() -> None:
    from hermes_tui.core.threats import model

    started = time.perf_counter()
    examples = training_examples()
    model.train(examples).save()
    print(f"trained on {len(examples)} texts in {time.perf_counter() - started:.1f}s")


def cost(texts: list[str]) -> None:
    """What the learned scorer adds to an uncached scan, as a share of the whole scan measured
    in the same run (target: at most a quarter)."""
    from hermes_tui.core.threats import model, views

    scanner = Scanner()
    scanner.assess("warm up: the sensor is built on the first scan")
    model.shipped()
    whole, learned = [], []
    for text in texts:
        started = time.perf_counter()
        scanner._assess(text)
        whole.append(time.perf_counter() - started)
        forms = [shown for _, shown in views(text)]
        started = time.perf_counter()
        model.shipped().score(forms)
        learned.append(time.perf_counter() - started)
    share = sum(learned) / sum(whole)
    print(
        f"cost over {len(texts)} texts: an uncached scan {statistics.median(whole) * 1000:.2f} ms"
        f" (median), of which the scorer {statistics.median(learned) * 1000:.2f} ms; the scorer"
        f" is {share:.0%} of the scanning time (target <= 25 %)"
    )


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
    ok = True
    for path in HOLDOUTS:
        recall, tainted, false_positives = measure(scanner, path.stem, *load(path), verbose)
        ok = ok and recall >= 0.75 and tainted >= 0.90 and false_positives <= 0.03
    print(f"{time.perf_counter() - started:.2f}s")
    attacks, notes = load(TUNING)
    cost([t["text"] for t in attacks[:150] + notes[:150]])
    return 0 if ok else 1


if __name__ == "__main__":
    if "--train" in sys.argv:
        train()
    sys.exit(main("--verbose" in sys.argv))
