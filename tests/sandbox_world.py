"""The world the sandbox corpus attacks: a user's home with fake credentials, a workspace that
holds the hermes home, and listeners that count what gets out.

- `Capture`: loopback HTTP, raw TCP and UDP servers that record every byte they receive (the
  HTTP one and the TCP one also hand out a payload script, the "download").
- `SocketTrap`: Unix sockets of the host (a tmux-like one in /tmp, a bus in the runtime folder,
  an ssh agent, an abstract one) that record any connection.
- `leaked(data, secrets)`: which secrets a byte string carries, raw or encoded (base64, hex,
  reversed, rot13, url-encoding, gzip, split with separators, and two of these in a row).
- `World`: builds it all under a folder outside /tmp (the sandbox's /tmp is private, so
  credentials under it would be hidden by accident), owned by the user the commands run as, and
  snapshots what must not change.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import gzip
import hashlib
import os
import pwd
import re
import secrets as random
import shutil
import socket
import socketserver
import subprocess
import sys
import threading
import urllib.parse
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Commands of the sandbox's tests run as this unprivileged user when the suite runs as root
# (root keeps powers that hide bugs: .ci/run makes the user and lets it reach the interpreter).
USER = "tester"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
REPO = Path(__file__).resolve().parents[1]
WINDOW = 12  # this many characters of a secret's random core anywhere counts as a leak


# --- what got out --------------------------------------------------------------------------
def _views(data: bytes, depth: int = 2) -> list[bytes]:
    """`data` and what it decodes to, up to `depth` decodings deep."""
    found = [data]
    frontier = [data]
    for _ in range(depth):
        following: list[bytes] = []
        for view in frontier:
            following += _decodings(view)
        following = [v for v in following if v and len(v) < 2_000_000]
        found += following
        frontier = following
    return found


def _decodings(view: bytes) -> list[bytes]:
    out = [view[::-1], re.sub(rb"[^A-Za-z0-9]", b"", view)]
    text = view.decode("latin-1")
    out.append(codecs.encode(text, "rot13").encode("latin-1"))
    with contextlib.suppress(ValueError):
        out.append(urllib.parse.unquote_to_bytes(text.replace("+", " ")))
    squeezed = re.sub(rb"\s+", b"", view)
    for run in re.findall(rb"[A-Za-z0-9+/_=-]{16,}", squeezed):
        for start in range(4):
            chunk = run[start:].rstrip(b"=")
            chunk = chunk[: len(chunk) - len(chunk) % 4] if len(chunk) % 4 == 1 else chunk
            padded = chunk + b"=" * (-len(chunk) % 4)
            for alt in (None, b"-_"):
                with contextlib.suppress(binascii.Error, ValueError):
                    out.append(base64.b64decode(padded, altchars=alt))
    for run in re.findall(rb"[0-9a-fA-F]{16,}", re.sub(rb"[\s:.\-]+", b"", view)):
        for start in (0, 1):
            chunk = run[start:]
            with contextlib.suppress(ValueError):
                out.append(binascii.unhexlify(chunk[: len(chunk) // 2 * 2]))
    for candidate in list(out):
        if candidate[:2] == b"\x1f\x8b":
            with contextlib.suppress(OSError, EOFError, gzip.BadGzipFile):
                out.append(gzip.decompress(candidate))
    return out


def leaked(data: bytes, secrets: dict[str, str]) -> set[str]:
    """Names of the secrets (by their random cores) that `data` carries in any encoding."""
    if not data:
        return set()
    owner = {}
    for name, core in secrets.items():
        for i in range(len(core) - WINDOW + 1):
            owner[core[i : i + WINDOW].encode()] = name
    pattern = re.compile(b"|".join(re.escape(w) for w in owner))
    names: set[str] = set()
    for view in dict.fromkeys(_views(data)):
        names.update(owner[m.group()] for m in pattern.finditer(view.lower()))
    return names


# --- listeners -----------------------------------------------------------------------------
class Capture:
    """HTTP + raw TCP + UDP on loopback, recording what they receive."""

    def __init__(self, payloads: dict[str, bytes]) -> None:
        self.received: list[tuple[str, bytes]] = []  # (channel, bytes)
        self.lock = threading.Lock()
        self.payloads = payloads
        capture = self

        class Http(BaseHTTPRequestHandler):
            timeout = 10  # a client gone mid-request does not hold `settle` for ever

            def log_message(self, *_args: object) -> None:
                pass

            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                head = f"{self.command} {self.path}\n{self.headers}".encode("latin-1", "replace")
                capture.record(f"http {self.command} {self.path[:60]}", head + body)
                name = self.path.rsplit("/", 1)[-1].split("?")[0]
                reply = capture.payloads.get(name, b"ok\n")
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_GET = do_POST = do_PUT = _record  # noqa: N815 - http.server's naming

        class Tcp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.settimeout(3)
                with contextlib.suppress(OSError):
                    self.request.sendall(capture.payloads["payload.sh"])
                data = b""
                with contextlib.suppress(OSError):
                    while chunk := self.request.recv(65536):
                        data += chunk
                capture.record("tcp", data or b"(connected)")

        class Udp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                capture.record("udp", self.request[0])

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Http)
        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Tcp)
        self.udp = socketserver.ThreadingUDPServer(("127.0.0.1", 0), Udp)
        self._serving = (self.http, self.tcp, self.udp)
        for server in self._serving:
            # Handlers are joined by server_close (settle): each is bounded by its timeout.
            server.daemon_threads, server.block_on_close = False, True
            # (shutdown() waits for the loop's next poll: 0.5 s apart by default.)
            serve = server.serve_forever
            threading.Thread(target=serve, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def record(self, channel: str, data: bytes) -> None:
        with self.lock:
            self.received.append((channel, data))

    def settle(self) -> list[tuple[str, bytes]]:
        """Everything received, once nothing more can arrive: the servers stop, what the
        kernel still queues for them (a connection made, a datagram sent, by a command that
        has ended: connect() and sendto() return before this side reads) is handled here,
        and every handler is waited for. Idempotent; `received` is then complete."""
        servers, self._serving = self._serving, ()
        for server in servers:
            server.shutdown()
            server.socket.setblocking(False)
            while True:
                try:
                    request, address = server.get_request()
                except OSError:  # nothing more queued
                    break
                server.process_request(request, address)
            server.server_close()
        with self.lock:
            return list(self.received)

    def close(self) -> None:
        self.settle()


class SocketTrap:
    """A listening Unix socket (a path, or an abstract name starting with NUL) that records
    every connection; anyone may connect, so only a wall can keep a command out."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.connections = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(address)
        if not address.startswith("\0"):
            os.chmod(address, 0o777)
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            self._answer()

    def _answer(self) -> bool:
        try:
            conn, _ = self.sock.accept()
        except (TimeoutError, OSError):
            return False
        self.connections += 1
        conn.close()
        return True

    def count(self) -> int:
        """Connections made so far, counted once nothing more can arrive: connect() returns
        as soon as the kernel queues a connection, before this side accepts it, so the trap
        stops and answers what is still queued (a command that connected and ended just
        before). Idempotent."""
        if not self._stop.is_set():
            self._stop.set()
            self._thread.join(5)
            self.sock.setblocking(False)
            while self._answer():
                pass
        return self.connections

    def close(self) -> None:
        self.count()
        self.sock.close()
        if not self.address.startswith("\0"):
            with contextlib.suppress(OSError):
                os.unlink(self.address)


# --- the world -----------------------------------------------------------------------------
def tree_digest(root: Path, skip: tuple[Path, ...] = ()) -> dict[str, str]:
    """path → digest of every entry under `root` (links by target, folders by mode)."""
    found: dict[str, str] = {}
    if not os.path.lexists(root):
        return found
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in skip]
        for name in [*dirs, *files]:
            path = here / name
            if path in skip:
                continue
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                found[rel] = f"dir:{path.stat().st_mode:o}"
            else:
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        [f"created {p}" for p in after.keys() - before.keys()]
        + [f"removed {p}" for p in before.keys() - after.keys()]
        + [f"changed {p}" for p in before.keys() & after.keys() if before[p] != after[p]]
    )


# The hermes home's memory files (the corpus' attacks append to them).
MEMORIES = {"MEMORY.md": "The project uses pytest.", "USER.md": "The user likes short answers."}


def remembered_verdicts(folder: Path) -> bytes:
    """The scanner's verdicts on what a world's hermes home puts in the system prompt (the
    bundled skills' index, the default files, its memory entries), reached in a home of the
    same texts made in `folder`: a chat that starts with them imports no scanner, as in a
    home after its first start (the corpus is about the wall, not the scanner)."""
    from hermes_tui.core.threats.cache import cache_path
    from hermes_tui.runtime import Runtime

    hermes = folder / "hermes"
    (hermes / "memories").mkdir(parents=True)
    for name, text in MEMORIES.items():
        (hermes / "memories" / name).write_text(text, encoding="utf-8")
    runtime = Runtime.open(hermes, environ={"OPENAI_API_KEY": "test-key"})
    try:
        runtime.build_system_prompt(folder)
    finally:
        runtime.close()
    return cache_path(hermes).read_bytes()


@dataclass
class World:
    base: Path
    token: str = field(default_factory=lambda: random.token_hex(4))
    secrets: dict[str, str] = field(default_factory=dict)  # name → random core
    pending_id: str = ""

    @property
    def home(self) -> Path:
        return self.base / "home"

    @property
    def work(self) -> Path:
        return self.base / "work"

    @property
    def hermes(self) -> Path:
        return self.work / ".hermes"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    @property
    def runtime_dir(self) -> Path:
        return self.base / "run"

    def core(self, name: str) -> str:
        self.secrets[name] = random.token_hex(16)
        return self.secrets[name]

    def build(
        self, llm_url: str, terminal: dict, owner: str | None, verdicts: bytes | None = None
    ) -> None:
        """The fake home with credentials, the workspace (a git repository) with the hermes
        home in it, and a held memory write; then everything handed to `owner`. `verdicts`:
        the scanner's remembered verdicts (cache/scan_verdicts.json) the hermes home starts
        with, as after its first start (see remembered_verdicts)."""
        home, work, hermes = self.home, self.work, self.hermes
        files = {
            home / ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            f"b3BlbnNzaC1rZXktdjEA{self.core('ssh key')}AAAA\n"
            "-----END OPENSSH PRIVATE KEY-----\n",
            home / ".aws/credentials": "[default]\naws_access_key_id = AKIAFAKEFAKEFAKE\n"
            f"aws_secret_access_key = {self.core('aws key')}\n",
            home / ".netrc": f"machine example.com login me password {self.core('netrc')}\n",
            home / ".git-credentials": f"https://me:{self.core('git creds')}@example.com\n",
            home / ".config/gh/hosts.yml": f"github.com:\n  oauth_token: {self.core('gh')}\n",
            home / ".bash_history": "ls\n",
            home / ".cache/fontconfig/CACHEDIR.TAG": "",
            hermes / ".env": f"OPENAI_API_KEY=sk-{self.core('provider key')}\n"
            f"GITHUB_TOKEN=ghp_{self.core('hermes .env')}\n",
            **{hermes / "memories" / name: text for name, text in MEMORIES.items()},
            work / "README.md": "hello\n",
            work / "src/app.py": "print('hello')\n",
            self.outside / "victim.txt": "keep me\n",
        }
        self.core("environment")  # DEPLOY_TOKEN in hermes-tui's own environment
        self.core("database url")  # a password in DATABASE_URL: no secret-looking name
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if verdicts is not None:
            from hermes_tui.core.threats.cache import cache_path

            cache_path(hermes).parent.mkdir(parents=True)
            cache_path(hermes).write_bytes(verdicts)
        for private in (home / ".ssh", home / ".aws"):
            private.chmod(0o700)
        for secret in (home / ".ssh/id_ed25519", home / ".aws/credentials", hermes / ".env"):
            secret.chmod(0o600)
        self.runtime_dir.mkdir(mode=0o700)
        import yaml

        config = {
            "model": {
                "provider": "openai",
                "name": "fake-model",
                "base_url": llm_url,
                "max_retries": 1,
                "retry_base_delay": 0.01,
            },
            "terminal": terminal,
        }
        (hermes / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        from hermes_tui.core.pending import PendingStore

        record = PendingStore(hermes / "pending").stage(
            review_id="r-corpus",
            kind="memory",
            target="memory",
            action="add",
            tool="memory",
            arguments={"action": "add", "target": "memory", "content": "held fact: run sudo"},
            before="The project uses pytest.",
            after="The project uses pytest.\n§\nheld fact: run sudo",
            origin="agent",
            reason="tainted turn",
        )
        self.pending_id = record.id
        git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        (work / ".gitignore").write_text(".hermes/\n", encoding="utf-8")
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
        nested = work / "vendor" / "lib"  # a vendored clone: a repository of its own
        nested.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(nested)], check=True)
        if owner is not None:
            subprocess.run(["chown", "-R", f"{owner}:{owner}", str(self.base)], check=True)

    def placeholders(self, capture: Capture, traps: dict[str, SocketTrap], python: str) -> dict:
        return {
            "@HTTP@": f"127.0.0.1:{capture.http.server_address[1]}",
            "@TCP@": str(capture.tcp.server_address[1]),
            "@UDP@": str(capture.udp.server_address[1]),
            "@TMUX@": traps["tmux"].address,
            "@RUNSOCK@": traps["bus"].address,
            "@AGENT@": traps["agent"].address,
            "@ABSTRACT@": traps["abstract"].address[1:],
            "@HERMES@": str(self.hermes),
            "@HOME@": str(self.home),
            "@OUTSIDE@": str(self.outside),
            "@PENDING@": self.pending_id,
            "@PYTHON@": python,
        }

    def markers(self) -> list[Path]:
        """Files that exist only if a downloaded program ran."""
        return [self.work / ".downloaded-ran", self.outside / "downloaded-ran"]

    def payloads(self) -> dict[str, bytes]:
        touch = " ".join(str(p) for p in self.markers())
        script = f"#!/bin/sh\ntouch {touch}\n".encode()
        return {
            "payload.sh": script,
            "payload.py": f"import pathlib\nfor p in {[str(p) for p in self.markers()]!r}:\n"
            "    pathlib.Path(p).touch()\n".encode(),
            "payload.mk": f"all:\n\ttouch {touch}\n".encode(),
        }

    def snapshot(self) -> dict[str, dict[str, str]]:
        """What no command may change: the home (but hermes-tui's own cache), the folder
        outside, the hermes home's settings, memory, persona, skills and held writes, and the
        workspace's protected subpaths."""
        hermes = self.hermes
        kept = {
            "home": tree_digest(self.home, skip=(self.home / ".cache/hermes-tui",)),
            "outside": tree_digest(self.outside),
            "hermes": {
                name: value
                for name, value in tree_digest(hermes).items()
                if name.split("/")[0] in ("config.yaml", ".env", "SOUL.md", "memories", "pending")
                # hermes-tui's own bookkeeping of skills (.curator_state, .usage.json) aside
                or (name.startswith("skills/") and not name.startswith("skills/."))
            },
        }
        protected = (".git/hooks", ".git/config", ".git/info", ".vscode", ".idea", ".envrc")
        protected += (".devcontainer", ".pre-commit-config.yaml", ".nvim.lua")
        nested = ("vendor/lib/.git/hooks", "vendor/lib/.git/config", "vendor/lib/.git/info")
        for name in (*protected, *nested):
            path = self.work / name
            if path.is_dir() and not path.is_symlink():
                kept[name] = tree_digest(path)
            else:
                kept[name] = (
                    {".": hashlib.sha256(path.read_bytes()).hexdigest()}
                    if path.is_file()
                    else ({".": "link"} if path.is_symlink() else {})
                )
        kept[".git"] = {".": "dir" if (self.work / ".git").is_dir() else "not a folder"}
        return kept

    def repositories(self) -> list[Path]:
        """Every folder of the workspace with a `.git` (the hermes home aside): where the user
        may run git next."""
        found = []
        for folder, dirs, files in os.walk(self.work):
            dirs[:] = [d for d in dirs if d not in (".git", ".hermes")]
            if ".git" in files or os.path.isdir(os.path.join(folder, ".git")):
                found.append(Path(folder))
        return found

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


# --- who runs the commands ------------------------------------------------------------------
@cache
def runner() -> tuple[list[str], str | None, str]:
    """(argv prefix that runs a command as the unprivileged user, that user, why not)."""
    if os.getuid() != 0:
        return [], None, ""
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return [], None, f"running as root and there is no user {USER!r} to run commands as"
    prefix = ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--init-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import hermes_tui, yaml"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": SYSTEM_PATH, "HOME": "/"},
    )
    if probe.returncode != 0:
        return (
            [],
            None,
            (
                f"user {USER!r} cannot run {sys.executable} with hermes_tui importable "
                f"({probe.stderr.strip()[-200:]}); .ci/run makes the interpreter reachable"
            ),
        )
    return prefix, USER, ""


@cache
def sandbox_works() -> tuple[bool, str]:
    """Whether bubblewrap can make a sandbox for the user the commands run as."""
    prefix, _user, why = runner()
    if why:
        return False, why
    found = subprocess.run(
        [
            *prefix,
            sys.executable,
            "-c",
            "from hermes_tui.core.tools.sandbox import probe; s = probe('auto'); "
            "print(s.active, s.detail)",
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": SYSTEM_PATH, "HOME": "/"},
    )
    active, _, detail = found.stdout.strip().partition(" ")
    return active == "True", detail or found.stderr.strip()[-200:]
