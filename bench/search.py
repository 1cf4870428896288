"""Session search over 100,000 stored messages: FTS5 with bm25 against the LIKE fallback.

Builds a temporary sessions.db with 100,000 messages across 500 sessions, then prints the
median latency of FTS5 search and of the LIKE fallback over the same queries, and their ratio.
Target: FTS5 median under 20 ms. Run: `.venv/bin/python bench/search.py`.
"""

from __future__ import annotations

import itertools
import random
import statistics
import tempfile
import time
from pathlib import Path

from hermes_tui.core.messages import Message
from hermes_tui.core.sessions import SessionStore

WORDS = [
    "deploy",
    "build",
    "kubernetes",
    "helm",
    "rollback",
    "postgres",
    "migration",
    "index",
    "cache",
    "redis",
    "queue",
    "worker",
    "timeout",
    "retry",
    "flask",
    "django",
    "react",
    "webpack",
    "docker",
    "compose",
    "nginx",
    "certificate",
    "dns",
    "latency",
    "memory",
    "leak",
    "profile",
    "trace",
    "span",
    "metric",
    "alert",
    "pager",
    "incident",
    "review",
    "release",
    "branch",
    "merge",
]
QUERIES = [
    "helm rollback",
    "postgres migration",
    "certificate dns",
    "memory leak",
    'flask-app: "prod"',
    "webpack",
    "incident review",
    "redis timeout",
    "nginx latency",
    "docker compose",
]


def build(store: SessionStore, total: int = 100_000, sessions: int = 500) -> None:
    # A Zipf-like vocabulary of 20,000 filler words with the topic words mixed in rarely, so
    # a query matches a realistic few hundred messages rather than half the corpus.
    rng = random.Random(7)
    filler = [f"w{i}" for i in range(20_000)]
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(filler))))
    per = total // sessions
    for _s in range(sessions):
        info = store.create(provider="bench", model="bench", system_prompt="")
        with store._transaction() as db:  # bulk load in one transaction per session
            for i in range(per):
                words = rng.choices(filler, cum_weights=cumulative, k=rng.randint(8, 40))
                words += [rng.choice(WORDS) for _ in range(rng.randint(0, 2))]
                rng.shuffle(words)
                text = " ".join(words)
                role = "user" if i % 2 == 0 else "assistant"
                db.execute(
                    "INSERT INTO messages(session_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                    (info.id, role, text, time.time()),
                )


def median_ms(store: SessionStore, repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        for query in QUERIES:
            start = time.perf_counter()
            store.search(query, limit=20)
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "sessions.db")
        start = time.perf_counter()
        build(store)
        print(
            f"built 100,000 messages in {time.perf_counter() - start:.1f}s (FTS5: {store.has_fts})"
        )
        store.append(store.list(1)[0].id, Message("user", "warm-up"))
        fts = median_ms(store)
        store.has_fts = False
        like = median_ms(store, repeat=1)
        print(f"FTS5 search   median {fts:8.2f} ms   (target < 20 ms)")
        print(f"LIKE fallback median {like:8.2f} ms   ratio FTS5/LIKE {fts / like:.3f}")


if __name__ == "__main__":
    main()
