"""`hermes-tui skills install | update | uninstall`: skills from a folder, an archive or git."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE = 0, 1, 2


def add_parsers(skill_commands: Any, common: argparse.ArgumentParser) -> None:
    install = skill_commands.add_parser(
        "install",
        help="install skills from a folder, a .zip/.tar.gz (path or https URL) or a git repo",
        description=(
            "SOURCE is a folder, an archive (path or https URL) or a git repository (URL, or any "
            "source with #REF). Append #REF to pick a tag, branch or commit and :SUBDIR for a "
            "folder inside the source (e.g. repo.git#v1.2:skills, or archive.tar.gz#:skills). "
            "Every skill is validated and security-scanned before anything is written."
        ),
        parents=[common],
    )
    install.add_argument("source")
    install.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME",
        help="install this skill of the source (repeat for several)",
    )
    install.add_argument("--all", action="store_true", help="install every skill in the source")
    install.add_argument("--category", help="category folder to install into")
    install.add_argument(
        "--force",
        action="store_true",
        help="install skills the scan rated 'caution' from a community source",
    )
    update = skill_commands.add_parser(
        "update",
        help="re-fetch hub skills, show the diff, rescan and apply",
        parents=[common],
    )
    update.add_argument("names", nargs="*", metavar="NAME", help="default: every hub skill")
    update.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    update.add_argument(
        "--force",
        action="store_true",
        help="apply over local edits, or a 'caution' scan",
    )
    uninstall = skill_commands.add_parser(
        "uninstall", help="archive a hub skill and drop it from the lock", parents=[common]
    )
    uninstall.add_argument("name")


def run(args: argparse.Namespace, open_runtime: Callable[[argparse.Namespace], Any]) -> int:
    from hermes_tui.core.skills.install import InstallError

    runtime = open_runtime(args)
    installer = runtime.skill_installer()
    try:
        if args.skills_command == "install":
            return _install(args, installer)
        if args.skills_command == "update":
            return _update(args, installer)
        path = installer.uninstall(args.name)
        print(f"{args.name}: uninstalled (archived to {path}; `skills restore {args.name}`)")
        return EXIT_OK
    except InstallError as exc:
        print(f"hermes-tui: {exc}", file=sys.stderr)
        return EXIT_CHECK_FAILED


def _install(args: argparse.Namespace, installer: Any) -> int:
    from hermes_tui.core.skills.install import fetch, parse_source

    spec = parse_source(args.source, Path.cwd())
    with fetch(spec) as fetched:
        candidates = installer.candidates(fetched, args.category)
        if not candidates:
            print(f"hermes-tui: {spec} holds no SKILL.md", file=sys.stderr)
            return EXIT_CHECK_FAILED
        chosen = _choose(candidates, args)
        if chosen is None:
            return EXIT_USAGE
        for result in installer.install(fetched, chosen, force=args.force):
            origin = f" @ {fetched.commit[:12]}" if fetched.commit else ""
            print(f"installed {result.name} → {result.path} (scan: {result.verdict}){origin}")
            if result.notice:
                print(f"hermes-tui: notice: {result.name}: {result.notice}", file=sys.stderr)
    return EXIT_OK


def _choose(candidates: list[Any], args: argparse.Namespace) -> list[Any] | None:
    by_name = {c.name: c for c in candidates}
    if args.name:
        missing = [n for n in args.name if n not in by_name]
        if missing:
            print(f"hermes-tui: not in this source: {', '.join(missing)}", file=sys.stderr)
            _list(candidates, sys.stderr)
            return None
        return [by_name[n] for n in args.name]
    if args.all or len(candidates) == 1:
        return candidates
    print(
        f"hermes-tui: this source holds {len(candidates)} skills; "
        "choose with --name NAME (repeatable) or --all:",
        file=sys.stderr,
    )
    _list(candidates, sys.stderr)
    return None


def _list(candidates: list[Any], stream: Any) -> None:
    for candidate in candidates:
        print(
            f"  {candidate.name}  ({candidate.relative}, scan: {candidate.verdict})"
            f"  {candidate.description[:70]}",
            file=stream,
        )
        if candidate.verdict != "safe":
            print(f"      {candidate.explain()}", file=stream)


def _update(args: argparse.Namespace, installer: Any) -> int:
    results = installer.update(args.names, force=args.force, dry_run=args.dry_run)
    if not results:
        print("no hub skills installed")
    failed = False
    for result in results:
        print(
            f"{result.name}: {result.status}" + (f" ({result.message})" if result.message else "")
        )
        if result.diff:
            print(result.diff, end="")
        failed = failed or result.status in ("refused", "missing")
    return EXIT_CHECK_FAILED if failed else EXIT_OK
