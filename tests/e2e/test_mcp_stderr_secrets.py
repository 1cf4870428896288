"""An MCP server's stderr is shown (`mcp list`, doctor, the failure notice): a token configured
only in config.yaml for that server (its `env`, its `headers`) is known to the redaction, and
the stderr tail is redacted before it is cut, so no half of a secret is shown either."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml
from helpers import run_main

TOKEN = "Zq9-mcp-only-secret-7781xy"  # no shape; configured for the server alone
HEADER = "Zq9-header-secret-4242ab"


def configure(home: Path, script: str) -> None:
    servers = {
        "leaky": {
            "command": sys.executable,
            "args": ["-c", script],
            "env": {"SVC_TOKEN": TOKEN},
            "connect_timeout": 5,
        },
        "remote": {
            "url": "http://127.0.0.1:9/mcp",
            "headers": {"X-Api-Key": HEADER},
            "enabled": False,
        },
    }
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))


def test_a_server_printing_its_configured_token_shows_no_piece_of_it(home: Path, capsys) -> None:
    # The token, its reverse and a header value, then 1,961 characters and the token again:
    # the stderr tail (2,000 characters) begins inside the header value.
    script = (
        "import os, sys; t = os.environ['SVC_TOKEN']; "
        f"sys.stderr.write('login ' + t + ' ' + t[::-1] + ' ' + '{HEADER}' + '\\n' "
        "+ 'x' * 1961 + ' ' + t + '\\n'); sys.exit(3)"
    )
    configure(home, script)
    done = run_main(capsys, home, "mcp", "list", cwd=home)
    doctor = run_main(capsys, home, "doctor", cwd=home)
    output = done.stdout + done.stderr + doctor.stdout + doctor.stderr
    assert "stderr:" in output and "[REDACTED SVC_TOKEN]" in output, output
    for secret in (TOKEN, HEADER):
        for start in range(len(secret) - 7):
            piece = secret[start : start + 8]
            assert piece not in output and piece[::-1] not in output, piece
