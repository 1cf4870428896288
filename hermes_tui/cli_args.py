"""The command line's grammar: `hermes-tui`'s flags and subcommands (DESIGN.md section 4).

A run uses one command, so each command's parser is built when it is chosen (or its help is
shown), not all forty at every start: the top-level help lists each command from its name and
help line alone, and an unknown command is still an error naming all of them. Only argparse is
imported here; the modules that add a command's arguments (cli_eval, cli_mcp, cli_skills_hub)
are imported when that command is built.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from hermes_tui import __version__

Build = Callable[[argparse.ArgumentParser, argparse.ArgumentParser], None]


class _BuiltWhenChosen(dict):
    """Command name -> its parser, made by its recipe on first lookup. Membership and order
    (what argparse's choice check and its 'invalid choice' message read) need no parser."""

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        value = super().__getitem__(name)
        if not isinstance(value, argparse.ArgumentParser):
            value = value()
            self[name] = value
        return value


class _Commands(argparse._SubParsersAction):
    """`add_subparsers(action=_Commands)`: subcommands whose parsers are built when chosen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._name_parser_map = self.choices = _BuiltWhenChosen()

    def add_command(
        self, name: str, help: str, build: Build, common: argparse.ArgumentParser
    ) -> None:
        """What `add_parser(name, help=help, parents=[common])` and then `build` would make."""
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        prog = f"{self._prog_prefix} {name}"

        def make() -> argparse.ArgumentParser:
            parser = self._parser_class(prog=prog, parents=[common])
            build(parser, common)
            return parser

        self._name_parser_map[name] = make


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
    commands = parser.add_subparsers(action=_Commands, dest="command", metavar="COMMAND")
    for name, help, build in COMMANDS:
        commands.add_command(name, help, build, common)
    return parser


def _memory(memory: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    memory_commands = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    show = memory_commands.add_parser(
        "show", help="print MEMORY.md and USER.md with usage", parents=[common]
    )
    show.add_argument("--target", choices=["memory", "user"], help="only this store")
    show.add_argument("--json", action="store_true", help="machine-readable output")


def _chat(chat: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
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


def _acp(acp: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    acp.add_argument(
        "--print-config",
        choices=("zed", "jetbrains", "toad"),
        help="print the settings snippet that makes the client start hermes-tui",
    )


def _sessions(sessions: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
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


def _review(review: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    review.add_argument("session_id")
    review.add_argument("--focus", help="what the review should look at")
    review.add_argument("--kind", choices=["memory", "skills", "combined"], default="combined")


def _pending(pending: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
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


def _curator(curator: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
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


def _skills(skills: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
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


def _insights(insights: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    insights.add_argument("--days", type=int, default=30, help="how far back (default 30)")
    insights.add_argument("--json", action="store_true", help="machine-readable output")


def _mcp(mcp: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    from hermes_tui import cli_mcp

    cli_mcp.add_arguments(mcp, common)


def _eval(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    from hermes_tui import cli_eval

    cli_eval.add_arguments(parser)


def _doctor(doctor: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    doctor.add_argument(
        "--ping",
        action="store_true",
        help="send one tiny real request: latency, model, streaming and tool calls",
    )


# (name, help line in the command list, what adds its arguments), in the order help lists them.
COMMANDS: tuple[tuple[str, str, Build], ...] = (
    ("memory", "show the agent's memory", _memory),
    ("chat", "run one user turn headless and print the reply", _chat),
    ("acp", "serve the Agent Client Protocol on stdio (Zed, JetBrains, Toad)", _acp),
    ("sessions", "list, search, show and export sessions", _sessions),
    ("review", "run a background review of a session now", _review),
    ("pending", "writes staged for approval", _pending),
    ("curator", "keep agent-made skills healthy", _curator),
    ("skills", "list, view, pin and archive skills", _skills),
    (
        "insights",
        "is the agent getting better? sessions, skills, memory, reviews over time",
        _insights,
    ),
    ("mcp", "MCP servers: status and tools", _mcp),
    ("eval", "measure whether learning helps: a task suite run with and without it", _eval),
    ("doctor", "check config, home, memory files and SQLite FTS5", _doctor),
)
