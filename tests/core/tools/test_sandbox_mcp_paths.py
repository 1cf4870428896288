"""attack8's A8-7: an MCP stdio server whose script lies in the working directory (`args:
["./tools/srv.py"]`, or the same path written absolute) runs outside the sandbox; a sandboxed
command edited it, and the edit ran at the server's next start. What a server starts from is
read-only to commands, one made anew by renaming the folder above it is moved aside, and the
files tools ask before writing it. Judged by the server's next start: the commands run as the
unprivileged user, then the server is started as the app starts it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from sandbox_user import env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

from hermes_tui.core.tools.approvals import Approvals
from hermes_tui.core.tools.files import make_file_tools
from hermes_tui.core.tools.mcp import McpManager
from hermes_tui.core.tools.mcp_config import parse_servers, server_paths
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry

__all__ = ["place"]  # the fixture
sandboxed = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
FAKE = Path(__file__).resolve().parents[2] / "fakes" / "mcp_server.py"


def _servers(work: Path) -> dict:
    return {
        "local": {"command": sys.executable, "args": ["./tools/srv.py"]},
        "built": {"command": "node", "args": [str(work / "build" / "index.js")]},
        "data": {"command": "npx", "args": ["-y", "some-server", "--root=./data", "."]},
        "rooted": {"command": "x", "args": [f"--root={work / 'data'}"]},
    }


def test_what_a_server_starts_from_is_its_existing_script_folders_and_cwd(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    for folder in ("tools", "build", "data", "run"):
        (work / folder).mkdir(parents=True)
    (work / "tools" / "srv.py").write_text("")
    (work / "build" / "index.js").write_text("")
    parsed = parse_servers(
        {**_servers(work), "cwd": {"command": "x", "args": ["srv.js", "gone.js"], "cwd": "run"}},
        {},
    )

    found = {s.name: server_paths(s, work) for s in parsed.servers}

    assert found["local"] == [work / "tools" / "srv.py"]
    assert found["built"] == [work / "build" / "index.js"]
    # (`--root=./data` names /data, where the server starts: not there)
    assert found["data"] == [work]  # the working directory itself: left out (inside_places)
    assert found["rooted"] == [work / "data"]
    assert found["cwd"] == [work / "run"]  # (run/srv.js does not exist: nothing to keep)


@sandboxed
def test_a_command_cannot_change_what_an_mcp_server_runs_at_its_next_start(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = place / "ws"
    (work / "tools").mkdir(parents=True)
    (work / "build").mkdir()
    shutil.copy(FAKE, work / "tools" / "srv.py")
    (work / "build" / "index.js").write_text("console.log('built')\n")
    (work / "src").mkdir()
    own(place)
    marker = place / "PWNED"
    planted = f"open({str(marker)!r}, 'w').write('ran outside the sandbox')"
    paths = tuple(
        p for s in parse_servers(_servers(work), {}).servers for p in server_paths(s, work)
    )

    results = terminal(
        work,
        env_of(place, SYSTEM_PATH),
        f"sed -i '/^from __future__/a {planted}' tools/srv.py",
        f'echo "{planted}" >> tools/srv.py; echo "evil()" >> build/index.js',
        "echo code > src/app.py && echo ok",
        server_paths=paths,
    )

    assert FAKE.read_text() == (work / "tools" / "srv.py").read_text(), results
    assert (work / "build" / "index.js").read_text() == "console.log('built')\n"
    assert "ok" in results[2]["output"] and (work / "src" / "app.py").read_text() == "code\n"
    monkeypatch.chdir(work)
    assert "mcp__local__echo" in _next_start(work) and not marker.exists()
    # A new tools/ in place of the old one (renamed): moved aside after the command.
    (renamed,) = terminal(
        work,
        env_of(place, SYSTEM_PATH),
        f"mv tools tools-old && mkdir tools && printf '%s\\n' \"{planted}\" > tools/srv.py",
        server_paths=paths,
    )
    assert not renamed["success"] and "tools/srv.py" in renamed["error"], renamed
    assert not (work / "tools" / "srv.py").exists()
    assert _next_start(work) == [] and not marker.exists()  # no script there: it fails


def _next_start(work: Path) -> list[str]:
    """The tools the `local` server offers at its next start, as the app starts it."""
    manager = McpManager(parse_servers({"local": _servers(work)["local"]}, {}))
    manager.start()
    try:
        return [tool.name for tool in manager.freeze()]
    finally:
        manager.stop()


def test_the_files_tools_ask_before_writing_what_an_mcp_server_runs(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    (work / "tools").mkdir(parents=True)
    (work / "tools" / "srv.py").write_text("print('server')\n")
    asked: list[str] = []
    registry = ToolRegistry(
        make_file_tools(hermes_home=tmp_path / "hermes", server_paths=(work / "tools" / "srv.py",))
    )
    context = ToolContext(
        cwd=work, workdir=work, approvals=Approvals(lambda r: asked.append(r.reason) or "deny")
    )

    refused = registry.call(
        "write_file", {"path": "tools/srv.py", "content": "import os\n"}, context
    )
    ordinary = registry.call("write_file", {"path": "tools/util.py", "content": "x = 1\n"}, context)

    assert refused.get("denied") and "MCP server" in asked[0], refused
    assert ordinary["success"] and len(asked) == 1
    assert (work / "tools" / "srv.py").read_text() == "print('server')\n"
