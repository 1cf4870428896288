"""A turn's new scanner verdicts reach the disk once, as the turn ends: a turn that writes
several memory entries (each scanned, and joined to the ones before it for split attacks) used
to rewrite cache/scan_verdicts.json after every assessment."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config

import hermes_tui.core.threats.cache as verdict_cache

NOTES = [
    "User is migrating the billing service to Go this quarter.",
    "The staging database is refreshed from production every Monday.",
    "User prefers pnpm over npm in the web/ folder.",
    "Release notes live in docs/releases and are written by hand.",
    "The CI matrix runs Python 3.11 and 3.12 only.",
]


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def test_a_turns_new_verdicts_are_written_once(
    home: Path,
    tmp_path: Path,
    llm: FakeLLM,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    project = tmp_path / "project"
    project.mkdir()
    writes: list[Path] = []
    real = verdict_cache.write_merged_cache

    def counted(path: Path, *args, **kwargs):
        writes.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(verdict_cache, "write_merged_cache", counted)
    llm.script(
        *(
            Reply(tool_calls=[("memory", {"action": "add", "target": "memory", "content": n})])
            for n in NOTES
        ),
        Reply(text="Noted all five."),
    )
    done = run_main(capsys, home, "chat", "-q", "remember these", cwd=project, OPENAI_API_KEY="k")
    assert done.returncode == 0, done.stderr
    memory = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert all(note in memory for note in NOTES)
    # The home starts with the system prompt's verdicts remembered (conftest), so the one write
    # is the turn's, as it ends (14 before the turn was batched).
    assert len(writes) == 1, writes
    remembered = verdict_cache.VerdictCache(writes[-1])
    assert all(remembered.get(note) is not None for note in NOTES)
