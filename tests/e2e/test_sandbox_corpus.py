"""The wall holds: every hostile turn of tests/data/sandbox_attacks.yaml, driven end to end
through `chat -q` by the loopback model, leaks no secret, changes nothing outside the workspace
or in its protected subpaths, runs nothing it downloaded and reaches no socket of the host.

Three runs of the whole corpus: `sandboxed` mode (commands run in bubblewrap without asking;
chat -q grants no approval), `strict` mode with the sandbox off (only commands proven read-only
run; every approval is denied), which is what a machine without bubblewrap gets, and
`wall-only`: --yolo in the sandbox, where every approval is granted and only the wall holds (a
download may run there, inside the sandbox; nothing else changes). Commands run as an
unprivileged user (`tester`) when the suite runs as root, since root keeps powers that hide
bugs. Judged by outcome only: what the capture servers and the model received (raw or encoded),
tree digests before and after, marker files, socket connections. A control run with the
sandbox off and --yolo proves each of those detectors sees an attack that gets through.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import pwd
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import REPO, cli_env, once_per_run, read_yaml
from sandbox_world import (
    SYSTEM_PATH,
    Capture,
    SocketTrap,
    World,
    changes,
    leaked,
    remembered_verdicts,
    runner,
    sandbox_works,
)

ATTACKS = read_yaml(REPO / "tests/data/sandbox_attacks.yaml")
CLASSES = sorted({attack["class"] for attack in ATTACKS})
# In the host's /tmp: hermes-tui's own scratch, and the socket folders of the runs.
OURS_IN_TMP = ("hermes-term-", "hermes-proxy-", "tmux-corpus-", "ssh-corpus-")
MODES = {
    "sandboxed": {"mode": "sandboxed", "sandbox": "auto", "network": "allowlist"},
    "strict": {"mode": "strict", "sandbox": "off"},
    # The wall alone: --yolo approves everything the policy would ask about (a connection to
    # the capture server included), and still nothing gets out, escapes or persists.
    "wall-only": {"mode": "yolo", "sandbox": "auto", "network": "allowlist"},
}
# Classes run together in one chat each (a chat's start-up costs more than most attacks);
# the last group ends with the attacks that rearrange the workspace.
GROUPS = {
    "programs": ("runs-programs", "keystrokes", "capabilities"),
    "leaks": ("secret-paths", "encoded-exfil", "socket-escape"),
    "persistence": ("download-run", "self-approval", "home-forging", "persistence"),
}


def _base_folder() -> Path:
    """Outside /tmp (the sandbox's /tmp is private: credentials under it would be hidden by
    accident), somewhere the user the commands run as owns."""
    _prefix, user, _why = runner()
    parent = Path(pwd.getpwnam(user).pw_dir) if user else Path.home() / ".cache"
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="hermes-corpus-", dir=parent))


class Run:
    """One world, its listeners and the loopback model: run turns and judge them."""

    def __init__(self, llm: FakeLLM, terminal: dict, verdicts: bytes) -> None:
        prefix, user, _why = runner()
        # As root, the commands run with a group of this run's own (a number no group has;
        # unique among the workers running at once), so that what they make in the host's /tmp
        # is told apart from what the other tests' commands, run as the same user, make there
        # meanwhile (test_sandbox_roots' folder, a sandbox cache made on first use).
        self.group = 200_000 + os.getpid() if user else None
        self.prefix = [f"--regid={self.group}" if a.startswith("--regid=") else a for a in prefix]
        self.user = user
        self.llm = llm
        self.world = World(_base_folder())
        self.capture = Capture(self.world.payloads())
        token = self.world.token
        uid = pwd.getpwnam(user).pw_uid if user else os.getuid()
        self.tmux_dir = Path(f"/tmp/tmux-corpus-{token}")
        self.agent_dir = Path(f"/tmp/ssh-corpus-{token}")
        for folder in (self.tmux_dir, self.agent_dir):
            folder.mkdir(mode=0o700)
            os.chown(folder, uid, -1)
        self.world.build(llm.openai_url, terminal, user, verdicts)
        self.traps = {
            "tmux": SocketTrap(str(self.tmux_dir / "default")),
            "agent": SocketTrap(str(self.agent_dir / "agent.4242")),
            "bus": SocketTrap(str(self.world.runtime_dir / "bus")),
            "abstract": SocketTrap(f"\0hermes-corpus-{token}"),
        }
        self.values = self.world.placeholders(self.capture, self.traps, sys.executable)
        self.pty: tuple[int, int] | None = None
        self.before = self.world.snapshot()
        self.tmp_before = self._tmp_entries()

    def fill(self, command: str) -> str:
        for key, value in self.values.items():
            command = command.replace(key, value)
        return command

    def env(self) -> dict[str, str]:
        world = self.world
        env = cli_env(
            HOME=str(world.home),
            USER=self.user or os.environ.get("USER", ""),
            PATH=SYSTEM_PATH,
            PYTHONPATH=str(REPO),
            XDG_RUNTIME_DIR=str(world.runtime_dir),
            TMUX=f"{self.traps['tmux'].address},4242,0",
            SSH_AUTH_SOCK=self.traps["agent"].address,
            DBUS_SESSION_BUS_ADDRESS=f"unix:path={self.traps['bus'].address}",
            DEPLOY_TOKEN=f"dt-{world.secrets['environment']}",
            DATABASE_URL=f"postgres://app:{world.secrets['database url']}@db.example/app",
        )
        for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "VIRTUAL_ENV"):
            env.pop(name, None)
        return env

    def chat(self, commands: list[str], *extra: str) -> str:
        """Run one turn in which the model calls the terminal with each command, in order,
        from a terminal of the user's own (to inject keystrokes into); the chat's stderr."""
        self.llm.script(
            Reply(tool_calls=[("terminal", {"command": c, "timeout": 15}) for c in commands]),
            Reply(text="done"),
        )
        argv = [*self.prefix, sys.executable, "-m", "hermes_tui", "--home", str(self.world.hermes)]
        argv += ["chat", "-q", "go", *extra]
        master, slave = pty.openpty()
        if self.user:
            os.chown(os.ttyname(slave), pwd.getpwnam(self.user).pw_uid, -1)
        argv = ["setsid", "-c", *argv]
        self.pty = (master, slave)
        result = subprocess.run(
            argv,
            cwd=self.world.work,
            env=self.env(),
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=150,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stderr

    def _tmp_entries(self) -> set[str]:
        """Entries of the host's /tmp made by this run's commands: owned by the user they run
        as, with this run's own group."""
        uid = pwd.getpwnam(self.user).pw_uid if self.user else None
        found = set()
        for entry in os.scandir("/tmp"):
            try:
                stat = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # another test's scratch, gone already
            with_owner = uid is None or (stat.st_uid, stat.st_gid) == (uid, self.group)
            if with_owner and not entry.name.startswith(OURS_IN_TMP):
                found.add(entry.name)
        return found

    def _new_in_tmp(self) -> set[str]:
        """New entries that stay (not as root, every process of the user counts: another
        test's chat may be making and removing its own scratch at this moment: give it a
        second)."""
        deadline = time.monotonic() + 1.0
        while (new := self._tmp_entries() - self.tmp_before) and time.monotonic() < deadline:
            time.sleep(0.1)
        return new

    def injected(self) -> bytes:
        """What reached the user's terminal: echoed by it, or waiting in its input."""
        if self.pty is None:
            return b""
        got = b""
        for fd in self.pty:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
            try:
                while chunk := os.read(fd, 65536):
                    got += chunk
            except (BlockingIOError, OSError):
                pass
        return got

    def breaches(self, download_may_run_inside: bool = False) -> list[str]:
        """Everything that got through, in words (empty when the wall held)."""
        world = self.world
        found: list[str] = []
        # The user's next git in each repository of the workspace: what a config or hook left
        # there runs now, and its marker lands in the folder outside (or what it sends reaches
        # a listener: so first, before the listeners are judged).
        for repository in world.repositories():
            subprocess.run(
                [*self.prefix, "git", "-C", str(repository), "status"],
                env=self.env(),
                capture_output=True,
                timeout=30,
            )
        for channel, data in self.capture.settle():
            if names := leaked(data, world.secrets):
                found.append(f"{channel} received {sorted(names)}")
        for request in self.llm.requests:
            for message in request.body.get("messages", []):
                if message.get("role") != "tool":
                    continue
                if names := leaked(message["content"].encode(), world.secrets):
                    found.append(f"the model was sent {sorted(names)} in {message['content']!r}")
        typed = self.injected()
        if names := leaked(typed, world.secrets):
            found.append(f"the terminal received {sorted(names)}")
        if b"-ran" in typed:
            found.append(f"keystrokes reached the user's terminal: {typed!r}")
        for name, trap in self.traps.items():
            if connections := trap.count():
                found.append(f"{connections} connection(s) to the host's {name} socket")
        for marker in world.markers():
            if download_may_run_inside and marker.is_relative_to(world.work):
                continue
            if marker.exists():
                found.append(f"a downloaded program ran ({marker.name} exists)")
        after = world.snapshot()
        for area, digest in self.before.items():
            for change in changes(digest, after.get(area, {})):
                found.append(f"{area}: {change}")
        for entry in sorted(self._new_in_tmp()):
            found.append(f"host /tmp: created {entry}")
        return found

    def close(self) -> None:
        for trap in self.traps.values():
            trap.close()
        self.capture.close()
        if self.pty is not None:
            for fd in self.pty:
                os.close(fd)
        for folder in (self.tmux_dir, self.agent_dir):
            subprocess.run(["rm", "-rf", str(folder)], check=False)
        if self.group is not None:  # what this run's commands left in the host's /tmp
            for entry in self._tmp_entries() - self.tmp_before:
                subprocess.run(["rm", "-rf", f"/tmp/{entry}"], check=False)
        self.world.remove()


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """What each world's hermes home starts with remembered (sandbox_world.remembered_verdicts),
    reached once for the run (helpers.once_per_run: the module's tests are spread over the
    workers, and each scan costs about a second of CPU)."""
    return once_per_run(
        tmp_path_factory,
        "corpus_verdicts",
        lambda: remembered_verdicts(tmp_path_factory.mktemp("verdicts")),
    )


def _skip_unless_runnable(mode: str) -> None:
    _prefix, _user, why = runner()
    if why:
        pytest.skip(why)
    if mode != "strict":
        works, detail = sandbox_works()
        if not works:
            pytest.skip(f"no bubblewrap sandbox here: {detail}")


def turn_commands(run: Run, attacks: list[dict]) -> list[str]:
    """The attacks' commands in order; a `cd` of one attack is undone before the next."""
    commands: list[str] = []
    for attack in attacks:
        steps = [run.fill(step) for step in attack["steps"]]
        commands += steps
        if any("cd " in step for step in steps):
            commands.append(f"cd {run.world.work}")
    return commands


def test_the_corpus_covers_every_class_of_the_issue() -> None:
    assert len(ATTACKS) >= 120
    assert len({a["id"] for a in ATTACKS}) == len(ATTACKS)
    assert set(CLASSES) == {
        "runs-programs",
        "secret-paths",
        "encoded-exfil",
        "download-run",
        "persistence",
        "home-forging",
        "socket-escape",
        "keystrokes",
        "capabilities",
        "self-approval",
    }


@pytest.mark.parametrize("group", list(GROUPS))
@pytest.mark.parametrize("mode", list(MODES))
def test_no_hostile_turn_gets_through(mode: str, group: str, llm: FakeLLM, verdicts: bytes) -> None:
    _skip_unless_runnable(mode)
    attacks = [a for kind in GROUPS[group] for a in ATTACKS if a["class"] == kind]
    run = Run(llm, MODES[mode], verdicts)
    try:
        commands = turn_commands(run, attacks)
        trace = run.chat(commands, *(("--yolo",) if mode == "wall-only" else ()))
        # With --yolo the download was approved: it may run, inside the sandbox only.
        breaches = run.breaches(download_may_run_inside=mode == "wall-only")
        results = [
            json.loads(m["content"])
            for m in llm.requests[-1].body["messages"]
            if m["role"] == "tool"
        ]
        assert len(results) == len(commands), trace[-2000:]
        ran = [
            f"{command}\n    -> {json.dumps(result)[:300]}"
            for command, result in zip(commands, results, strict=True)
            if not result.get("denied")
        ]
        assert not breaches, "\n".join(breaches) + "\n\nWhat ran:\n" + "\n".join(ran)
    finally:
        run.close()


def test_the_detectors_see_what_gets_through_without_the_wall(
    llm: FakeLLM, verdicts: bytes
) -> None:
    """With no sandbox and --yolo, a few attacks succeed, and each detector says so."""
    _skip_unless_runnable("strict")
    run = Run(llm, {"mode": "yolo", "sandbox": "off"}, verdicts)
    picked = {
        "base64-post",
        "curl-save-then-sh",
        "memory-append",
        "tmux-socket-python",
        "new-bashrc",
        "split-chunks",
        "dns-labels-udp-python",
    }
    try:
        run.chat(turn_commands(run, [a for a in ATTACKS if a["id"] in picked]), "--yolo")
        breaches = "\n".join(run.breaches())
        assert "http POST /b64 received ['ssh key']" in breaches
        assert "a downloaded program ran" in breaches
        assert "hermes: changed memories/MEMORY.md" in breaches
        assert "connection(s) to the host's tmux socket" in breaches
        assert "home: created .bashrc" in breaches
        # Datagrams the listener had not read when the chat ended count; the host's /tmp is
        # judged by what this run's commands made there (its own group).
        assert "udp received ['ssh key']" in breaches
        assert "host /tmp: created part.aa" in breaches
    finally:
        run.close()
