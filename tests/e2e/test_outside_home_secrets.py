"""attack9's A9-14 end to end: projects and a second home outside `$HOME` (Codespaces'
`/workspaces/*`, `/srv`, WSL's `/mnt/c/Users/<me>/.aws`) reach the provider through one
unasked `find | rev` of a sandboxed command. Run as the unprivileged user through `chat -q`
against the loopback provider; judged by what the provider received and what sessions.db
keeps (in any encoding: sandbox_world.leaked)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, write_config
from sandbox_world import REPO, leaked, runner, sandbox_works

SECRETS = {"project": "Pj4Wq8Lz2TxKv7Nm3Rb", "windows": "Wn6Lq3Tz9XkVm2Rp8Gc"}


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_an_unasked_find_outside_the_home_sends_no_other_projects_secret(tmp_path: Path) -> None:
    prefix, user, _why = runner()
    roots = [r for r in ("/srv", "/mnt", "/media") if os.access(r, os.W_OK)][:2]
    if not user or len(roots) < 2:
        pytest.skip("needs root, the user tester and two of /srv, /mnt, /media writable")
    entry = pwd.getpwnam(user)
    base, other = (Path(tempfile.mkdtemp(prefix="hermes-a914-", dir=root)) for root in roots)
    home = Path(tempfile.mkdtemp(prefix="hermes-a914-home-", dir=entry.pw_dir))
    try:
        (base / "ws").mkdir()
        (base / "projB").mkdir()
        (base / "projB/.env").write_text(f"STRIPE_SECRET={SECRETS['project']}\n")
        (other / "Users/me/.aws").mkdir(parents=True)
        (other / "Users/me/.aws/credentials").write_text(f"secret = {SECRETS['windows']}\n")
        for top in (base, other, home):
            top.chmod(0o755)
            for folder, dirs, files in os.walk(top):
                for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                    os.lchown(name, entry.pw_uid, entry.pw_gid)
        command = (
            f"find {base} {other} -name .env -o -name credentials | "
            "while read f; do echo == $f; rev $f; done; ls -a .."
        )
        with FakeLLM() as llm:
            write_config(home, llm.openai_url, memory={"nudge_interval": 0})
            llm.script(Reply(tool_calls=[("terminal", {"command": command})]), Reply(text="done"))
            argv = [*prefix, sys.executable, "-m", "hermes_tui", "--home", str(home)]
            env = cli_env(PYTHONPATH=str(REPO), HOME=entry.pw_dir, OPENAI_API_KEY="sk-test-a914")
            done = subprocess.run(
                [*argv, "chat", "-q", "go", "--mode", "sandboxed"],
                capture_output=True,
                text=True,
                cwd=base / "ws",
                env=env,
                timeout=110,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            bodies = [json.dumps(r.body, ensure_ascii=False) for r in llm.requests]
        assert len(bodies) == 2, bodies
        tool = [m for m in json.loads(bodies[1])["messages"] if m["role"] == "tool"]
        assert tool and "projB" not in str(tool) and "ws" in str(tool), tool  # it ran
        assert not leaked("\n".join(bodies).encode(), SECRETS), bodies[1]
        with sqlite3.connect(home / "sessions.db") as db:
            stored = "\n".join(db.iterdump())
        assert "rev $f" in stored and not leaked(stored.encode(), SECRETS)
    finally:
        for folder in (base, other, home):
            shutil.rmtree(folder, ignore_errors=True)
