"""What asks in each approval mode, judged by what ran (issue 22, Deliver 2): sandboxed asks
for the policy's dangerous categories, destroyed work and leaving the sandbox; strict runs only
what is proven read-only; plan refuses everything else; every mode asks before a command
reaches for hermes-tui itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools.approvals import ApprovalRequest, Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import probe
from hermes_tui.core.tools.shell_policy.readonly import prove_read_only
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

needs_bwrap = pytest.mark.skipif(not probe("auto").active, reason="no bubblewrap sandbox here")


def _setup(tmp_path: Path, mode: str, **settings):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> str:
        asked.append(request)
        return "deny"

    registry = ToolRegistry(make_terminal_tools(TerminalSettings(**settings)))
    context = ToolContext(
        cwd=work,
        workdir=work,
        approvals=Approvals(approver),
        approval_mode=mode,  # type: ignore[arg-type]
    )
    return registry, context, asked


def _run(registry, context, command: str, **extra) -> dict:
    return registry.call("terminal", {"command": command, "timeout": 30, **extra}, context)


@pytest.mark.parametrize(
    "command",
    ["ls -la", "git status", "grep -rn TODO src | head", "cat README.md", "wc -l < README.md",
     "python3 --version", "find . -name '*.py'"],
)  # fmt: skip
def test_read_only_commands_are_proven(command: str) -> None:
    assert prove_read_only(command, "/w", "/w").proven, command


@pytest.mark.parametrize(
    "command",
    ["cat /etc/passwd", "cat $HOME/.ssh/id_rsa", "find . -exec sh -c id \\;", "echo x > f",
     "sed -n 1p f", "git -c core.pager=sh log", "git branch -D main", "ls $(pwd)",
     "sort -o out in", "rg --pre ./evil x", "./tool --help", "awk 'BEGIN{system(\"id\")}'",
     "tar xf a.tar", "less README.md", "env sh -c id", "xargs rm < list"],
)  # fmt: skip
def test_anything_else_is_not_proven(command: str) -> None:
    assert not prove_read_only(command, "/w", "/w").proven, command


def test_strict_mode_runs_a_reader_and_asks_for_a_writer(tmp_path: Path) -> None:
    registry, context, asked = _setup(tmp_path, "strict", sandbox="off")
    (context.workdir / "notes.txt").write_text("hello\n")
    assert "hello" in _run(registry, context, "cat notes.txt")["output"] and not asked
    refused = _run(registry, context, "touch made.txt")
    assert refused["denied"] and "strict mode" in refused["error"]
    assert asked and not (context.workdir / "made.txt").exists()


def test_strict_mode_follows_a_link_out_of_the_workspace(tmp_path: Path) -> None:
    registry, context, asked = _setup(tmp_path, "strict", sandbox="off")
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t\n")
    (context.workdir / "innocent.txt").symlink_to(secret)
    result = _run(registry, context, "cat innocent.txt")
    assert result["denied"] and "s3cr3t" not in str(result) and "link" in asked[0].reason


def test_plan_mode_refuses_without_asking(tmp_path: Path) -> None:
    registry, context, asked = _setup(tmp_path, "plan", sandbox="off")
    refused = _run(registry, context, "touch made.txt")
    assert refused["denied"] and refused["error"].startswith("plan mode")
    assert not asked and not (context.workdir / "made.txt").exists()
    assert _run(registry, context, "ls")["success"]


def test_every_mode_asks_before_a_command_reaches_hermes_tui(tmp_path: Path) -> None:
    home = tmp_path / "hermes-home"
    home.mkdir()
    for mode in ("sandboxed", "strict", "yolo"):
        registry, context, asked = _setup(tmp_path, mode, sandbox="off", hermes_home=home)
        for command in ("hermes-tui pending approve abc", f"echo x >> {home}/MEMORY.md",
                        "python3 -m hermes_tui pending list"):  # fmt: skip
            assert _run(registry, context, command)["denied"], (mode, command)
        assert len(asked) == 3, mode
    assert not (home / "MEMORY.md").exists()


@needs_bwrap
def test_sandboxed_mode_runs_everyday_work_and_asks_before_destroying_tracked_files(
    tmp_path: Path,
) -> None:
    registry, context, asked = _setup(tmp_path, "sandboxed")
    work = context.workdir
    for args in (["init", "-q"], ["config", "user.email", "d@x"], ["config", "user.name", "D"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)
    (work / "src").mkdir()
    (work / "src" / "app.py").write_text("print(1)\n")
    everyday = _run(registry, context, "git add -A && git commit -qm start && mkdir -p build && "
                    "echo o > build/out && rm -rf build && python3 src/app.py")  # fmt: skip
    assert everyday["success"] and not asked, everyday
    refused = _run(registry, context, "rm -rf src")
    assert refused["denied"] and "git tracks" in asked[-1].reason
    assert (work / "src" / "app.py").exists()
    (work / "src" / "app.py").write_text("print(2)\n")
    assert _run(registry, context, "git reset --hard")["denied"]
    assert (work / "src" / "app.py").read_text() == "print(2)\n"
    assert _run(registry, context, "git clean -fdx")["denied"]


def test_leaving_the_sandbox_always_asks_and_needs_a_reason(tmp_path: Path) -> None:
    registry, context, asked = _setup(tmp_path, "sandboxed")
    no_reason = _run(registry, context, "ls", sandbox=False)
    assert no_reason["denied"] and "justification" in no_reason["error"] and not asked
    refused = _run(registry, context, "ls", sandbox=False, justification="needs docker")
    assert refused["denied"] and "outside the sandbox" in asked[0].reason
    assert "needs docker" in asked[0].reason


def test_pending_approve_needs_a_human_at_a_terminal(home: Path) -> None:
    import sys

    from helpers import cli_env

    from hermes_tui.core.pending import PendingStore

    record = PendingStore(home / "pending").stage(
        review_id="r1", kind="memory", target="memory", action="add", tool="memory",
        arguments={"content": "x"}, before="", after="x", origin="agent", reason="tainted",
    )  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "pending", "approve", record.id],
        capture_output=True, text=True, timeout=60, env=cli_env(), stdin=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    assert result.returncode == 2 and "needs a human at a terminal" in result.stderr
    assert (home / "pending" / f"{record.id}.json").exists()


@pytest.fixture
def web_server():
    import http.server
    import threading

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            body = b"hello through the proxy\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.skipif(
    not probe("auto").active or probe("auto").socat is None, reason="no sandbox or no socat"
)
def test_the_proxy_lets_listed_hosts_through_asks_for_others_and_says_what_was_reached(
    tmp_path: Path, web_server: int
) -> None:
    import shutil

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    registry, context, asked = _setup(
        tmp_path, "sandboxed", network="allowlist", network_allow=("127.0.0.1",)
    )
    through = _run(registry, context, f"curl -sS -m 10 http://127.0.0.1:{web_server}/")
    assert "hello through the proxy" in through["output"], through
    assert through["network"] == [
        {"host": "127.0.0.1", "port": web_server, "allowed": True, "how": "allowlist"}
    ]
    refused = _run(registry, context, f"curl -sS -m 10 http://localhost:{web_server}/")
    assert "hello" not in refused["output"] and refused["network"][0]["allowed"] is False
    # A local address not listed is refused before any question: there is nothing to approve.
    assert refused["network"][0]["host"] == "localhost" and not asked
    direct = _run(
        registry,
        context,
        f"curl --noproxy '*' -sS -m 5 http://127.0.0.1:{web_server}/",
    )
    assert "hello" not in direct["output"]  # no way around the proxy: no network at all


@pytest.mark.parametrize(
    "command",
    [
        # git grep -O runs "the pager" on the files it finds: a program of the model's choice
        "git grep -O'sh -c id' hello",
        "git grep --open-files-in-pager=sh hello",
        # git's and diff's paths are paths too, inside an option's value or not
        "git diff --no-index /home/u/.ssh/id_ed25519 README.md",
        "git blame --contents=/home/u/.aws/credentials README.md",
        "diff --from-file=/home/u/.ssh/id_ed25519 README.md",
        "grep -f/home/u/.ssh/id_ed25519 README.md",
        # sort reads the files named in its input, which no proof has seen
        "find . -name .env -print0 | sort --files0-from=- | rev",
        # the hermes home inside the workspace: its secrets are outside for a proof
        "rev .hermes/.env",
        "cat .*/.env",
        "cat .h*/.e?v",
        "grep -r -h -a TOKEN .",
        "grep -rh TOKEN | rev",
        "rg TOKEN",
        "diff -r . /w/src",
    ],
)
def test_strict_proof_keeps_out_of_programs_paths_and_excluded_places(command: str) -> None:
    assert not prove_read_only(command, "/w", "/w", excluded=["/w/.hermes/.env"]).proven, command


@pytest.mark.parametrize(
    "command",
    ["cat *.py", "grep -rn TODO src", "rg TODO src", "git diff --stat", "git grep -n hello",
     "diff -r src tests", "ls -la .hermes", "cat src/*/*.py"],
)  # fmt: skip
def test_strict_proof_still_reads_the_rest_of_the_workspace(command: str) -> None:
    assert prove_read_only(command, "/w", "/w", excluded=["/w/.hermes/.env"]).proven, command


def test_plan_mode_keeps_the_todo_list_which_is_not_read_only(tmp_path: Path) -> None:
    from hermes_tui.core.todo import TodoList
    from hermes_tui.core.tools.todo import make_todo_tools

    registry = ToolRegistry(make_todo_tools())
    assert not registry.get("todo").read_only  # it writes the conversation's checklist
    context = ToolContext(cwd=tmp_path, workdir=tmp_path, approval_mode="plan")
    context.todos = TodoList()
    done = registry.run(
        "todo", {"todos": [{"content": "Read the code", "status": "pending"}]}, context
    ).result
    assert done["success"] and [item.content for item in context.todos.items] == ["Read the code"]
