"""A command's output is bounded on the way in (attack4's A4-33): a command that writes without
end is stopped once its output passes a bound (it filled the host's /tmp, then the app's
memory: `terminal failed unexpectedly: MemoryError`), and only the head and the tail of a long
output are read back into memory. The bounds are lowered here to keep the test light."""

from __future__ import annotations

import threading
import tracemalloc
from pathlib import Path

import pytest

from hermes_tui.core.tools import command_run
from hermes_tui.core.tools.registry import ToolContext

MB = 2**20


def _context(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, workdir=tmp_path, cancel=threading.Event())


def test_a_command_that_writes_past_the_bound_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_run, "OUTPUT_LIMIT", 4 * MB, raising=False)
    # 20 MB, then it would wait: stopped at the bound, not at the timeout.
    command = "head -c 20000000 /dev/zero | tr '\\0' a; sleep 20; touch finished"
    result = command_run.run_command(command, _context(tmp_path), 10)
    assert result["error"].startswith("command stopped once its output passed 4 MB"), result
    assert not result["success"] and not (tmp_path / "finished").exists()
    assert "bytes of output left out" in result["output"]


def test_the_cwd_report_is_bounded_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The descriptor the shell reports its last directory on is the command's too."""
    monkeypatch.setattr(command_run, "OUTPUT_LIMIT", 4 * MB, raising=False)
    command = (
        "for f in /proc/$$/fd/*; do case $(readlink $f) in */hermes-term-*/cwd) n=${f##*/};; "
        "esac; done; head -c 20000000 /dev/zero >&$n; sleep 20; touch finished"
    )
    result = command_run.run_command(command, _context(tmp_path), 10)
    assert result["error"].startswith("command stopped once its output passed 4 MB"), result
    assert not (tmp_path / "finished").exists() and result["cwd"] == str(tmp_path)


def test_only_the_head_and_the_tail_of_a_long_output_are_read(tmp_path: Path) -> None:
    size = 10 * command_run.MAX_OUTPUT
    command = f"echo THE-START; head -c {size} /dev/zero | tr '\\0' a; echo; echo THE-END"
    tracemalloc.start()
    try:
        result = command_run.run_command(command, _context(tmp_path), 60)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    output = result["output"]
    assert result["success"], result
    assert output.startswith("THE-START\n") and output.endswith("THE-END\n")
    assert len(output) <= command_run.MAX_OUTPUT + 100
    kept = command_run.MAX_OUTPUT // 3 + command_run.MAX_OUTPUT * 2 // 3  # head and tail
    skipped = size + len("THE-START\n\nTHE-END\n") - kept
    assert f"[... {skipped:,} bytes of output left out ...]" in output
    assert peak < 4 * command_run.MAX_OUTPUT, peak  # the whole would be 10x, twice over
