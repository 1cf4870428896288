"""With `--provider demo` the user's own secrets (their home's `.env`, the environment) are
still known to the redaction: the demo keeps its stores in a home of its own, inside theirs."""

from __future__ import annotations

from pathlib import Path

from secret_forms import forms

from hermes_tui.config_model import Overrides
from hermes_tui.runtime import Runtime

USER_KEY = "Zq9-user-own-secret-4417-kept"
SHELL_TOKEN = "Yx8-shell-token-2290-kept"


def test_the_demo_redacts_the_users_env_and_environment_secrets(home: Path, tmp_path: Path) -> None:
    (home / ".env").write_text(f"MY_SERVICE={USER_KEY}\n", encoding="utf-8")
    runtime = Runtime.open(home, Overrides(provider="demo"), environ={"DEPLOY_TOKEN": SHELL_TOKEN})
    assert runtime.is_demo
    session = runtime.open_session(cwd=tmp_path)
    session.submit(f"remember {USER_KEY} and {SHELL_TOKEN}")
    runtime.close()

    stored = b"".join(p.read_bytes() for p in runtime.home.glob("sessions.db*"))
    assert b"[REDACTED MY_SERVICE]" in stored
    for secret in (USER_KEY, SHELL_TOKEN):
        for form in forms(secret):
            assert form.encode() not in stored, form
