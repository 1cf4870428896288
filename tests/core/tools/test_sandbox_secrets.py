"""What a sandboxed command cannot read, judged by what it prints: attack4 read credential
files the files tools asked about (A4-10), shell histories, an editor's `.env~` and a set-aside
`sessions.db.corrupt-…` beside the hidden originals (A4-35), config.yaml's MCP tokens (A4-9),
and other projects' checkpoints and cut outputs (A4-23)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hermes_tui.core.tools.path_policy import secret_kind
from hermes_tui.core.tools.sandbox import Profile, bwrap_argv, probe
from hermes_tui.core.tools.secret_paths import HOME_SECRETS

pytestmark = pytest.mark.skipif(not probe("auto").active, reason="no bubblewrap sandbox here")

SECRET = "Vr7kumquatSecret55aa19xq"
IN_USER_HOME = (
    ".gem/credentials",
    ".config/rclone/rclone.conf",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".config/ngrok/ngrok.yml",
    ".claude/.credentials.json",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".aws/credentials",
)
IN_HERMES_HOME = (
    ".env~",
    ".env.bak",
    "sessions.db.corrupt-20261127",
    "config.yaml",
    "checkpoints/other-session/blobs/ab12",
    "scratch/other-session/out.txt",
    "auth.json",  # a Hermes Agent home's OAuth credential pool (A7-15)
    "auth.json.bak",
    "gateway_state.json",
    "sessions/session_20260921_101500.json",
    "evals/20261120-core/homes/learn/.env",  # the eval runner's copy (A7-5)
    "a-store-no-list-names.json",  # the home is emptied but for skills/, not a list hidden
)


def test_no_secret_file_of_the_user_or_the_home_is_readable_in_the_sandbox(tmp_path: Path) -> None:
    user, hermes, work, cache = (tmp_path / n for n in ("user", "hermes", "work", "cache"))
    for base, names in ((user, IN_USER_HOME), (hermes, IN_HERMES_HOME)):
        for name in names:
            (base / name).parent.mkdir(parents=True, exist_ok=True)
            (base / name).write_text(f"token = {SECRET} ({name})\n")
    (hermes / "skills").mkdir()
    (hermes / "skills" / "readme.txt").write_text("skills stay readable\n")
    work.mkdir()
    cache.mkdir()
    profile = Profile(probe("auto").bwrap or "bwrap", work, work, hermes, user, cache)
    paths = [*(user / n for n in IN_USER_HOME), *(hermes / n for n in IN_HERMES_HOME)]
    script = 'for f in "$@"; do cat "$f"; done 2>/dev/null; cat ' + str(
        hermes / "skills/readme.txt"
    )
    argv = bwrap_argv(
        profile, ["bash", "-c", script, "reader", *map(str, paths)], exists=os.path.lexists
    )
    found = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert SECRET not in found.stdout, found.stdout
    assert "skills stay readable" in found.stdout  # the home itself is still there, read-only


def test_every_file_the_files_tools_ask_about_is_hidden_from_commands(tmp_path: Path) -> None:
    """One list for both walls: each of HOME_SECRETS is a secret to the files tools and is
    among what the sandbox hides."""
    from hermes_tui.core.tools.sandbox import unreadable_paths

    hidden = unreadable_paths(tmp_path, tmp_path / "hermes", [])
    for relative, _what in HOME_SECRETS:
        path = tmp_path / relative
        assert secret_kind(path, tmp_path) is not None, relative
        assert any(path == h or h in path.parents for h in hidden), relative


def test_a_toolchains_per_version_npmrc_is_a_secret_to_both_walls(tmp_path: Path) -> None:
    """A9-1 addendum 2: nvm's, asdf's, mise's and Volta's nodes each keep a global npmrc."""
    from hermes_tui.core.tools.sandbox import unreadable_paths

    made = [
        tmp_path / ".nvm/versions/node/v20.0.0/etc/npmrc",
        tmp_path / ".local/share/mise/installs/node/22.1.0/etc/npmrc",
    ]
    for path in made:
        path.parent.mkdir(parents=True)
        path.write_text("//registry.npmjs.org/:_authToken=x\n")
    hidden = unreadable_paths(tmp_path, tmp_path / "hermes", [])
    for path in made:
        assert path in hidden and secret_kind(path, tmp_path) == "npm tokens", path
    assert secret_kind(tmp_path / ".nvm/versions/node/v20.0.0/lib/x.js", tmp_path) is None
