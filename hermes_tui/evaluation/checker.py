"""Runs a family's checker (or its reference solution) in the workspace, inside the OS sandbox.

The script runs with `sh` from the family's folder (read-only: / is mounted read-only), in the
workspace (the only writable place), with no network and a scrubbed environment holding the
variation's values as EVAL_<NAME> and the family's folder as EVAL_FAMILY_DIR. Exit 0 passes; a
last output line `score=X` (0..1) gives partial credit to a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.tools.sandbox import Profile, SandboxStatus, bwrap_argv, probe
from hermes_tui.evaluation.suite import Family

SCORE = re.compile(r"^score=([0-9]*\.?[0-9]+)\s*$")
TIMEOUT = 60.0
MAX_OUTPUT = 4000


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    score: float
    output: str


class CheckerRunner:
    """One per eval: probes the sandbox once. `sandbox=False` runs without it (said in the
    report); a sandbox that was asked for and cannot run is an error, not a quiet fallback."""

    def __init__(self, sandbox: bool = True) -> None:
        self.status: SandboxStatus = (
            probe("on") if sandbox else SandboxStatus(False, "off (--no-sandbox)")
        )
        self.sandboxed = sandbox

    def check(self, family: Family, variables: Mapping[str, str], workspace: Path) -> CheckResult:
        return self.run_script(family.checker, family, variables, workspace)

    def passes(self, family: Family, variables: Mapping[str, str], workspace: Path) -> bool:
        return self.check(family, variables, workspace).passed

    def run_script(
        self, script: Path, family: Family, variables: Mapping[str, str], workspace: Path
    ) -> CheckResult:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(workspace),
            "EVAL_FAMILY_DIR": str(family.directory),
            **{f"EVAL_{key.upper()}": value for key, value in variables.items()},
        }
        argv = ["sh", str(script)]
        with tempfile.TemporaryDirectory(prefix="hermes-eval-cache-") as cache:
            if self.sandboxed:
                if not self.status.active or self.status.bwrap is None:
                    raise RuntimeError(f"the checker cannot run sandboxed: {self.status.detail}")
                profile = Profile(
                    bwrap=self.status.bwrap,
                    workdir=workspace,
                    cwd=workspace,
                    hermes_home=Path("/nonexistent"),
                    # Mounted read-only as the folder of the program run: the checker and the
                    # fixture it may compare against (a suite under /tmp or the home would
                    # otherwise be out of sight: the private /tmp, the emptied home).
                    programs=(Path(os.path.realpath(family.directory)),),
                    user_home=Path.home(),
                    cache_dir=Path(cache),
                    network="off",
                    socket_filter=True,
                )
                argv = bwrap_argv(profile, argv, exists=os.path.lexists)
            inherited = getattr(argv, "fds", ())  # the socket filter (sandbox.Wrapped)
            try:
                done = subprocess.run(
                    argv,
                    cwd=workspace,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=TIMEOUT,
                    pass_fds=inherited,
                )
            except subprocess.TimeoutExpired:
                return CheckResult(False, 0.0, f"{script.name} timed out after {TIMEOUT:g}s")
            finally:
                for descriptor in inherited:
                    os.close(descriptor)
        output = (done.stdout + done.stderr).decode("utf-8", errors="replace")[-MAX_OUTPUT:]
        passed = done.returncode == 0
        score = 1.0 if passed else 0.0
        if not passed:
            lines = output.strip().splitlines()
            match = SCORE.match(lines[-1]) if lines else None
            if match:
                score = min(1.0, max(0.0, float(match.group(1))))
        return CheckResult(passed, score, output.strip())
