"""A path the sandbox's profile listed that vanished before bubblewrap mounted it (the user's
runtime folder /run/user/<uid> at another session's logout, a folder another process removed)
failed the command with bubblewrap's own error, before it ran: seen in CI. It is run again,
once, with a profile made from what is there now; any other failure is the command's."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_world import sandbox_works

from hermes_tui.core.tools import terminal
from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
@pytest.mark.parametrize(
    ("first", "runs"),
    [
        ("bwrap: Can't mkdir /run/user/1001: Read-only file system\n", 2),
        ("bwrap: Can't find source path /home/u/gone: No such file or directory\n", 2),
        # a file at the top of / the root view hid, removed meanwhile (seen in a batch)
        ("bwrap: Can't create file at /x.env: Read-only file system\n", 2),
        ("bwrap: Can't mkdir /run/user/1001: Read-only file system\nthen the command\n", 2),
        ("my own output: bwrap: Can't mkdir x: Read-only file system\n", 1),
    ],
)
def test_a_sandbox_set_up_over_a_vanished_path_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str, runs: int
) -> None:
    real, calls = terminal.run_command, []

    def flaky_setup(command, context, timeout, **kwargs):  # noqa: ANN001, ANN202
        calls.append(command)
        if len(calls) == 1:
            return {"success": False, "exit_code": 1, "output": first}
        return real(command, context, timeout, **kwargs)

    monkeypatch.setattr(terminal, "run_command", flaky_setup)
    registry = ToolRegistry(make_terminal_tools(TerminalSettings(sandbox="on", network="off")))
    context = ToolContext(cwd=tmp_path, workdir=tmp_path, approvals=Approvals(lambda _r: "once"))
    result = registry.call("terminal", {"command": "echo ran", "timeout": 60}, context)
    assert len(calls) == runs
    assert ("ran" in result["output"]) == (runs == 2), result
