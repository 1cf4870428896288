"""`hermes-tui mcp list | test NAME`: the configured MCP servers, started, listed and stopped."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from hermes_tui.core.text import json_for_terminal

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE = 0, 1, 2


def add_arguments(mcp: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """The `mcp` command's actions (cli_args lists the command)."""
    actions = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list", help="start every configured server, show status and tool counts", parents=[common]
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    test = actions.add_parser(
        "test", help="start one server, list its tools with their schemas, stop", parents=[common]
    )
    test.add_argument("name")
    test.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace, open_runtime: Callable[[argparse.Namespace], Any]) -> int:
    runtime = open_runtime(args)
    manager = runtime.mcp
    if manager is None:
        print("no MCP servers configured (add `mcp_servers:` to config.yaml)")
        return EXIT_OK if args.mcp_command == "list" else EXIT_USAGE
    if args.mcp_command == "test" and args.name not in manager.states:
        names = ", ".join(manager.states) or "none"
        print(
            f"hermes-tui: no MCP server named {args.name!r} (configured: {names})", file=sys.stderr
        )
        return EXIT_USAGE
    if args.mcp_command == "test":
        for name, state in manager.states.items():
            if name != args.name and state.status == "starting":
                state.status = "disabled"  # only the one under test is started
                state.ready.set()
    manager.start()
    try:
        from hermes_tui.core.events import discard
        from hermes_tui.runtime_tools import vetted  # the refused are listed as left out

        tools = manager.freeze()
        vetted(tools, runtime.scanner.refused, discard, manager)
        rows = [
            row
            for row in manager.describe()
            if args.mcp_command == "list" or row["name"] == args.name
        ]
        for row in rows:
            row["tool_names"] = [
                t.name for t in tools if t.name.startswith(f"mcp__{row['name']}__")
            ]
            if args.mcp_command == "test":
                row["schemas"] = {
                    t.name: t.parameters for t in tools if t.name in row["tool_names"]
                }
        warnings = list(manager.warnings)
    finally:
        manager.stop()
    if args.json:
        print(json_for_terminal({"servers": rows, "warnings": warnings}, indent=2))
    else:
        _print(rows, warnings, detail=args.mcp_command == "test")
    failed = any(row["status"] == "failed" for row in rows)
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _print(rows: list[dict[str, Any]], warnings: list[str], *, detail: bool) -> None:
    for row in rows:
        mark = {"ready": "✓", "failed": "✗", "disabled": "-"}.get(row["status"], "?")
        print(f"{mark} {row['name']}  [{row['transport']}, {row['status']}, {row['tools']} tools]")
        if row["error"]:
            print(f"    error: {row['error']}")
        if row["stderr"] and (row["status"] == "failed" or detail):
            for line in row["stderr"].splitlines()[-5:]:
                print(f"    stderr: {line}")
        for name in row["tool_names"]:
            why = row["left_out"].get(name)
            print(f"    {name}" + (f"  (left out of sessions: {why})" if why else ""))
            if detail:
                properties = row["schemas"][name].get("properties", {})
                required = set(row["schemas"][name].get("required", []))
                for field, spec in properties.items():
                    star = "*" if field in required else ""
                    print(f"        {field}{star}: {spec.get('type', 'any')}")
    for warning in warnings:
        print(f"  warning: {warning}")
