"""`hermes-tui skills list | view | pin | unpin | archive | restore` and `hermes-tui curator`:
the skill library and the curator by hand (installing from a hub is cli_skills_hub.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hermes_tui.core.text import json_for_terminal

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE = 0, 1, 2


def cmd_skills(args: argparse.Namespace, open_runtime: Callable[..., Any]) -> int:
    from hermes_tui.core.skills.library import DEFAULT_CATEGORY, SkillError, SkillNotFound

    runtime = open_runtime(args)
    library = runtime.skills
    action = args.skills_command
    try:
        if action == "list":
            usage = library.usage.all()
            rows = []
            for skill in library.scan():
                record = usage.get(skill.name, {})
                rows.append(
                    {
                        "name": skill.name,
                        "category": skill.category or DEFAULT_CATEGORY,
                        "provenance": library.provenance(skill),
                        "pinned": bool(record.get("pinned", False)),
                        "state": record.get("state", "active"),
                        "uses": int(record.get("use_count", 0)),
                        "broken": skill.error,
                        "path": str(skill.skill_md),
                        "address": skill.address,
                        "duplicate_of": str(skill.duplicate_of) if skill.duplicate_of else None,
                        "warnings": list(skill.warnings),
                    }
                )
            if args.json:
                print(json_for_terminal(rows, indent=2))
                return EXIT_OK
            if not rows:
                print("no skills yet")
            for row in rows:
                flags = " pinned" if row["pinned"] else ""
                where = (
                    row["address"] if row["duplicate_of"] else f"{row['category']}/{row['name']}"
                )
                line = f"{where}  [{row['provenance']}, {row['state']}{flags}, {row['uses']} uses]"
                if row["duplicate_of"]:
                    line += f"\n  ! duplicate: {row['name']!r} is already {row['duplicate_of']}"
                line += "".join(f"\n  ~ {warning}" for warning in row["warnings"])
                print(line + (f"\n  ! broken: {row['broken']}" if row["broken"] else ""))
            return EXIT_OK
        if action == "view":
            view = library.view(args.name, args.file, record=False)
            if args.file:
                print(view.content, end="" if view.content.endswith("\n") else "\n")
            else:
                print(library.require(args.name).skill_md.read_text(encoding="utf-8"), end="")
            return EXIT_OK
        if action in ("pin", "unpin"):
            library.set_pinned(args.name, action == "pin")
            print(f"{args.name}: {action}ned")
            return EXIT_OK
        if action == "archive":
            result = library.archive(args.name, origin="user")
            print(f"{args.name}: archived to {result.path}")
            return EXIT_OK
        result = library.restore(args.name, origin="user")
        print(f"{args.name}: restored to {result.path}")
        return EXIT_OK
    except SkillError as exc:
        hint = "; `hermes-tui skills list` shows them all" if isinstance(exc, SkillNotFound) else ""
        print(f"hermes-tui: {exc}{hint}", file=sys.stderr)
        return EXIT_CHECK_FAILED


def _confirmed(question: str, assume_yes: bool) -> bool | None:
    """True/False from the user; None when nobody can answer (no terminal and no --yes)."""
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        return None
    try:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _curator_by_hand(runtime: Any, args: argparse.Namespace) -> int:
    """curator pause | resume | list-archived | restore | prune | backup | rollback."""
    from hermes_tui.core.skills.curator import CuratorError
    from hermes_tui.core.skills.library import SkillError

    curator = runtime.curator()
    command = args.curator_command
    try:
        if command in ("pause", "resume"):
            curator.set_paused(command == "pause")
            print(
                "curator paused: scheduled runs stop until `hermes-tui curator resume` "
                "(an explicit `curator run` still works)"
                if command == "pause"
                else "curator resumed: scheduled runs happen again"
            )
        elif command == "list-archived":
            return _list_archived(runtime, args.json)
        elif command == "restore":
            runtime.skills.restore(args.name, origin="user")
            print(f"restored {args.name}")
        elif command == "prune":
            days = curator.config.archive_after_days if args.days is None else args.days
            plan = curator.prune_plan(days)
            for action in plan:
                print(
                    f"{'would archive' if args.dry_run else 'archive'}: {action.name} ({action.reason})"
                )
            if not plan:
                print(f"no agent-made, unpinned skill has been unused for {days:g} days")
                return EXIT_OK
            if args.dry_run:
                return EXIT_OK
            answer = _confirmed(f"Archive these {len(plan)} skill(s)?", args.yes)
            if answer is None:
                print(
                    "hermes-tui: prune would archive the skills above; run it again with --yes "
                    "to confirm (nothing was changed)",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            if not answer:
                print("nothing was changed")
                return EXIT_OK
            report = curator.prune(days)
            print(f"{report.summary()}; backup: {report.backup}; report: {report.report}")
            return EXIT_CHECK_FAILED if report.errors else EXIT_OK
        elif command == "backup":
            backup = curator.backup(args.reason)
            print(f"backup {backup.id}: {backup.skills} skill(s) in {backup.path}")
        elif command == "rollback":
            backups = curator.backups()
            if args.list or not backups:
                for backup in backups:
                    when = datetime.fromtimestamp(backup.created_at, UTC).isoformat(
                        timespec="seconds"
                    )
                    print(f"{backup.id}  {when}  {backup.skills} skill(s)  {backup.reason}")
                if not backups:
                    print("no curator backups yet; `hermes-tui curator backup` makes one")
                return EXIT_OK
            target = args.backup_id or backups[0].id
            answer = _confirmed(f"Replace skills/ with backup {target}?", args.yes)
            if answer is None:
                print(
                    f"hermes-tui: rollback would replace skills/ with backup {target}; run it "
                    "again with --yes to confirm (nothing was changed)",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            if not answer:
                print("nothing was changed")
                return EXIT_OK
            restored, safety = curator.rollback(args.backup_id)
            print(
                f"skills/ rolled back to backup {restored.id}; what it replaced is backup "
                f"{safety.id} (`curator rollback --id {safety.id}` undoes this)"
            )
    except (CuratorError, SkillError) as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _list_archived(runtime: Any, as_json: bool) -> int:
    rows = []
    for name, path in sorted(runtime.skills.archived_skills().items()):
        record = runtime.skills.usage.get(name)
        rows.append(
            {
                "name": name,
                "archived_at": record.get("archived_at"),
                "absorbed_into": record.get("absorbed_into"),
                "path": str(path),
            }
        )
    if as_json:
        print(json_for_terminal(rows, indent=2))
    elif not rows:
        print("no archived skills")
    for row in [] if as_json else rows:
        into = f", absorbed into {row['absorbed_into']}" if row["absorbed_into"] else ""
        print(f"{row['name']}  archived {row['archived_at'] or '(time unknown)'}{into}")
    return EXIT_OK


def cmd_curator(args: argparse.Namespace, open_runtime: Callable[..., Any]) -> int:
    from hermes_tui.cli_chat import ConsoleSink
    from hermes_tui.core.llm.base import ProviderNotConfigured

    runtime = open_runtime(args, ConsoleSink(sys.stdout, sys.stderr))
    if args.curator_command not in ("status", "run"):
        return _curator_by_hand(runtime, args)
    if args.curator_command == "status":
        status = runtime.curator().status()
        if args.json:
            print(json_for_terminal(status, indent=2))
            return EXIT_OK
        paused = (
            " (paused: `hermes-tui curator resume` lets it run again)" if status["paused"] else ""
        )
        print(
            f"enabled: {status['enabled']}{paused}; last run: {status['last_run_at'] or 'never'}; next: {status['next_due_at']}"
        )
        print(f"agent-created skills under care: {status['agent_skills']}")
        for action in status["pending_actions"]:
            print(
                f"  would {action['action'].replace('_', ' ')}: {action['name']} ({action['reason']})"
            )
        return EXIT_OK
    try:
        report = runtime.run_curator(dry_run=args.dry_run, consolidate=args.consolidate or None)
    except ProviderNotConfigured as exc:
        print(f"hermes-tui: --consolidate needs a model: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for action in report.actions:
        print(
            f"{'would ' if report.dry_run else ''}{action.action.replace('_', ' ')}: {action.name} ({action.reason})"
        )
    print(f"report: {report.report}")
    return EXIT_CHECK_FAILED if report.errors else EXIT_OK
