"""Friction (issue 22, Acceptance): everyday developer work does not ask.

tests/data/friction_corpus.yaml holds 150+ commands (reading, versions, git, tests, builds,
installs through the sandbox's proxy from a loopback stand-in registry, edits). They run in
order through the terminal tool, as the agent's calls would, in a workspace built here:
- `sandboxed` mode (needs bubblewrap): every one runs WITHOUT asking (the approver is never
  called) and really ran: exit status 0, the file it makes exists, its output says so;
- `strict` mode: the read-only ones run without asking and exit 0, and every other one asks
  (answered "deny" here, so nothing of it runs).
"""

from __future__ import annotations

import glob
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import read_yaml

from hermes_tui.core.tools.approvals import ApprovalRequest, Approvals
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.sandbox import DEFAULT_NETWORK_ALLOW, probe
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools

CORPUS = read_yaml(Path(__file__).parents[1] / "data" / "friction_corpus.yaml")
BATCH = 12  # commands per terminal call in the sandboxed half
TOOLS = (
    "git",
    "make",
    "node",
    "npm",
    "cargo",
    "cc",
    "javac",
    "java",
    "jq",
    "curl",
    "wget",
)
TOOLS += ("zip", "unzip", "perl")
missing = [tool for tool in TOOLS if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"not installed here: {missing}")
SANDBOX = probe("auto")


# ---- the loopback stand-in registry ---------------------------------------------------------


def _wheel() -> bytes:
    """A pure-Python wheel of `tinypkg` 0.1.0 (VALUE = 42), made by hand."""
    files = {
        "tinypkg/__init__.py": b"VALUE = 42\n",
        "tinypkg-0.1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1.0\n",
        "tinypkg-0.1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "tinypkg-0.1.0.dist-info/RECORD,,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr("tinypkg-0.1.0.dist-info/RECORD", record)
    return buffer.getvalue()


def _tarball() -> bytes:
    """The npm tarball of `tinyjs` 1.0.0 (module.exports.value = 7)."""
    files = {
        "package/package.json": json.dumps(
            {"name": "tinyjs", "version": "1.0.0", "main": "index.js"}
        ).encode(),
        "package/index.js": b"module.exports.value = 7;\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def registry_url() -> Iterator[str]:
    """A PEP 503 simple index and an npm registry on 127.0.0.1, serving one package each."""
    wheel, tarball = _wheel(), _tarball()
    wheel_name = "tinypkg-0.1.0-py3-none-any.whl"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    routes = {
        "/simple/": (b'<a href="/simple/tinypkg/">tinypkg</a>', "text/html"),
        "/simple/tinypkg/": (
            f'<a href="/files/{wheel_name}#sha256={hashlib.sha256(wheel).hexdigest()}">'
            f"{wheel_name}</a>".encode(),
            "text/html",
        ),
        f"/files/{wheel_name}": (wheel, "application/octet-stream"),
        "/npm/tinyjs": (
            json.dumps(
                {
                    "name": "tinyjs",
                    "dist-tags": {"latest": "1.0.0"},
                    "versions": {
                        "1.0.0": {
                            "name": "tinyjs",
                            "version": "1.0.0",
                            "main": "index.js",
                            "dist": {
                                "tarball": f"{base}/npm/tinyjs/-/tinyjs-1.0.0.tgz",
                                "shasum": hashlib.sha1(tarball).hexdigest(),
                            },
                        }
                    },
                }
            ).encode(),
            "application/json",
        ),
        "/npm/tinyjs/-/tinyjs-1.0.0.tgz": (tarball, "application/octet-stream"),
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = routes.get(self.path.split("?")[0])
            if found is None:
                self.send_error(404)
                return
            body, kind = found
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args) -> None:
            pass

    server.RequestHandlerClass = Handler
    # (shutdown() waits for the loop's next poll: 0.5 s apart by default.)
    serve = server.serve_forever
    threading.Thread(target=serve, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield base
    server.shutdown()


# ---- the workspace --------------------------------------------------------------------------

FILES = {
    "README.md": "# Demo app\n\nAdds numbers.\n",
    "notes.txt": "TODO: tidy the cli\nremember the tests\n",
    "data.csv": "name,score\nada,3\nbob,5\nada,3\n",
    ".gitignore": "build/\ndist/\nnode_modules/\nvendor*/\ndownloads/\nunpacked/\ntarget/\n"
    "java/out/\nc/hello\n__pycache__/\n*.pyc\n",
    "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    '[project]\nname = "demo-app"\nversion = "0.1.0"\n\n'
    '[tool.hatch.build.targets.wheel]\npackages = ["src/demo_app"]\n\n'
    '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/demo_app/__init__.py": '"""Demo."""\n\n\ndef add(a: int, b: int) -> int:\n'
    "    # TODO: more operations\n    return a + b\n",
    "src/demo_app/cli.py": '"""python -m demo_app.cli A B prints their sum."""\n\nimport sys\n\n'
    "from demo_app import add\n\n"
    'if __name__ == "__main__":\n    print(add(int(sys.argv[1]), int(sys.argv[2])))\n',
    "tests/test_add.py": "from demo_app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_unit.py": "import unittest\n\nfrom demo_app import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(1, 1), 2)\n\n\n"
    'if __name__ == "__main__":\n    unittest.main()\n',
    "conftest.py": "",
    "Makefile": "all: build\n\nbuild:\n\tmkdir -p build\n\techo built > build/out.txt\n\n"
    "test:\n\tpython -m pytest -q -p no:cacheprovider tests\n\n"
    "lint:\n\truff check src\n\nclean:\n\trm -rf build\n\n.PHONY: all build test lint clean\n",
    "package.json": json.dumps(
        {
            "name": "demo-js",
            "version": "1.2.3",
            "private": True,
            "scripts": {
                "build": "node build.js",
                "test": "node test.js",
                "lint": "node lint.js",
            },
        },
        indent=2,
    )
    + "\n",
    "build.js": "const fs = require('fs');\nfs.mkdirSync('dist', {recursive: true});\n"
    "fs.writeFileSync('dist/bundle.js', 'console.log(1)\\n');\n",
    "test.js": "const assert = require('assert');\nassert.strictEqual(1 + 1, 2);\nconsole.log('ok');\n",
    "lint.js": "console.log('lint clean');\n",
    "c/hello.c": '#include <stdio.h>\nint main(void) { puts("hello from C"); return 0; }\n',
    "c/Makefile": "hello: hello.c\n\tcc -o hello hello.c\n",
    "rust/Cargo.toml": '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n',
    "rust/src/main.rs": 'fn main() {\n    println!("hello from Rust");\n}\n',
    "java/Hello.java": "public class Hello {\n    public static void main(String[] args) {\n"
    '        System.out.println("hello from Java");\n    }\n}\n',
    "scripts/run.sh": "#!/bin/sh\necho run.sh ran\n",
}


def _git(work: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)


def _workspace(root: Path) -> Path:
    work = root / "project"
    for name, text in FILES.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(work, "init", "-q", "-b", "main")
    _git(work, "config", "user.name", "Dev")
    _git(work, "config", "user.email", "dev@example.com")
    _git(work, "config", "commit.gpgsign", "false")
    _git(work, "add", "README.md", ".gitignore")
    _git(work, "commit", "-q", "-m", "first commit")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "The demo app")
    return work


class Approver:
    """Counts every question; answers `answer`."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> str:
        self.asked.append(request)
        return self.answer


def _tool(work: Path, home: Path, mode: str, approver: Approver, registry_url: str):
    # The project's own python, pytest and ruff come first on PATH, as in an activated venv.
    path = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    settings = TerminalSettings(
        sandbox="auto" if mode == "sandboxed" else "off",
        network="allowlist",
        network_allow=(*DEFAULT_NETWORK_ALLOW, "127.0.0.1"),
        hermes_home=home / "hermes-home",
        cache_dir=home / "sandbox-cache",
        environ={
            "PATH": path,
            "HOME": os.environ.get("HOME", str(home)),
            "LANG": "C.UTF-8",
            # No update checks: this machine has no internet, and they are not the work.
            "npm_config_update_notifier": "false",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            # The project's pytest loads its own plugins only: the python on PATH is the test
            # run's venv, whose plugins (textual's snapshots, xdist, asyncio…) are not the demo
            # project's; loading them made each of its pytest runs cost 0.8 s of CPU, not 0.2.
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            # The JVM's quick compiler and one garbage-collector thread: javac and java on a
            # one-class program cost half the CPU (these machines have two cores).
            "JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        },
    )
    tools = ToolRegistry(make_terminal_tools(settings))
    context = ToolContext(
        cwd=work,
        workdir=work,
        approvals=Approvals(approver),
        approval_mode=mode,  # type: ignore[arg-type]
    )
    return tools, context


def _call(tools, context, command: str) -> dict:
    """The terminal's whole result (the model's copy is capped; the cap is not tested here)."""
    return tools.run("terminal", {"command": command, "timeout": 120}, context).full


def _command(entry: dict, registry_url: str) -> str:
    return entry["run"].replace("{registry}", registry_url)


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CORPUS) >= 150
    text = "\n".join(entry["run"] for entry in CORPUS)
    for word in ("make", "pytest", "unittest", "npm install", "pip install", "git commit",
                 "git stash", "git branch", "git log", "git diff", "sed -i", "awk", ">>"):  # fmt: skip
        assert word in text, word
    assert sum(1 for entry in CORPUS if entry["read_only"]) >= 50


@pytest.mark.skipif(not SANDBOX.active, reason=f"no bubblewrap sandbox: {SANDBOX.detail}")
@pytest.mark.skipif(SANDBOX.socat is None, reason="no socat: installs cannot reach the proxy")
def test_sandboxed_mode_runs_every_everyday_command_without_asking(
    tmp_path: Path, registry_url: str
) -> None:
    work = _workspace(tmp_path)
    approver = Approver("deny")
    tools, context = _tool(work, tmp_path, "sandboxed", approver, registry_url)
    failures = []
    for start in range(0, len(CORPUS), BATCH):
        entries = CORPUS[start : start + BATCH]
        commands = [_command(entry, registry_url) for entry in entries]
        outcomes = _run_batch(
            tools,
            context,
            [(c, e.get("creates", "")) for c, e in zip(commands, entries, strict=True)],
        )
        context.cwd = work
        if outcomes is None:  # the batch asked before it ran: find which commands ask
            approver.asked.clear()
            for command in commands:
                _call(tools, context, command)
                context.cwd = work
                if approver.asked:
                    failures.append(f"{command!r}: asked: {approver.asked[-1].reason}")
                    approver.asked.clear()
            continue
        if approver.asked:  # a question while it ran (the proxy's, about a host)
            failures.append(f"{commands}: asked: {[a.reason for a in approver.asked]}")
            approver.asked.clear()
        for entry, command, result in zip(entries, commands, outcomes, strict=True):
            if problem := _problem(entry, result, work):
                failures.append(f"{command!r}: {problem}")
    assert not failures, "\n".join(failures)


def _run_batch(tools, context, commands: list[tuple[str, str]]) -> list[dict] | None:
    """Run `commands` (each with the glob it creates, or "") as one terminal call, each in its
    own subshell started from the project folder, with its output, exit status and whether
    it made its file framed; None when the call was refused (asked).

    One call per command would cost a sandbox start each (0.1-0.3 s on a loaded machine):
    the policy judges a line command by command, so a line that asks nothing holds commands
    none of which asks alone (the strict half runs them one by one)."""
    lines = []
    for i, (command, creates) in enumerate(commands):
        # What the command makes is looked for right after it: a later one may remove it.
        look = f"ls -d -- {creates} >/dev/null 2>&1" if creates else "true"
        lines.append(
            f"printf '\\n@@{i}@@\\n'; (\n{command}\n)\n"
            f'rc=$?; {look}; printf \'\\n@@{i}@@ %s %s\\n\' "$rc" "$?"'
        )
    script = "\n".join(lines)
    result = _call(tools, context, script)
    if result.get("denied"):
        return None
    output = result.get("output", "")
    outcomes = []
    for i in range(len(commands)):
        found = re.search(rf"\n@@{i}@@\n(.*?)\n@@{i}@@ (\d+) (\d+)\n", output, re.DOTALL)
        if found is None:
            outcomes.append({"exit_code": None, "output": output[-600:]})
            continue
        code, text, made = int(found.group(2)), found.group(1), found.group(3) == "0"
        outcomes.append({"exit_code": code, "output": text, "created": made})
    return outcomes


def test_strict_mode_runs_the_read_only_ones_and_asks_for_the_rest(
    tmp_path: Path, registry_url: str
) -> None:
    work = _workspace(tmp_path)
    failures = []
    approver = Approver("deny")
    tools, context = _tool(work, tmp_path, "strict", approver, registry_url)
    for entry in CORPUS:
        command = _command(entry, registry_url)
        result = _call(tools, context, command)
        context.cwd = work
        if entry["read_only"]:
            # One that needs what earlier commands made runs unasked, and finds nothing.
            problem = "" if entry.get("needs_earlier") else _problem(entry, result, work)
            if result.get("denied"):
                problem = f"refused: {result.get('error')}"
            if problem or approver.asked:
                failures.append(f"{command!r} (read-only): {problem or approver.asked[-1].reason}")
        elif len(approver.asked) != 1 or not result.get("denied"):
            failures.append(f"{command!r}: ran without asking in strict mode: {result}")
        approver.asked.clear()
    assert not failures, "\n".join(failures)
    # Nothing that asked ran: the workspace is as it was built.
    assert not (work / "build").exists() and not (work / "vendor").exists()


def _problem(entry: dict, result: dict, work: Path) -> str:
    """What is wrong with a command's outcome: not run, failed, or did not do its work."""
    if result.get("denied"):
        return f"refused: {result.get('error')}"
    if result.get("exit_code") != 0:
        return f"exit {result.get('exit_code')}: {result.get('output', '')[-600:]}"
    made = result.get("created")
    if made is None and "creates" in entry:
        made = bool(glob.glob(str(work / entry["creates"])))
    if "creates" in entry and not made:
        return f"did not create {entry['creates']}: {result.get('output', '')[-300:]}"
    if "output" in entry and entry["output"] not in result.get("output", ""):
        return f"output lacks {entry['output']!r}: {result.get('output', '')[-300:]}"
    return ""
