"""Command line: `hermes-tui` and its subcommands (DESIGN.md section 4).

Imports are lazy: `--version`, `--help` and `memory show` must not pay for textual, openai or
anthropic. Exit codes: 0 ok, 1 a check failed, 2 usage or configuration error, 3 provider failure.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hermes_tui import __version__
from hermes_tui.core.text import json_for_terminal

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_PROVIDER = 0, 1, 2, 3


def _common_flags(default: object) -> argparse.ArgumentParser:
    """Flags accepted before or after a subcommand.

    The copy attached to subcommands defaults to SUPPRESS so that `--home X memory show`
    is not reset to None by the subcommand's own defaults.
    """
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home",
        default=default,
        help="home directory (default: $HERMES_HOME or the platform data dir)",
    )
    common.add_argument("--provider", default=default, help="openai, anthropic, openrouter or demo")
    common.add_argument("--model", default=default, help="model name for the provider")
    common.add_argument(
        "--base-url",
        dest="base_url",
        default=default,
        help="API base URL (OpenAI-compatible servers)",
    )
    common.add_argument(
        "--mode",
        default=default,
        choices=("sandboxed", "strict", "plan", "yolo"),
        help="approval mode for this run (terminal.mode)",
    )
    common.add_argument(
        "--no-sandbox",
        dest="no_sandbox",
        action="store_const",
        const=True,
        default=default,
        help="run commands without the OS sandbox (terminal.sandbox: off)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    top_flags = _common_flags(None)
    common = _common_flags(argparse.SUPPRESS)

    parser = argparse.ArgumentParser(
        prog="hermes-tui",
        description="A terminal agent that keeps a bounded memory and writes its own skills, in the open.",
        parents=[top_flags],
    )
    parser.add_argument("--version", action="version", version=f"hermes-tui {__version__}")
    parser.add_argument(
        "--demo", action="store_true", help="start the app with the scripted demo model"
    )
    opening = parser.add_mutually_exclusive_group()
    opening.add_argument("--resume", metavar="ID", help="open the app on this session")
    opening.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="open the app on the latest session",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    memory = commands.add_parser("memory", help="show the agent's memory", parents=[common])
    memory_commands = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    show = memory_commands.add_parser(
        "show", help="print MEMORY.md and USER.md with usage", parents=[common]
    )
    show.add_argument("--target", choices=["memory", "user"], help="only this store")
    show.add_argument("--json", action="store_true", help="machine-readable output")

    chat = commands.add_parser(
        "chat", help="run one user turn headless and print the reply", parents=[common]
    )
    chat.add_argument("-q", "--query", required=True, help="the message to send")
    resume = chat.add_mutually_exclusive_group()
    resume.add_argument("--session", help="continue this session (an id or a unique prefix)")
    resume.add_argument(
        "--continue", dest="continue_", action="store_true", help="continue the latest session"
    )
    chat.add_argument("--yolo", action="store_true", help="allow dangerous commands without asking")
    output = chat.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object with the result")
    output.add_argument(
        "--stream-json",
        action="store_true",
        help="print one JSON object per line as events happen, ending with the result "
        "(schema: hermes_tui/schemas/stream-json.schema.json)",
    )
    chat.add_argument(
        "-s",
        "--skill",
        action="append",
        default=[],
        metavar="NAME",
        help="load this skill into the turn first (repeatable)",
    )

    acp_parser = commands.add_parser(
        "acp",
        help="serve the Agent Client Protocol on stdio (Zed, JetBrains, Toad)",
        parents=[common],
    )
    acp_parser.add_argument(
        "--print-config",
        choices=("zed", "jetbrains", "toad"),
        help="print the settings snippet that makes the client start hermes-tui",
    )

    sessions = commands.add_parser(
        "sessions", help="list, search, show and export sessions", parents=[common]
    )
    session_commands = sessions.add_subparsers(
        dest="sessions_command", metavar="ACTION", required=True
    )
    s_list = session_commands.add_parser("list", help="recent sessions", parents=[common])
    s_list.add_argument("--json", action="store_true")
    s_list.add_argument("--limit", type=int, default=50)
    s_search = session_commands.add_parser(
        "search", help="full-text search over all messages", parents=[common]
    )
    s_search.add_argument("query")
    s_search.add_argument("--json", action="store_true")
    s_search.add_argument("--limit", type=int, default=20)
    session_commands.add_parser("show", help="print a session", parents=[common]).add_argument("id")
    s_export = session_commands.add_parser(
        "export", help="one JSON object per message", parents=[common]
    )
    s_export.add_argument("id")
    s_export.add_argument(
        "--format",
        choices=["jsonl", "markdown"],
        default="jsonl",
        help="jsonl: one JSON object per message; markdown: a readable transcript",
    )

    review = commands.add_parser(
        "review", help="run a background review of a session now", parents=[common]
    )
    review.add_argument("session_id")
    review.add_argument("--focus", help="what the review should look at")
    review.add_argument("--kind", choices=["memory", "skills", "combined"], default="combined")

    pending = commands.add_parser("pending", help="writes staged for approval", parents=[common])
    pending_commands = pending.add_subparsers(
        dest="pending_command", metavar="ACTION", required=True
    )
    p_list = pending_commands.add_parser(
        "list", help="staged writes with their diffs", parents=[common]
    )
    p_list.add_argument("--json", action="store_true")
    pending_commands.add_parser(
        "approve", help="apply a staged write", parents=[common]
    ).add_argument("id")
    pending_commands.add_parser(
        "reject", help="drop a staged write (kept in pending/.rejected)", parents=[common]
    ).add_argument("id")

    curator = commands.add_parser(
        "curator", help="keep agent-made skills healthy", parents=[common]
    )
    curator_commands = curator.add_subparsers(
        dest="curator_command", metavar="ACTION", required=True
    )
    c_status = curator_commands.add_parser(
        "status", help="last run, next run, what it would do", parents=[common]
    )
    c_status.add_argument("--json", action="store_true")
    c_run = curator_commands.add_parser("run", help="run the curator now", parents=[common])
    c_run.add_argument(
        "--dry-run", action="store_true", help="report what would change, change nothing"
    )
    c_run.add_argument(
        "--consolidate", action="store_true", help="also let the model merge overlapping skills"
    )
    curator_commands.add_parser(
        "pause",
        help="stop scheduled curator runs (kept in skills/.curator_state)",
        parents=[common],
    )
    curator_commands.add_parser("resume", help="let scheduled runs happen again", parents=[common])
    c_archived = curator_commands.add_parser(
        "list-archived", help="archived skills, with when and why", parents=[common]
    )
    c_archived.add_argument("--json", action="store_true")
    curator_commands.add_parser(
        "restore", help="bring an archived skill back", parents=[common]
    ).add_argument("name")
    c_prune = curator_commands.add_parser(
        "prune", help="archive agent-made skills unused for N days (backup first)", parents=[common]
    )
    c_prune.add_argument("--days", type=float, default=None, help="default: archive_after_days")
    c_prune.add_argument("--dry-run", action="store_true", help="list them, archive nothing")
    c_prune.add_argument("-y", "--yes", action="store_true", help="do not ask to confirm")
    c_backup = curator_commands.add_parser(
        "backup", help="snapshot skills/ now (runs and rollbacks also make one)", parents=[common]
    )
    c_backup.add_argument("--reason", default="manual", help="stored beside the snapshot")
    c_rollback = curator_commands.add_parser(
        "rollback",
        help="put skills/ back as a snapshot has it (what it replaces is backed up first)",
        parents=[common],
    )
    c_rollback.add_argument("--list", action="store_true", help="list snapshots, restore nothing")
    c_rollback.add_argument("--id", dest="backup_id", default=None, help="default: the newest")
    c_rollback.add_argument("-y", "--yes", action="store_true", help="do not ask to confirm")

    skills = commands.add_parser(
        "skills", help="list, view, pin and archive skills", parents=[common]
    )
    skill_commands = skills.add_subparsers(dest="skills_command", metavar="ACTION", required=True)
    listing = skill_commands.add_parser(
        "list", help="every skill with provenance, state and uses", parents=[common]
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    view = skill_commands.add_parser(
        "view", help="print a skill's SKILL.md or one linked file", parents=[common]
    )
    view.add_argument("name")
    view.add_argument("file", nargs="?", help="a linked file such as references/api.md")
    for action, text in (
        ("pin", "protect a skill from agent edits and the curator"),
        ("unpin", "let the agent and curator change a skill again"),
        ("archive", "move a skill to skills/.archive (restorable)"),
        ("restore", "bring an archived skill back"),
    ):
        skill_commands.add_parser(action, help=text, parents=[common]).add_argument("name")
    from hermes_tui import cli_skills_hub

    cli_skills_hub.add_parsers(skill_commands, common)

    insights = commands.add_parser(
        "insights",
        help="is the agent getting better? sessions, skills, memory, reviews over time",
        parents=[common],
    )
    insights.add_argument("--days", type=int, default=30, help="how far back (default 30)")
    insights.add_argument("--json", action="store_true", help="machine-readable output")
    from hermes_tui import cli_eval, cli_mcp

    cli_mcp.add_parsers(commands, common)
    cli_eval.add_parser(commands, common)
    doctor = commands.add_parser(
        "doctor", help="check config, home, memory files and SQLite FTS5", parents=[common]
    )
    doctor.add_argument(
        "--ping",
        action="store_true",
        help="send one tiny real request: latency, model, streaming and tool calls",
    )
    return parser


def _open_runtime(args: argparse.Namespace, sink=None):
    from hermes_tui.core.text import NeutralisedStream
    from hermes_tui.runtime import Runtime

    runtime = Runtime.open(args.home, _overrides(args), sink=sink or _notices_to_stderr)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, NeutralisedStream):  # the home's known secrets, encoded ones too
            stream.redact = runtime.redactor.text
    return runtime


def _overrides(args: argparse.Namespace):
    from hermes_tui.config import Overrides

    mode = getattr(args, "mode", None)
    if getattr(args, "yolo", False):
        mode = "yolo"  # chat -q --yolo: nothing asks; the sandbox still applies
    return Overrides(
        getattr(args, "provider", None),
        getattr(args, "model", None),
        getattr(args, "base_url", None),
        mode=mode,
        sandbox="off" if getattr(args, "no_sandbox", None) else None,
    )


def _notices_to_stderr(event: object) -> None:
    """The sink of commands without a console: only what the user must hear (a moved database)."""
    from hermes_tui.core.events import Notice

    if isinstance(event, Notice):
        print(f"{event.level}: {event.text}", file=sys.stderr)


def cmd_memory_show(args: argparse.Namespace) -> int:
    from hermes_tui.core.memory import FILENAMES, TARGETS

    runtime = _open_runtime(args)
    store = runtime.memory
    targets = [args.target] if args.target else list(TARGETS)
    report = {}
    for target in targets:
        state = store.read(target)
        usage = store.usage(target)
        report[target] = {
            "path": str(store.path(target)),
            "entries": list(state.entries),
            "chars": usage.chars,
            "limit": usage.limit,
            "percent": usage.percent,
            "problem": state.drift,
        }
    if args.json:
        print(json_for_terminal(report, indent=2))
        return EXIT_OK
    for target, info in report.items():
        print(
            f"{FILENAMES[target]}  {info['percent']}% — {info['chars']:,}/{info['limit']:,} chars  ({info['path']})"
        )
        if info["problem"]:
            print(f"  ! {info['problem']}")
        if not info["entries"]:
            print("  (empty)")
        for index, entry in enumerate(info["entries"], 1):
            lines = entry.splitlines() or [""]
            print(f"  {index:>2}. {lines[0]}")
            for line in lines[1:]:
                print(f"      {line}")
        print()
    return EXIT_OK


def app_runtime(args: argparse.Namespace, sink) -> Any:
    """The app's runtime: the demo's (in its own home) when chosen last time and still no
    provider. Opened once: the configuration alone says whether the demo is due."""
    from hermes_tui.config import load_config, resolve_home
    from hermes_tui.core.llm import select
    from hermes_tui.runtime import demo_remembered

    home = resolve_home(args.home)
    if demo_remembered(home) and select.detect(load_config(home, _overrides(args))) is None:
        args.provider = "demo"
    return _open_runtime(args, sink)


# How soon a typed key shows while a reply streams (bench/tui.py measures both).
FRAME_RATE = 120  # frames a second at most; Textual's default is 60
SWITCH_INTERVAL = 0.001  # seconds a thread keeps the GIL while another waits; CPython's is 0.005


@contextmanager
def keys_first() -> Iterator[None]:
    """Two process-wide settings for the app's process, in force while it runs.

    - Textual draws a frame on a fixed grid of `1/rate` seconds, and only when something
      changed. While a reply streams every step is a frame, so a key handled just after one
      waited for the next slot: up to 16.7 ms at 60 a second, more when the step's frame
      overran its slot. At 120 the wait is half that, and a quiet screen still draws nothing.
    - The provider's stream is parsed on a worker thread. CPython lets a busy thread keep the
      GIL for 5 ms before it must hand it over, and the screen's thread gives it up at every
      write to the terminal and every wakeup: while a fast provider streamed, a 10 ms frame
      took 35-50 ms. 1 ms bounds each wait.

    Textual reads the rate once, when it is imported: this must run first. A TEXTUAL_FPS the
    user set wins, and the one set here is not passed on to the processes tools start.
    """
    ours = "TEXTUAL_FPS" not in os.environ
    if ours:
        os.environ["TEXTUAL_FPS"] = str(FRAME_RATE)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        import textual.constants  # noqa: F401 - reads TEXTUAL_FPS now
    finally:
        if ours:
            del os.environ["TEXTUAL_FPS"]
    try:
        yield
    finally:
        sys.setswitchinterval(switch)


def cmd_app(args: argparse.Namespace) -> int:
    """The full-screen app (the default when no subcommand is given)."""
    if not args.whole_process:
        return _app(args)
    with keys_first():
        return _app(args)


def _app(args: argparse.Namespace) -> int:
    from hermes_tui.ui.app import HermesApp
    from hermes_tui.ui.turn import EventForwarder

    if args.demo:
        args.provider = "demo"
    forwarder = EventForwarder()
    runtime = app_runtime(args, forwarder)
    runtime.sessions  # noqa: B018 - opened before the screen takes over: an unusable one is said plainly
    from hermes_tui.cli_chat import chosen_session

    resume = chosen_session(runtime, args.resume, args.continue_)
    if resume is False:
        return EXIT_USAGE
    from hermes_tui.ui.collector import Collector

    # Full garbage collections at quiet moments (ui/collector.py): only when the process is ours.
    collector = Collector() if args.whole_process else None
    app = HermesApp(runtime, forwarder, resume=resume, collector=collector)
    try:
        app.run()
    finally:
        if collector is not None:
            collector.stop()
    return app.return_code or EXIT_OK  # non-zero when the app stopped on an error


def cmd_insights(args: argparse.Namespace) -> int:
    import shutil

    from hermes_tui.core.insights import render_text

    if args.days < 1:
        print("hermes-tui: --days must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    insights = _open_runtime(args).insights(args.days)
    if args.json:
        print(json_for_terminal(insights.to_json(), indent=2))
    else:
        print(render_text(insights, width=shutil.get_terminal_size().columns))
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from hermes_tui.doctor import run_checks

    failed = False
    for check in run_checks(args):
        mark = "FAIL" if not check.ok else "warn" if check.warning else "ok  "
        print(f"[{mark}] {check.name}: {check.detail}")
        failed = failed or not check.ok
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def main(argv: Sequence[str] | None = None, *, whole_process: bool = False) -> int:
    """Run one command. `whole_process`: this call is the process (see `entry`)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.whole_process = whole_process
    if args.command is None:
        return _run(args)
    # Replies, tool output, memory and skills reach these streams: a terminal must not obey them,
    # and no secret is printed (key shapes now, the home's known secrets once it is open).
    from hermes_tui.core.redaction import redact_shapes
    from hermes_tui.core.text import NeutralisedStream

    out, err = sys.stdout, sys.stderr
    sys.stdout = NeutralisedStream(out, redact_shapes)
    sys.stderr = NeutralisedStream(err, redact_shapes)
    try:
        return _run(args)
    except Exception:  # a bug: its traceback is redacted like everything else printed here
        import traceback

        sys.stderr.write(traceback.format_exc())
        return 1  # what Python exits with on an uncaught exception
    finally:
        sys.stdout, sys.stderr = out, err


def entry() -> None:
    """The process entry point (`hermes-tui`, `python -m hermes_tui`).

    main() owning the whole process may tune it: `chat -q` keeps the garbage collector out of
    its start-up (cli_chat.QuietStart), which a caller of main() in its own process (the tests)
    must not have done to it.
    """
    try:
        code = main(whole_process=True)
    except KeyboardInterrupt:
        code = stopped_early(sys.argv[1:])
    forget_handled_interrupt()
    raise SystemExit(code)


def forget_handled_interrupt() -> None:
    """Let a Ctrl-C we handled end the process with our exit status, not by SIGINT.

    CPython notes "a KeyboardInterrupt left unhandled" in a process-wide flag whenever one
    passes out of code run from a string (exec or eval: a namedtuple or dataclass being made
    in a lazy import, say), and never clears it while no other such code runs. Under
    `python -m hermes_tui`, the interpreter then ends the process by SIGINT at exit whatever
    status we chose (seen: `eval` stopped by Ctrl-C sometimes died by signal instead of 130).
    Running code from a string clears the flag first thing, so an empty one is enough.
    """
    exec("")


def stopped_early(argv: Sequence[str]) -> int:
    """Ctrl-C before a command got going (while modules import): no traceback, exit 130, and
    `chat --json` still prints its one JSON object (`--stream-json` its result line)."""
    from hermes_tui.cli_chat import EXIT_STOPPED, stopped_outcome

    if "chat" in argv and "--json" in argv:
        print(json_for_terminal(stopped_outcome()))
    elif "chat" in argv and "--stream-json" in argv:
        print(json_for_terminal({"type": "result", **stopped_outcome()}))
    else:
        print("hermes-tui: stopped (Ctrl-C)", file=sys.stderr)
    return EXIT_STOPPED


def _run(args: argparse.Namespace) -> int:
    from hermes_tui.config import ConfigError
    from hermes_tui.core.sessions import SessionStoreError

    try:
        if args.command == "memory":
            return cmd_memory_show(args)
        if args.command == "acp":
            if args.print_config:
                from hermes_tui.acp.server import CLIENT_CONFIG

                print(CLIENT_CONFIG[args.print_config])
                return EXIT_OK
            from hermes_tui.acp.server import serve

            return serve(args.home, _overrides(args))
        if args.command in ("chat", "sessions", "review", "pending"):
            from hermes_tui import cli_chat

            handler = {
                "chat": cli_chat.cmd_chat,
                "sessions": cli_chat.cmd_sessions,
                "review": cli_chat.cmd_review,
                "pending": cli_chat.cmd_pending,
            }[args.command]
            return handler(args, _open_runtime)
        if args.command == "skills" and args.skills_command in ("install", "update", "uninstall"):
            from hermes_tui import cli_skills_hub

            return cli_skills_hub.run(args, _open_runtime)
        if args.command == "skills":
            from hermes_tui import cli_skills

            return cli_skills.cmd_skills(args, _open_runtime)
        if args.command == "insights":
            return cmd_insights(args)
        if args.command == "mcp":
            from hermes_tui import cli_mcp

            return cli_mcp.run(args, _open_runtime)
        if args.command == "curator":
            from hermes_tui import cli_skills

            return cli_skills.cmd_curator(args, _open_runtime)
        if args.command == "doctor":
            return cmd_doctor(args)
        if args.command == "eval":
            from hermes_tui import cli_eval

            return cli_eval.run(args)
        return cmd_app(args)
    except ConfigError as exc:
        print(f"hermes-tui: configuration error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SessionStoreError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return EXIT_CHECK_FAILED
    except BrokenPipeError:
        return EXIT_OK
