"""The command line as a user runs it: exit codes, output, and what it must not import."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import cli_env, run_main

HEAVY = ("textual", "openai", "anthropic", "jsonschema", "acp")

PROBE = """
import sys
from hermes_tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})
print("HEAVY=" + ",".join(heavy), file=sys.stderr)
"""


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """`hermes-tui --home HOME ARGS…`: its exit code and output, from cli.main in this process
    (see run_main); what concerns the process itself (its imports, a read-only home under
    bubblewrap, the app's frames) still runs one."""
    return lambda *args, home: run_main(capsys, home, *args)


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["memory", "show"], ["memory", "show", "--json"]]
)
def test_light_commands_import_no_ui_or_provider_sdk(argv: list[str], home: Path) -> None:
    probe = PROBE.replace("{heavy!r}", repr(set(HEAVY)))
    result = subprocess.run(
        [sys.executable, "-c", probe, "--home", str(home), *argv],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert "HEAVY=\n" in result.stderr, result.stderr


def test_version(home: Path, run: Run) -> None:
    from hermes_tui import __version__

    result = run("--version", home=home)
    assert result.returncode == 0 and result.stdout.strip() == f"hermes-tui {__version__}"


def test_memory_show_lists_entries_with_usage(home: Path, run: Run) -> None:
    from hermes_tui.core.memory import MemoryStore

    MemoryStore(home / "memories").add("user", "prefers dark themes")
    text = run("memory", "show", home=home)
    assert text.returncode == 0
    assert "USER.md  1% — 19/1,375 chars" in text.stdout and "1. prefers dark themes" in text.stdout
    data = json.loads(run("memory", "show", "--target", "user", "--json", home=home).stdout)
    assert data == {
        "user": {
            "path": str(home / "memories" / "USER.md"),
            "entries": ["prefers dark themes"],
            "chars": 19,
            "limit": 1375,
            "percent": 1,
            "problem": None,
            "secrets": None,
        }
    }


def test_configuration_error_exits_2_with_the_key(home: Path, run: Run) -> None:
    (home / "config.yaml").write_text("memory:\n  nudge_intervall: 3\n")
    result = run("memory", "show", home=home)
    assert result.returncode == 2
    assert "memory.nudge_intervall is not a known key" in result.stderr


def test_doctor_reports_each_check_and_fails_on_a_broken_memory_file(home: Path, run: Run) -> None:
    ok = run("doctor", home=home)
    assert ok.returncode == 0, ok.stdout
    assert "[ok  ] config" in ok.stdout and "[ok  ] sqlite fts5" in ok.stdout
    assert "[warn] provider: none (offline)" in ok.stdout, "offline runs, but is no 'ok'"
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "USER.md").write_bytes(b"\xff\xfe broken")
    bad = run("doctor", home=home)
    assert bad.returncode == 1
    assert "[FAIL] memory user: USER.md is not valid UTF-8" in bad.stdout


def test_help_lists_every_command(home: Path, run: Run) -> None:
    result = run("--help", home=home)
    assert result.returncode == 0 and "usage: hermes-tui" in result.stdout
    for command in (
        "chat",
        "sessions",
        "review",
        "pending",
        "curator",
        "skills",
        "memory",
        "doctor",
    ):
        assert command in result.stdout


def test_skills_commands_list_view_pin_archive_restore(home: Path, run: Run) -> None:
    skill = home / "skills" / "ops" / "ship"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: ship\ndescription: Ship it.\n---\n\nSteps.\n")
    listing = run("skills", "list", home=home)
    assert "ops/ship  [user, active, 0 uses]" in listing.stdout
    assert "software-development/systematic-debugging  [bundled" in listing.stdout
    assert run("skills", "view", "ship", home=home).stdout.endswith("Steps.\n")
    assert run("skills", "pin", "ship", home=home).returncode == 0
    rows = {r["name"]: r for r in json.loads(run("skills", "list", "--json", home=home).stdout)}
    assert rows["ship"]["pinned"] is True and rows["ship"]["uses"] == 0
    assert run("skills", "archive", "ship", home=home).returncode == 0
    assert "ship" not in run("skills", "list", home=home).stdout.split("systematic")[0]
    restored = run("skills", "restore", "ship", home=home)
    assert restored.returncode == 0 and (skill / "SKILL.md").exists()
    refused = run("skills", "archive", "systematic-debugging", home=home)
    assert refused.returncode == 1 and "read-only" in refused.stderr


def test_skills_view_describes_a_binary_file_instead_of_printing_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import write_skill

    from hermes_tui.cli import main

    folder = write_skill(home / "skills", "with-logo")
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x1b[2J" + bytes(100))
    assert main(["skills", "view", "--home", str(home), "with-logo", "assets/logo.png"]) == 0
    assert capsys.readouterr().out == "binary file, 112 bytes\n"


# ---- an unusable home or sessions.db: one clear error, never a traceback -----------------

UNUSABLE_HOME_COMMANDS = [
    ["sessions", "list"],
    ["chat", "-q", "hello", "--provider", "demo"],
    ["doctor"],
    ["--provider", "demo"],  # the app: the error comes before the screen takes over
]


def _one_clear_error(result: subprocess.CompletedProcess[str], words: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in output, output
    assert words in output, output


@pytest.mark.parametrize("argv", UNUSABLE_HOME_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_home_that_is_a_file_is_one_clear_error(
    argv: list[str], tmp_path: Path, run: Run
) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder", encoding="utf-8")
    _one_clear_error(run(*argv, home=home), "is a file, not a directory")


@pytest.fixture
def read_only(home: Path):
    """A command prefix that runs with `home` read-only (chmod, or a bwrap bind as root)."""
    if os.geteuid() != 0:
        home.chmod(0o555)
        yield []
        home.chmod(0o755)
        return
    prefix = [
        "bwrap",
        "--die-with-parent",
        "--dev-bind",
        "/",
        "/",
        "--ro-bind",
        str(home),
        str(home),
    ]
    if not shutil.which("bwrap") or subprocess.run([*prefix, "true"]).returncode != 0:
        pytest.skip("running as root without a working bwrap: cannot make the home read-only")
    yield prefix


@pytest.mark.parametrize("argv", UNUSABLE_HOME_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_read_only_home_is_one_clear_error(argv: list[str], home: Path, read_only) -> None:
    result = subprocess.run(
        [*read_only, sys.executable, "-m", "hermes_tui", "--home", str(home), *argv],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    words = "Read-only file system" if argv == ["doctor"] else "read-only file system"
    if os.geteuid() != 0:
        words = "Permission denied" if argv == ["doctor"] else "not writable"
    _one_clear_error(result, words)


def test_a_damaged_sessions_db_is_reported_moved_aside_and_told_once(home: Path, run: Run) -> None:
    (home / "sessions.db").write_bytes(b"\x00garbage" * 1000)
    doctor = run("doctor", home=home)
    assert doctor.returncode == 1 and "[FAIL] sessions.db:" in doctor.stdout
    assert "damaged: file is not a database" in doctor.stdout
    first = run("sessions", "list", home=home)
    assert first.returncode == 0 and "no sessions yet" in first.stdout
    assert "sessions.db could not be read" in first.stderr and ".corrupt-" in first.stderr
    assert len(list(home.glob("sessions.db.corrupt-*"))) == 1
    second = run("sessions", "list", home=home)
    assert second.returncode == 0 and second.stderr == ""
    assert "[ok  ] sessions.db: quick_check ok" in run("doctor", home=home).stdout


def test_wording_an_empty_message_and_consolidation_without_a_model_are_errors(
    home: Path, run: Run
) -> None:
    empty = run("chat", "-q", "  ", home=home)
    assert empty.returncode == 2 and "chat -q needs a message" in empty.stderr
    curator = run("curator", "run", "--consolidate", home=home)
    assert curator.returncode == 2 and "--consolidate needs a model" in curator.stderr


def test_the_app_and_memory_show_agree_on_the_percentage(home: Path, run: Run) -> None:
    from hermes_tui.core.memory import MemoryStore
    from hermes_tui.ui.widgets.memory_pane import gauge

    MemoryStore(home / "memories").add("memory", "x" * 1925)  # 87.5 %: rounding would say 88
    shown = run("memory", "show", home=home).stdout
    assert "MEMORY.md  87%" in shown
    assert " 87% 1,925/2,200" in gauge(1925, 2200)[0]


PACING_PROBE = """
import os, sys
from hermes_tui import cli

def app(args):
    import textual.constants, textual.screen
    print("IN", textual.constants.MAX_FPS, round(1 / textual.screen.UPDATE_PERIOD),
          sys.getswitchinterval(), os.environ.get("TEXTUAL_FPS"))
    return 0

cli._app = app
before = sys.getswitchinterval()
cli.main(sys.argv[1:], whole_process=True)
print("AFTER", sys.getswitchinterval() == before)
"""


@pytest.mark.parametrize(("user_fps", "drawn_fps"), [(None, 120), ("30", 30)])
def test_the_app_process_draws_up_to_120_frames_and_hands_the_gil_over_within_1_ms(
    user_fps: str | None, drawn_fps: int, home: Path
) -> None:
    """Textual reads its frame rate once, at import: nothing before the app may import it.
    A rate the user chose wins; the one set here is not passed on to the tools' processes."""
    env = cli_env()
    env.pop("TEXTUAL_FPS", None)
    if user_fps:
        env["TEXTUAL_FPS"] = user_fps
    result = subprocess.run(
        [sys.executable, "-c", PACING_PROBE, "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert f"IN {drawn_fps} {drawn_fps} 0.001 {user_fps}\n" in result.stdout, result.stdout
    assert "AFTER True" in result.stdout
