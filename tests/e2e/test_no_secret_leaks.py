"""No known secret in any output: provider errors that quote the key (raw, reversed, base64,
hex), tool output that carries it encoded, and then everything the runs left behind is searched
for it: stdout, stderr, sessions.db (and its WAL), logs/, pending/, `sessions export` in both
formats and `pending list` (each run through cli.main in this process, its output captured at
the file descriptors)."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config
from secret_forms import forms

# A key with a provider's shape, and one with no shape at all (only knowing it finds it).
OPENAI_KEY = "sk-proj-LEAKCHECK0123456789abcdefXYZ"
PLAIN_KEY = "Zq9-plain-anthropic-secret-7781"


def stored(home: Path) -> dict[str, bytes]:
    """sessions.db (with its WAL), logs/ and pending/: every file, as bytes."""
    paths = [*home.glob("sessions.db*"), *home.glob("logs/**/*"), *home.glob("pending/**/*")]
    return {str(p): p.read_bytes() for p in paths if p.is_file()}


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_provider_errors_and_encoded_tool_output_leave_the_key_nowhere(
    home: Path, tmp_path: Path, llm: FakeLLM, capfd: pytest.CaptureFixture[str]
) -> None:
    def run(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return run_main(capfd, home, *args, cwd=cwd)

    project = tmp_path / "project"
    project.mkdir()
    (home / ".env").write_text(
        f"OPENAI_API_KEY={OPENAI_KEY}\nANTHROPIC_API_KEY={PLAIN_KEY}\n", encoding="utf-8"
    )
    outputs: list[str] = []

    def chat(provider: str, *replies: Reply, expect: int) -> str:
        url = llm.anthropic_url if provider == "anthropic" else llm.openai_url
        write_config(home, url, provider, memory={"nudge_interval": 0})
        llm.script(*replies)
        done = run(home, project, "chat", "-q", "hello", "--yolo")
        outputs.extend([done.stdout, done.stderr])
        assert done.returncode == expect, done.stderr
        return done.stderr.strip().splitlines()[-1].removeprefix("session: ")

    b64 = base64.b64encode(f"key={OPENAI_KEY}".encode()).decode()
    chat("openai", Reply(fault="401"), expect=3)  # "Incorrect API key provided: Bearer sk-…"
    failing = Reply(
        fault="500",
        error_message="upstream said: {key} / "
        f"{OPENAI_KEY[::-1]} / {b64} / {OPENAI_KEY.encode().hex()} / {OPENAI_KEY.upper()} / "
        f"{' '.join(OPENAI_KEY)}",
    )
    chat("openai", failing, failing, failing, expect=3)
    chat("anthropic", Reply(fault="401", error_message="invalid x-api-key: {key}"), expect=3)
    leaky = (
        f"printf '%s\\n' '{PLAIN_KEY[::-1]}' "
        f"$(printf %s '{PLAIN_KEY}' | base64) $(printf %s '{PLAIN_KEY}' | xxd -p); "
        f"printf %s '{PLAIN_KEY}' | base64 -w 8; printf %s '{PLAIN_KEY}' | base32; "
        f"printf %s '{PLAIN_KEY}' | tr a-z A-Z; printf %s '{PLAIN_KEY}' | sed 's/./& /g'"
    )
    outside = tmp_path / "outside.txt"  # read first, so the memory write below is held
    outside.write_text("nothing to see\n", encoding="utf-8")
    session = chat(
        "anthropic",
        Reply(tool_calls=[("terminal", {"command": leaky})]),
        Reply(tool_calls=[("read_file", {"path": str(outside)})]),
        Reply(
            tool_calls=[
                ("memory", {"action": "add", "target": "memory", "content": PLAIN_KEY[::-1]})
            ]
        ),
        Reply(text="done"),
        expect=0,
    )
    for fmt in ("markdown", "jsonl"):
        export = run(home, project, "sessions", "export", session, "--format", fmt)
        assert export.returncode == 0, export.stderr
        outputs.extend([export.stdout, export.stderr])
    listing = run(home, project, "pending", "list")
    outputs.extend([listing.stdout, listing.stderr])

    assert "[REDACTED" in "".join(outputs)  # the redaction ran, the text did not vanish
    left = stored(home)
    assert any(name.endswith("sessions.db") for name in left)
    # The memory write carrying the key (reversed) is refused before it could be held.
    assert not any("/pending/" in name for name in left)
    assert "the text holds a secret (ANTHROPIC_API_KEY" in "".join(outputs)
    for key in (OPENAI_KEY, PLAIN_KEY):
        disguised = [
            key.upper(),
            key.lower(),
            base64.b32encode(key.encode()).decode().rstrip("="),
            " ".join(key),
        ]
        for form in [*forms(key), *disguised]:
            for text in outputs:
                # Wrapped over lines or spelled out: searched with the whitespace taken out too.
                assert form not in text and form not in "".join(text.split()), (form, text[-400:])
            for name, data in left.items():
                assert form.encode() not in data, (form, name)
                assert form.encode() not in b"".join(data.split()), (form, name)
