"""attack9's A9-6 and A9-2, judged by what the user's own git and direnv run afterwards: a git
hook that is a link into the tree, the script a hook runs by path, and the files an allowed
`.envrc` sources are held like the hook and `.envrc` themselves (runs_named.py). Run as the
unprivileged user: root would write through a read-only file's mode."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sandbox_user import as_user, env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture

needs_sandbox = pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
GIT_ENV = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


@needs_sandbox
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_hook_links_target_and_a_hooks_script_run_nothing_a_command_wrote(place: Path) -> None:
    work, remote = place / "ws", place / "remote.git"
    _script(work / "tools" / "hooks" / "pre-commit", "#!/bin/sh\nexit 0\n")
    _script(work / "scripts" / "prepush.sh", "#!/bin/sh\nexit 0\n")
    (work / "f.txt").write_text("x\n")
    own(place)
    env = {**env_of(place, SYSTEM_PATH), **GIT_ENV}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
        assert as_user(["git", *argv], env, work).returncode == 0
    as_user(["git", "init", "-q", "--bare", str(remote)], env, place)
    # The setup many READMEs prescribe: `ln -s ../../tools/hooks/pre-commit .git/hooks/`, and a
    # hook that runs a project script by path (what husky, lefthook and pre-commit amount to).
    as_user(["ln", "-s", "../../tools/hooks/pre-commit", ".git/hooks/pre-commit"], env, work)
    as_user(["sh", "-c", "printf '#!/bin/sh\\nexec ./scripts/prepush.sh\\n' > .git/hooks/pre-push"
             " && chmod +x .git/hooks/pre-push"], env, work)  # fmt: skip
    hooked, pushed = place / "PWN_hooklink", place / "PWN_hookscript"
    evil = "printf '#!/bin/sh\\ntouch {}\\n' > {}"
    results = terminal(
        work,
        env,
        evil.format(hooked, "tools/hooks/pre-commit") + "; " + evil.format(pushed, "scripts/prepush.sh"),
        # A mount point's parent can be renamed: the hook's folder made anew with a new hook.
        "mv tools t2; mkdir -p tools/hooks && " + evil.format(hooked, "tools/hooks/pre-commit")
        + " && chmod +x tools/hooks/pre-commit",
        "mv scripts s2; mkdir scripts && " + evil.format(pushed, "scripts/prepush.sh")
        + " && chmod +x scripts/prepush.sh",
    )  # fmt: skip
    assert "Read-only file system" in results[0]["output"], results[0]
    assert "pre-commit hook" in results[1]["error"], results[1]
    assert "scripts/prepush.sh" in results[2]["error"], results[2]
    # The user's next commit and push, outside the sandbox.
    (work / "f.txt").write_text("y\n")
    assert as_user(["git", "commit", "-qam", "edit"], env, work).returncode == 0
    as_user(["git", "push", "-q", str(remote), "HEAD:main"], env, work)
    assert not hooked.exists() and not pushed.exists()


@needs_sandbox
@pytest.mark.skipif(shutil.which("direnv") is None, reason="direnv is not installed")
def test_what_an_allowed_envrc_sources_runs_nothing_a_command_wrote(place: Path) -> None:
    work = place / "ws"
    (work / "scripts").mkdir(parents=True)
    (work / ".envrc").write_text(
        "source_env_if_exists .envrc.local\nsource scripts/dev-env.sh\ndotenv_if_exists\n"
    )
    (work / "scripts" / "dev-env.sh").write_text("export APP_ENV=dev\n")
    own(place)
    env = env_of(place, SYSTEM_PATH)
    assert as_user(["direnv", "allow", str(work)], env, place).returncode == 0
    local, sourced, dotenv = place / "PWN_envrclocal", place / "PWN_devenv", place / "PWN_env"
    (place / "later.sh").write_text(f"touch {dotenv}\n")
    [result] = terminal(
        work,
        env,
        f"echo 'touch {local}' > .envrc.local; echo 'touch {sourced}' >> scripts/dev-env.sh; "
        f"mv scripts s2; mkdir scripts && echo 'touch {sourced}' > scripts/dev-env.sh; "
        f"echo 'BASH_ENV={place / 'later.sh'}' > .env",  # every bash the user starts runs it
    )
    for name in (".envrc.local", "scripts/dev-env.sh", ".env"):
        assert name in result["error"], result
    # The user's next `cd` there with direnv's shell hook (what `direnv exec` does), a script.
    entered = as_user(["direnv", "exec", str(work), "bash", "-c", "true"], env, place)
    assert "is blocked" not in entered.stderr, entered.stderr
    assert not local.exists() and not sourced.exists() and not dotenv.exists()
