"""The sandbox's cost per command: bubblewrap (and, for `allowlist`, the bridge to the filtering
proxy) against the same command run without it, measured in the same run.

For each network setting (`off`, `allowlist`) a command (`true` by default) runs ROUNDS times
through the terminal's own runner (`run_command`, what the terminal tool calls) with the
sandbox's wrapping and without, alternating so that the machine's load hits both alike. The
profile is the real one (the hermes home inside the working directory, credentials hidden,
sockets hidden, the socket filter, private /tmp); the filtering proxy is started once, as in a conversation.
Printed: the medians, the delta against the 15 ms target and the ratio, and where the time of
one sandboxed start goes (building the argv, bwrap alone with a bare profile, the full profile),
and what emptying the folders outside the system (root_view.py) adds to building the argv.
Run: `.venv/bin/python bench/sandbox.py [--rounds 50] [--command true]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from hermes_tui.core.tools import root_view
from hermes_tui.core.tools.registry import ToolContext
from hermes_tui.core.tools.sandbox import inherited, probe, scrubbed_env
from hermes_tui.core.tools.terminal import Sandbox, TerminalSettings, run_command

TARGET_MS = 15.0


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(network: str, rounds: int, command: str, root: Path) -> dict[str, float]:
    work = root / network / "work"
    hermes = work / ".hermes"
    (hermes / "memories").mkdir(parents=True)
    (hermes / ".env").write_text("OPENAI_API_KEY=sk-bench\n")
    settings = TerminalSettings(network=network, hermes_home=hermes, cache_dir=root / "cache")  # type: ignore[arg-type]
    sandbox = Sandbox(settings)
    context = ToolContext(cwd=work, workdir=work, cancel=threading.Event())
    env = scrubbed_env(os.environ)

    def wrap(argv: list[str]) -> list[str]:
        return sandbox.argv(argv, context, command)

    for _ in range(3):  # warm-up: the probe, the proxy, the page cache
        run_command(command, context, 30, env=env, wrap=wrap)
        run_command(command, context, 30, env=env)
    plain: list[float] = []
    walled: list[float] = []
    build: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        result = run_command(command, context, 30, env=env)
        plain.append(time.perf_counter() - started)
        assert result["exit_code"] == 0, result
        started = time.perf_counter()
        result = run_command(command, context, 30, env=env, wrap=wrap)
        walled.append(time.perf_counter() - started)
        assert result["exit_code"] == 0, result
        started = time.perf_counter()
        argv = wrap(["true"])
        build.append(time.perf_counter() - started)
        for descriptor in inherited(argv):
            os.close(descriptor)
    # The argv without what root_view.py adds (no folder at the top of / emptied), alternating.
    listed = root_view.outside_system
    unrooted: list[float] = []
    rooted: list[float] = []
    for _ in range(rounds):
        for samples, listing in ((unrooted, lambda: ([], [])), (rooted, listed)):
            root_view.outside_system = listing  # type: ignore[assignment]
            started = time.perf_counter()
            argv = wrap(["true"])
            samples.append(time.perf_counter() - started)
            for descriptor in inherited(argv):
                os.close(descriptor)
    root_view.outside_system = listed  # type: ignore[assignment]
    bare = [sandbox.status.bwrap or "bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"]
    bwrap_bare: list[float] = []
    bwrap_full: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(bare, check=True)
        bwrap_bare.append(time.perf_counter() - started)
        argv = wrap(["true"])  # the socket filter's descriptor is read once
        started = time.perf_counter()
        try:
            subprocess.run(argv, check=True, env=env, cwd=work, pass_fds=inherited(argv))
        finally:
            for descriptor in inherited(argv):
                os.close(descriptor)
        bwrap_full.append(time.perf_counter() - started)
    sandbox.close()
    return {
        "plain": _median_ms(plain),
        "sandboxed": _median_ms(walled),
        "argv": _median_ms(build),
        "argv unrooted": _median_ms(unrooted),
        "argv rooted": _median_ms(rooted),
        "bwrap bare": _median_ms(bwrap_bare),
        "bwrap full profile": _median_ms(bwrap_full),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--command", default="true")
    args = parser.parse_args()
    status = probe("auto")
    if not status.active:
        raise SystemExit(f"no sandbox here: {status.detail}")
    print(f"{status.detail}; socat: {status.socat or 'missing (allowlist = off)'}")
    print(f"`{args.command}` through run_command, median of {args.rounds}; load {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="hermes-bench-sandbox-") as scratch:
        for network in ("off", "allowlist"):
            found = measure(network, args.rounds, args.command, Path(scratch))
            delta = found["sandboxed"] - found["plain"]
            verdict = "within" if delta <= TARGET_MS else "OVER"
            print(
                f"network {network:9}: unsandboxed {found['plain']:6.1f} ms, sandboxed "
                f"{found['sandboxed']:6.1f} ms: +{delta:5.1f} ms ({delta / TARGET_MS:.2f}x the "
                f"{TARGET_MS:.0f} ms target, {verdict}); ratio {found['sandboxed'] / found['plain']:.2f}"
            )
            print(
                f"    where it goes: argv {found['argv']:.2f} ms, bwrap with a bare profile "
                f"{found['bwrap bare']:.1f} ms, bwrap with the full profile "
                f"{found['bwrap full profile']:.1f} ms (subprocess.run, `true`)"
            )
            share = found["argv rooted"] - found["argv unrooted"]
            print(
                f"    the folders outside the system emptied (root_view.py, here "
                f"{', '.join(root_view.emptied(Path.home(), [Path(scratch)])) or 'none'}): argv "
                f"{found['argv rooted']:.2f} ms against {found['argv unrooted']:.2f} ms without, "
                f"+{share:.2f} ms, ratio {found['argv rooted'] / found['argv unrooted']:.2f}"
            )


if __name__ == "__main__":
    main()
