"""Writes tests/data/hermes-0.19.0-home/state.db with Hermes Agent 0.19.0's own SessionDB.

The fixture is made by Hermes' code, not ours, so the reader is tested against what Hermes
really writes. To make it again (needs the network once for the package):

    python3 -m venv /tmp/hermes-venv
    /tmp/hermes-venv/bin/pip install hermes-agent==0.19.0
    HERMES_HOME=tests/data/hermes-0.19.0-home /tmp/hermes-venv/bin/python tests/data/make_hermes_state.py

Nothing of Hermes is committed: only the database its code wrote.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from hermes_state import SCHEMA_VERSION, SessionDB  # Hermes Agent's own module

home = Path(os.environ["HERMES_HOME"])
path = home / "state.db"
for leftover in (path, path.with_name("state.db-wal"), path.with_name("state.db-shm")):
    leftover.unlink(missing_ok=True)
db = SessionDB(path)
T0 = 1_790_000_000.0  # 2026-09-21, fixed so the fixture is the same every time it is made

db.create_session(
    "20260921_101500_ab12cd",
    "cli",
    model="anthropic/claude-sonnet-4.5",
    system_prompt="You are Hermes Agent.",
    cwd="/home/dev/api",
)
db.set_session_title("20260921_101500_ab12cd", "Fix the flaky payments test")
call = {
    "id": "call_1",
    "type": "function",
    "function": {
        "name": "terminal",
        "arguments": json.dumps({"command": "pytest -q -p no:randomly"}),
    },
}
db.append_message(
    "20260921_101500_ab12cd", "user", "The payments test fails one run in three.", timestamp=T0
)
db.append_message(
    "20260921_101500_ab12cd",
    "assistant",
    "Running it with random ordering off.",
    tool_calls=[call],
    reasoning="Order-dependent state is the usual cause.",
    timestamp=T0 + 5,
)
db.append_message(
    "20260921_101500_ab12cd",
    "tool",
    "3 passed in 0.41s",
    tool_call_id="call_1",
    tool_name="terminal",
    timestamp=T0 + 9,
)
db.append_message(
    "20260921_101500_ab12cd",
    "assistant",
    "It passes with -p no:randomly: the ledger fixture leaks between tests.",
    timestamp=T0 + 12,
)
db.update_token_counts(
    "20260921_101500_ab12cd",
    input_tokens=5200,
    output_tokens=310,
    cache_read_tokens=4100,
    model="anthropic/claude-sonnet-4.5",
    api_call_count=2,
)
db.end_session("20260921_101500_ab12cd", "user_exit")

db.create_session("20260922_090000_ef34gh", "telegram", model="openai/gpt-5", user_id="42")
db.set_session_title("20260922_090000_ef34gh", "Kubernetes rollout notes")
db.append_message(
    "20260922_090000_ef34gh",
    "user",
    "How do I pause a rollout in kubernetes?",
    timestamp=T0 + 86_400,
)
db.append_message(
    "20260922_090000_ef34gh",
    "assistant",
    "Use kubectl rollout pause deployment/web, then resume it when ready.",
    timestamp=T0 + 86_410,
)
db.update_token_counts(
    "20260922_090000_ef34gh", input_tokens=900, output_tokens=60, model="openai/gpt-5"
)
db.close()

# One file, no WAL beside it: what a stopped Hermes leaves once it has checkpointed.
with sqlite3.connect(path) as connection:
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.execute("PRAGMA journal_mode=DELETE")
print(f"wrote {path} (Hermes state.db schema {SCHEMA_VERSION})")
