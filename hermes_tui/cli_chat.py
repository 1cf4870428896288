"""Headless faces of the agent: `chat -q` and the `sessions` commands.

`chat -q` prints the assistant's text to stdout and everything else (tool trace, notices,
learning notifications, "waiting for the server (Ns)") to stderr, ending stderr with
`session: <id>`. Ctrl-C cancels the turn at once, a blocked read included; what was streamed is
kept. stdout holds what the session stores: when it is not a terminal, each model call's text
is written when the call ends, so the text of an attempt that failed and was retried never
reaches it; on a terminal the text streams live, and a retry that discards it says so on stderr
and starts the new attempt on a new line.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_tui.cli_sink import ConsoleSink
from hermes_tui.core import events as ev
from hermes_tui.core.text import json_for_terminal, neutralise

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_PROVIDER = 0, 1, 2, 3
EXIT_STOPPED = 130  # a second Ctrl-C: the turn was abandoned, as shells report SIGINT
NO_EARLIER_SESSION = "--continue: there is no earlier session"


def chosen_session(runtime: Any, session_id: str | None, latest: bool) -> str | None | bool:
    """The session to open: the given id, the latest one (--continue), or None for a new one.

    False means --continue was asked for with no earlier session (the message is printed).
    """
    if not latest:
        return session_id
    info = runtime.sessions.latest()
    if info is None:
        print(f"hermes-tui: {NO_EARLIER_SESSION}", file=sys.stderr)
        return False
    return info.id


def _outcome(**fields: Any) -> dict[str, Any]:
    """The one JSON object `chat -q --json` prints, whatever happened: every key always there."""
    outcome: dict[str, Any] = {
        "session_id": None,
        "text": "",
        "reasoning": "",
        "interrupted": False,
        "error": None,
        "exit_code": EXIT_OK,
        "tool_calls": 0,
        "tool_errors": 0,
        # The turn's tokens, failed and retried attempts included; the background reviews it
        # started are counted apart.
        "usage": {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0},
        "review_usage": {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0},
    }
    outcome.update(fields)
    return outcome


def stopped_outcome(session_id: str | None = None) -> dict[str, Any]:
    """Ctrl-C before the turn began: there was nothing to cancel."""
    return _outcome(
        session_id=session_id,
        interrupted=True,
        error="stopped before the turn began (Ctrl-C)",
        exit_code=EXIT_STOPPED,
    )


def _custom_command(runtime: Any, session: Any, text: str, show: bool) -> str | dict[str, Any]:
    """`chat -q "/name args"`: a prompt command's expanded text, or (an exec quick command,
    run through the terminal tool with this run's approvals) the outcome with its output."""
    from pathlib import Path

    from hermes_tui.core.custom_commands import (
        AliasLoop,
        expand,
        load_custom_commands,
        resolve,
        run_quick,
    )

    commands = load_custom_commands(
        Path.cwd(),
        runtime.home,
        runtime.config.hermes_sections,
        is_skill=lambda name: runtime.skills.get(name) is not None,
    )
    try:
        found = resolve(commands, text)
    except AliasLoop as exc:
        return _outcome(session_id=session.id, error=str(exc), exit_code=EXIT_USAGE)
    if found is None:
        return text
    command, arguments = found
    if command.kind == "prompt":
        return expand(command, arguments)
    if command.kind == "alias":
        error = f"/{command.name} is an alias of {command.body}, which chat -q cannot run"
        return _outcome(session_id=session.id, error=error, exit_code=EXIT_USAGE)
    run = run_quick(command, session.agent.registry, session.agent.context)
    if show:  # --json carries it in "text"
        print(neutralise(run.text))
    code = EXIT_OK if run.ok else EXIT_INTERNAL
    return _outcome(session_id=session.id, text=run.text, exit_code=code)


class DeferredInterrupt:
    """Ctrl-C during start-up is noted, not raised, until `end()`.

    Start-up imports the provider's SDK on a thread while the main thread builds the session
    and then waits for that import; a KeyboardInterrupt raised inside the import machinery's
    locks can leave them broken, so that the process hangs or crashes on its way out (seen on
    Python 3.11). Noting the key instead costs at most the rest of start-up (about a second).
    Only in the main thread, where signal handlers live.
    """

    def __init__(self) -> None:
        self.pressed = False
        self._previous: Any = None
        main = threading.current_thread() is threading.main_thread()
        # A job started with SIGINT ignored (`cmd &`) keeps ignoring it.
        if main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._note)

    def _note(self, *_: object) -> None:
        self.pressed = True

    def end(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


class QuietStart:
    """The cyclic garbage collector kept out of a one-shot start-up.

    Start-up (the SDK import, config, stores, the system prompt) makes a few hundred thousand
    objects that live until the process ends. With the collector on, every full pass walks
    them again, and so does the one at interpreter exit: about a quarter of a cold `chat -q`.
    So it is off until the session is open; then what exists is frozen (`gc.freeze`: never
    walked again, never collected) and collection resumes for the turn and any review. Only
    when the process is ours (`cli.entry`): a host's objects must not be frozen by a call.
    """

    def __init__(self, whole_process: bool) -> None:
        self._pending = whole_process and gc.isenabled()
        if self._pending:
            gc.disable()

    def end(self) -> None:
        if self._pending:
            self._pending = False
            gc.freeze()
            gc.enable()


def cmd_chat(args: argparse.Namespace, open_runtime) -> int:
    """Run one turn; with --json print one JSON object in every outcome, and never a traceback."""
    from hermes_tui.config import ConfigError
    from hermes_tui.core.sessions import SessionStoreError

    quiet = QuietStart(getattr(args, "whole_process", False))
    deferred = DeferredInterrupt()
    opened: dict[str, Any] = {}

    def started() -> None:
        quiet.end()
        deferred.end()

    try:
        outcome = _run_chat(args, open_runtime, started, opened, deferred)
    except KeyboardInterrupt:
        # Ctrl-C before the turn began, outside the deferral (not the main thread).
        outcome = stopped_outcome(opened.get("session_id"))
    except (ConfigError, SessionStoreError):
        raise  # said in one clear line, with their own exit codes (cli._run)
    except Exception as exc:  # a bug while starting: one line plus a log file, still one object
        runtime = opened.get("runtime")
        where = f" (details in {_log_crash(runtime, exc)})" if runtime is not None else ""
        outcome = _outcome(
            session_id=opened.get("session_id"),
            error=f"unexpected error: {type(exc).__name__}: {str(exc)[:300]}{where}",
            exit_code=EXIT_INTERNAL,
        )
    finally:
        quiet.end()
        deferred.end()
    if outcome["error"] and outcome["exit_code"] != EXIT_PROVIDER:  # the sink showed those
        print(f"hermes-tui: {outcome['error']}", file=sys.stderr)
    if getattr(args, "stream_json", False):
        from hermes_tui.cli_stream import StreamJsonSink

        StreamJsonSink(sys.stdout).result(outcome)
    elif args.json:
        print(json_for_terminal(outcome))
    if outcome["session_id"]:
        print(f"session: {outcome['session_id']}", file=sys.stderr)
    return outcome["exit_code"]


def _run_chat(
    args: argparse.Namespace,
    open_runtime,
    started: Callable[[], None],
    opened: dict[str, Any],
    deferred: DeferredInterrupt,
) -> dict[str, Any]:
    from hermes_tui.config import ConfigError
    from hermes_tui.core.llm.base import ProviderNotConfigured
    from hermes_tui.core.sessions import SessionError
    from hermes_tui.core.tools.approvals import ApprovalRequest, Decision

    if not args.query.strip():
        return _outcome(
            error="chat -q needs a message: the one given is empty", exit_code=EXIT_USAGE
        )
    sink = _sink(args)
    try:
        runtime = open_runtime(args, sink)
    except ConfigError as exc:
        return _outcome(error=f"configuration error: {exc}", exit_code=EXIT_USAGE)
    opened["runtime"] = runtime
    from hermes_tui.core.llm.select import preload_sdk

    preload_sdk(runtime.config)  # the SDK imports while the session and prompt are built
    if args.continue_:
        latest = runtime.sessions.latest()
        if latest is None:
            return _outcome(error=NO_EARLIER_SESSION, exit_code=EXIT_USAGE)
        session_id = latest.id
    else:
        session_id = args.session

    def ask(request: ApprovalRequest) -> Decision:
        """No human to ask here: --yolo answers once, anything else is refused; the model is
        told why, and the sink says what was refused or let through."""
        told = (
            f"--yolo: running without approval ({request.reason}): {request.what}"
            if args.yolo
            else f"refused (needs approval: {request.reason}; run with --yolo to allow): "
            f"{request.what}"
        )
        sink.approval(request.what, request.reason, bool(args.yolo), told)
        return "once" if args.yolo else "deny"

    try:
        session = runtime.open_session(
            session_id,
            ask=ask,
            reviewer=runtime.session_reviewer(),
        )
    except (ProviderNotConfigured, SessionError) as exc:
        return _outcome(error=str(exc), exit_code=EXIT_USAGE)
    opened["session_id"] = session.id
    from hermes_tui.core.skills.library import SkillError

    text = args.query
    if text.startswith("/"):  # a custom command (.hermes/commands, <home>/commands, quick_commands)
        found = _custom_command(runtime, session, text, show=not getattr(args, "json", False))
        if isinstance(found, dict):
            return found
        text = found
    try:
        # Each -s skill wraps the request, the first named outermost (read first).
        for name in reversed(getattr(args, "skill", None) or []):
            tools = (session.agent.registry, session.agent.context)  # for inline shell
            text = runtime.skill_invocation(name, text, session.id, tools)
    except SkillError as exc:
        return _outcome(session_id=session.id, error=str(exc), exit_code=EXIT_USAGE)
    started()
    if deferred.pressed:  # Ctrl-C while starting: the turn never begins
        return stopped_outcome(session.id)
    reviews_before = session.review_totals

    cancel, finished = threading.Event(), threading.Event()
    done: dict[str, Any] = {}

    def turn() -> None:
        try:
            # Titled by the user's own words, not by a skill or command they expand to.
            done["result"] = session.submit(text, cancel, title=args.query)
        except Exception as exc:  # a bug: reported as one line plus a log file, not a traceback
            done["crash"] = exc
            done["log"] = _log_crash(runtime, exc)
        finally:
            finished.set()

    threading.Thread(target=turn, daemon=True).start()
    stopped = _wait(finished, cancel, sink)
    result = done.get("result")
    if result is None:
        if "crash" in done:
            crash = done["crash"]
            error = f"unexpected error: {type(crash).__name__}: {crash} (details in {done['log']})"
            return _outcome(session_id=session.id, error=error, exit_code=EXIT_INTERNAL)
        # The turn's thread may still be writing: close the stored conversation now, so the
        # next `--session` turn does not send two user messages in a row.
        session.abandon_turn()
        return _outcome(
            session_id=session.id,
            interrupted=True,
            error="stopped before the turn ended (Ctrl-C twice)",
            exit_code=EXIT_STOPPED,
        )
    if isinstance(sink, ConsoleSink) and not args.json and result.text[-1:] not in ("", "\n"):
        sys.stdout.write("\n")
    session.close()
    if not stopped and _wait_for_background(runtime, sink, cancel):
        # Closed by hand, not left to a finalizer: QuietStart froze the runtime out of the
        # collector, and a clean close folds sessions.db-wal back into the database.
        runtime.sessions.close()
    # A secret the model split between its thought and its reply is one secret (redacted here
    # as the sink redacted it while it streamed).
    reasoning, text = runtime.redactor.pair(result.reasoning, result.text)
    return _outcome(
        session_id=session.id,
        text=text,
        reasoning=reasoning,
        interrupted=result.interrupted,
        error=result.error.user_message() if result.error else None,
        exit_code=EXIT_PROVIDER if result.error else EXIT_OK,
        tool_calls=result.tool_calls,
        tool_errors=result.tool_errors,
        usage={
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "cached_tokens": result.usage.cached_tokens,
        },
        review_usage={
            "input_tokens": session.review_totals.input_tokens - reviews_before.input_tokens,
            "output_tokens": session.review_totals.output_tokens - reviews_before.output_tokens,
            "cached_tokens": session.review_totals.cached_tokens - reviews_before.cached_tokens,
        },
    )


def _sink(args: argparse.Namespace) -> Any:
    """--stream-json: every event as a JSON line; else the console printer (no reply text on
    stdout with --json, which prints one object at the end)."""
    if getattr(args, "stream_json", False):
        from hermes_tui.cli_stream import StreamJsonSink

        return StreamJsonSink(sys.stdout)
    return ConsoleSink(sys.stdout, sys.stderr, stream_text=not args.json)


def _wait(finished: threading.Event, cancel: threading.Event, sink: Any) -> bool:
    """Wait for the turn. Ctrl-C cancels it; a second Ctrl-C stops waiting (True).

    An Event, not Thread.join: a join interrupted by Ctrl-C can leave the thread looking
    finished on Python 3.11.
    """
    try:
        while not finished.wait(0.1):
            pass
        return False
    except KeyboardInterrupt:
        cancel.set()
        sink(ev.Notice("warning", "cancelling… (Ctrl-C again stops waiting)"))
    try:
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        return True
    return False


def _wait_for_background(runtime: Any, sink: Any, cancel: threading.Event) -> bool:
    """Wait for the reviews this turn started, then run a due curator; True when nothing of
    ours is still running."""
    try:
        if not runtime.wait_for_reviews(runtime.config.review.timeout_s):
            sink(
                ev.Notice(
                    "warning",
                    f"a review is still running after {runtime.config.review.timeout_s:g}s; "
                    "it stops with this process",
                )
            )
            return False
        if not cancel.is_set() and runtime.curator_due():
            runtime.run_curator(consolidate=False)
    except KeyboardInterrupt:
        sink(ev.Notice("warning", "stopped waiting for the background review"))
        return False
    return True


def _log_crash(runtime: Any, exc: BaseException) -> str:
    """Append the traceback of an unexpected error to <home>/logs/errors.log; return its path."""
    from hermes_tui.core.errors_log import log_exception
    from hermes_tui.core.storage import plain_os_error

    redactor = runtime.result_limits().redactor
    try:
        return str(log_exception(runtime.home, exc, "chat -q", redactor.text))
    except OSError as failed:  # a home that cannot be written to: say so instead
        return f"not logged: {plain_os_error(failed)}"


def cmd_sessions(args: argparse.Namespace, open_runtime) -> int:
    from hermes_tui.core.sessions import SessionError

    runtime = open_runtime(args)  # notices (a database moved aside) go to stderr
    catalog = runtime.catalog  # ours and Hermes' (state.db, read-only)
    try:
        if args.sessions_command == "list":
            entries = catalog.list(args.limit)
            if args.json:
                print(
                    json_for_terminal(
                        [
                            {
                                "id": e.info.id,
                                "title": e.info.title,
                                "messages": e.info.message_count,
                                "provider": e.info.provider,
                                "model": e.info.model,
                                "parent_id": e.info.parent_id,
                                "updated_at": e.info.updated_at,
                                "origin": e.origin,
                                **({"source": e.source} if e.source else {}),
                            }
                            for e in entries
                        ],
                        indent=2,
                    )
                )
                return EXIT_OK
            for e in entries:
                s = e.info
                mark = f"  [Hermes {e.source}]" if e.origin == "hermes" else ""
                print(f"{s.id}  {s.message_count:>4} msgs  {s.provider}/{s.model}  {s.title}{mark}")
            if not entries:
                print("no sessions yet")
            return EXIT_OK
        if args.sessions_command == "search":
            hits = catalog.search(args.query, limit=args.limit)
            if args.json:
                print(json_for_terminal([h.__dict__ for h in hits], indent=2))
                return EXIT_OK
            for hit in hits:
                print(f"{hit.session_id} #{hit.message_id} {hit.role}: {hit.snippet}")
            if not hits:
                print("no matches")
            return EXIT_OK
        entry = catalog.get(args.id)
        info = entry.info
        messages = catalog.messages(info.id)
        if args.sessions_command == "export" and args.format == "markdown":
            from hermes_tui.core.export import session_markdown

            print(session_markdown(info, [s.message for s in messages]), end="")
            return EXIT_OK
        if args.sessions_command == "export":
            for stored in messages:
                print(json_for_terminal(stored.message.to_openai()))
            return EXIT_OK
        print(
            f"session {info.id}: {info.title}\n{info.provider}/{info.model}, {len(messages)} messages, "
            f"tokens in {info.input_tokens:,} (cached {info.cached_tokens:,}) out {info.output_tokens:,}"
            + (_review_tokens(runtime.sessions, info.id) if entry.origin != "hermes" else "")
        )
        for stored in messages:
            message = stored.message
            text = message.content
            if message.reasoning:  # shown apart, as the app does: it is not the answer
                # Redacted before it is cut: a secret cut in two would match in neither half.
                thought = runtime.redactor.text(" ".join(message.reasoning.split()))
                text = f"  (thought: {thought[:300]}{'…' if len(thought) > 300 else ''})\n{text}"
            for call in message.tool_calls:
                text += f"\n  → {call.name} {call.arguments}"
            print(
                f"\n[{stored.id}] {message.role}{' (' + message.tool_name + ')' if message.tool_name else ''}:\n{text}"
            )
        return EXIT_OK
    except SessionError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _review_tokens(store: Any, session_id: str) -> str:
    """The background reviews' tokens, apart from the turns' (nothing when there were none)."""
    review = store.usage_totals(session_id, review=True)
    if not (review.input_tokens or review.output_tokens):
        return ""
    return (
        f"; reviews: in {review.input_tokens:,} (cached {review.cached_tokens:,}) "
        f"out {review.output_tokens:,}"
    )


def cmd_review(args: argparse.Namespace, open_runtime) -> int:
    from pathlib import Path

    from hermes_tui.core.llm.base import ProviderNotConfigured
    from hermes_tui.core.sessions import SessionError

    sink = ConsoleSink(sys.stdout, sys.stderr)
    runtime = open_runtime(args, sink)
    try:
        info = runtime.sessions.get(args.session_id)
        runtime.provider()
    except (SessionError, ProviderNotConfigured) as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    history = [stored.message for stored in runtime.sessions.messages(info.id)]
    record = runtime.reviewer().run(
        info.system_prompt, history, info.id, Path.cwd(), args.kind, args.focus
    )
    # The outcome is what was written (the sink printed it); the model's own words can claim
    # more than it did, so they are quoted as its words, not stated as the result.
    if record.reply:
        print(f"the review said: {record.reply}")
    return EXIT_OK if record.status == "done" else EXIT_PROVIDER


def cmd_pending(args: argparse.Namespace, open_runtime) -> int:
    import difflib

    from hermes_tui.core.pending import PendingError, PendingRefused, quarantine_line, why_held

    runtime = open_runtime(args, ConsoleSink(sys.stdout, sys.stderr))
    try:
        if args.pending_command == "list":
            records = runtime.pending.list()
            if args.json:
                print(json_for_terminal([r.__dict__ for r in records], indent=2))
                return EXIT_OK
            if not records:
                print("nothing pending")
            else:  # where they are meanwhile: not in any session's system prompt
                print(f"{quarantine_line(len(records))}: hermes-tui pending approve ID")
            for record in records:
                made_by = f"review {record.review_id}" if record.review_id else record.origin
                # Neutralised here too, not only by main()'s stream wrapper: a held write is
                # exactly the text an attacker chose (the diff of a tainted memory or skill write).
                print(
                    neutralise(
                        f"{record.id}  {record.kind} {record.target} {record.action} ({made_by})"
                    )
                )
                for line in why_held(record):
                    print("    " + neutralise(line))
                diff = difflib.unified_diff(
                    (record.before or "").splitlines(),
                    (record.after or "").splitlines(),
                    "before",
                    "after",
                    lineterm="",
                )
                for line in diff:
                    print("    " + neutralise(line))
            return EXIT_OK
        if args.pending_command == "approve":
            if not _human_at_a_terminal():
                print(
                    "hermes-tui: pending approve needs a human at a terminal (stdin is not a "
                    "terminal, or there is no controlling terminal): a held write is approved "
                    "by a person, never by a command or an agent. Run it yourself, or use "
                    "/pending in the app.",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            try:
                runtime.approve_pending(args.id)
            except PendingRefused as exc:
                print(f"hermes-tui: not applied: {exc}", file=sys.stderr)
                return 1
            print(f"{args.id}: applied")
            return EXIT_OK
        record = runtime.pending.reject(args.id)
        print(f"{record.id}: rejected (kept in pending/.rejected)")
        return EXIT_OK
    except PendingError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return 1


def _human_at_a_terminal() -> bool:
    """stdin is a terminal and the process has a controlling terminal (a sandboxed command
    runs in a new session with stdin from /dev/null, so it has neither)."""
    if not sys.stdin.isatty():
        return False
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY))
    except OSError:
        return False
    return True
