"""Plain helpers shared by the tests (fixtures live in conftest.py files)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# Variables that would make a test depend on the machine it runs on.
LEAKY_VARIABLES = (
    "HERMES_HOME", "HERMES_PROVIDER", "HERMES_MODEL", "HERMES_BASE_URL", "HERMES_THEME",
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
    "OPENROUTER_API_KEY",
)  # fmt: skip


def read_yaml(path: Path) -> Any:
    """A data file of the tests (a corpus, a table), read with libyaml's C loader when PyYAML
    has it: the same data as `yaml.safe_load`, ten times faster on the corpora, which every
    worker reads."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader


def cli_env(**extra: str) -> dict[str, str]:
    """Environment for running `hermes-tui` as a subprocess, without the machine's keys."""
    env = {k: v for k, v in os.environ.items() if k not in LEAKY_VARIABLES}
    env.update(extra)
    return env


def run_cli(
    home: Path, *args: str, cwd: Path | None = None, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """`hermes-tui --home HOME ARGS…` as a user runs it, without the machine's keys."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=cli_env(**env),
    )


def run_main(
    capsys: Any, home: Path, *args: str, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`hermes-tui --home HOME ARGS…` run by cli.main in this process, with no terminal on
    stdin and `env` set meanwhile: what run_cli returns, without a process's start-up (about a
    second each). For commands whose test is not about the process itself (signals, its
    exit, its imports)."""
    from hermes_tui.cli import main

    argv = ["--home", str(home), *args]
    capsys.readouterr()
    stdin, here = sys.stdin, os.getcwd()
    saved = {name: os.environ.get(name) for name in env}
    sys.stdin = io.StringIO()
    os.environ.update(env)
    try:
        if cwd is not None:
            os.chdir(cwd)
        code = main(argv)
    except SystemExit as stopped:  # argparse's own refusals
        code = stopped.code if isinstance(stopped.code, int) else 2
    finally:
        sys.stdin = stdin
        os.chdir(here)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, out, err)


def once_per_run(tmp_path_factory: Any, name: str, make: Any) -> bytes:
    """`make()`'s bytes, made by the first of the run's workers that asks and kept in the run's
    own temporary folder (pytest-N/, above each worker's popen-gwN/) for the others, which
    wait for it under a lock and read them. A new run makes them anew: nothing is kept
    between runs."""
    import fcntl

    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent
    kept = shared / f"{name}.once"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.exists():
            return kept.read_bytes()
        data = make()
        partial = shared / f"{name}.partial"
        partial.write_bytes(data)
        os.replace(partial, kept)
        return data


def skill_text(
    name: str, description: str = "Does a thing well.", body: str = "# Steps\n\n1. Do it.\n"
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def write_skill(
    root: Path, name: str, category: str | None = None, text: str | None = None
) -> Path:
    directory = root / category / name if category else root / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(
        text if text is not None else skill_text(name), encoding="utf-8"
    )
    return directory


def write_config(home: Path, base_url: str, provider: str = "openai", **sections: dict) -> None:
    """A config.yaml that points the runtime at the loopback LLM with fast retries."""
    import yaml

    data: dict = {
        "model": {
            "provider": provider,
            "name": "fake-model",
            "base_url": base_url,
            "max_retries": 2,
            "retry_base_delay": 0.01,
        }
    }
    for section, values in sections.items():
        data.setdefault(section, {}).update(values)
    (home / "config.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def open_runtime(home: Path, base_url: str, sink=None, provider: str = "openai", **sections: dict):
    from hermes_tui.core.events import discard
    from hermes_tui.runtime import Runtime

    write_config(home, base_url, provider, **sections)
    key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    return Runtime.open(home, environ={key: "test-key"}, sink=sink or discard)


def make_app(
    home: Path, base_url: str | None = None, *, provider: str | None = None, **sections: dict
):
    """The real app on `home`: against the loopback LLM at `base_url`, or offline."""
    from hermes_tui.config import Overrides
    from hermes_tui.runtime import Runtime
    from hermes_tui.ui.app import HermesApp
    from hermes_tui.ui.turn import EventForwarder

    forwarder = EventForwarder()
    if base_url is not None:
        write_config(home, base_url, **sections)
        runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "test-key"}, sink=forwarder)
    else:
        runtime = Runtime.open(home, Overrides(provider=provider), environ={}, sink=forwarder)
    app = HermesApp(runtime, forwarder, watch_files=False)
    OPENED_APPS.append(app)
    return app


# The apps make_app made during the current test: conftest.py closes their runtimes after it,
# as quitting does (`run_test` ends the app without quitting). Otherwise what a runtime keeps
# running (the sandbox's network proxy, MCP servers) lived on, and its thread kept the whole
# app alive (a thread holds `sys.stderr` as it was when it started: the app's capture), so
# every full garbage collection of a worker walked dozens of dead apps.
OPENED_APPS: list = []


def close_opened_apps() -> None:
    while OPENED_APPS:
        app = OPENED_APPS.pop()
        app.runtime.close()


def spec_problems_of_created_skills(home: Path) -> dict[str, list[str]]:
    """What the Agent Skills reference validator (skills-ref) says about every skill that was
    created through our writes in `home` (the audit log names them), as they are now."""
    import json

    from skills_ref import validate

    audit = home / "logs" / "audit.jsonl"
    if not audit.exists():
        return {}
    created = set()
    for line in audit.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("kind") == "skill" and record.get("action") == "create":
            created.add(record["target"])
    problems: dict[str, list[str]] = {}
    for skill_md in (home / "skills").rglob("SKILL.md"):
        folder = skill_md.parent
        hidden = any(part.startswith(".") for part in folder.relative_to(home).parts)
        if folder.name in created and not hidden and (found := validate(folder)):
            problems[str(folder.relative_to(home))] = found
    return problems


async def send(app, pilot, text: str) -> None:
    """Type `text` in the app's message box, send it, and wait for the turn to end: its workers,
    then its last events delivered (`turn_running` goes false only then; on a loaded machine
    one pause was not always enough, and the next message was queued behind the turn)."""
    app.query_one("#chat-input").text = text
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await wait_until(lambda: not app.turn_running)
    await pilot.pause()


async def wait_until(predicate, timeout: float = 30.0, step: float = 0.02) -> None:
    """Wait, letting the app run, until `predicate()` is true; fail after `timeout` seconds.

    Every wait in a test goes through here (or another bounded wait): a regression then fails
    with a message instead of hanging the run. The default bound is for a loaded CI machine
    (four workers on two cores, three times slower than a quiet one): many waits cover a whole
    turn (the loopback model's round trips, a sandboxed command); a wait that is met returns
    at once, so only a failing test pays for the margin."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {predicate}")
        await asyncio.sleep(step)


def steady_mode(app) -> None:
    """Snapshots draw the approval mode as `sandboxed` whether or not this machine has
    bubblewrap (where it has none, "auto" resolves to strict)."""
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    app.screen_stack[0].query_one(NudgeBar).mode = "sandboxed"


def script_a_memory_review(llm, home: Path, answer: str, fact: str) -> None:
    """A home whose first turn fires a memory review, and the model's three replies: `answer`
    to the user, then the review's `memory add` of `fact` to USER.md, then its last word."""
    from fakes.llm_server import Reply

    write_config(
        home, llm.openai_url, memory={"nudge_interval": 1}, skills={"creation_nudge_interval": 0}
    )
    llm.script(
        Reply(text=answer),
        Reply(tool_calls=[("memory", {"action": "add", "target": "user", "content": fact})]),
        Reply(text="Saved."),
    )


def write_gate(home: Path, scanner: Any, **memory_options: Any) -> tuple[Any, Any, Any]:
    """The write gate as the agent loop uses it, on real stores under `home`:
    (gate, memory store, pending store)."""
    from hermes_tui.core.agent.taint import WriteGate
    from hermes_tui.core.events import discard
    from hermes_tui.core.memory import MemoryStore
    from hermes_tui.core.pending import PendingStore
    from hermes_tui.core.skills.library import SkillLibrary

    memory = MemoryStore(home / "memories", scanner=scanner, **memory_options)
    pending = PendingStore(home / "pending")
    gate = WriteGate(
        memory=memory,
        skills=SkillLibrary(home / "skills"),
        pending=pending,
        scanner=scanner,
        sink=discard,
    )
    return gate, memory, pending
