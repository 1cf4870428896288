"""Command line: `hermes-tui` and its subcommands (DESIGN.md section 4).

Imports are lazy: `--version`, `--help` and `memory show` must not pay for textual, openai or
anthropic. Exit codes: 0 ok, 1 a check failed, 2 usage or configuration error, 3 provider failure.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hermes_tui.cli_quick import parse_chat
from hermes_tui.core.text import json_for_terminal

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE, EXIT_PROVIDER = 0, 1, 2, 3


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
            "secrets": store.secrets_notice(target),
        }
    if args.json:
        print(json_for_terminal(report, indent=2))
        return EXIT_OK
    for target, info in report.items():
        print(
            f"{FILENAMES[target]}  {info['percent']}% — {info['chars']:,}/{info['limit']:,} chars  ({info['path']})"
        )
        for problem in filter(None, (info["problem"], info["secrets"])):
            print(f"  ! {problem}")
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
    args = parse_chat(sys.argv[1:] if argv is None else argv)
    if args is None:  # anything but a plainly written `chat -q` (cli_quick.py)
        from hermes_tui.cli_args import build_parser

        args = build_parser().parse_args(argv)
    args.whole_process = whole_process
    # Replies, tool output, memory and skills reach these streams: a terminal must not obey them,
    # and no secret is printed (key shapes now, the home's known secrets once it is open). The
    # app draws on the terminal itself; a bug before it runs is printed the same way.
    from hermes_tui.core.redaction import redact_shapes
    from hermes_tui.core.text import NeutralisedStream

    out, err = sys.stdout, sys.stderr
    if args.command is not None:
        sys.stdout = NeutralisedStream(out, redact_shapes)
        sys.stderr = NeutralisedStream(err, redact_shapes)
    try:
        return _run(args)
    except Exception:  # a bug: its traceback is redacted like everything else printed here
        from hermes_tui.crash_report import crash_report

        report = crash_report(args.home)
        (sys.stderr if args.command is not None else NeutralisedStream(err)).write(report)
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
                from hermes_tui.acp.server import client_config

                print(client_config(args.print_config))
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
