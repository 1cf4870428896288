"""attack8's A8-9: a command that ends with `chmod 555 .` made every move aside and put back
fail, so `.envrc` and a `hermes_tui.py` stayed (the result said "removed") and the user's next
`python -m hermes_tui` ran it. Run as the unprivileged user: root would write anyway."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sandbox_user import as_user, env_of, own, place, terminal
from sandbox_world import SYSTEM_PATH, sandbox_works

__all__ = ["place"]  # the fixture


@pytest.mark.skipif(not sandbox_works()[0], reason=sandbox_works()[1])
def test_a_command_taking_write_access_away_still_has_its_run_later_files_undone(
    place: Path,
) -> None:
    work = place / "ws"
    work.mkdir()
    own(place)
    marker = place / "PWNED"
    planted = f"open({str(marker)!r}, 'w').write('ran')\n"
    [result] = terminal(
        work,
        env_of(place, SYSTEM_PATH),
        f"printf '%s' \"{planted}\" > hermes_tui.py && echo 'touch {marker}' > .envrc "
        "&& chmod 555 .",
    )
    assert not (work / "hermes_tui.py").exists() and not (work / ".envrc").exists(), result
    assert "STILL THERE" not in result["error"] and "moved aside" in result["error"], result
    as_user([sys.executable, "-m", "hermes_tui", "--version"], env_of(place, SYSTEM_PATH), work)
    assert not marker.exists()
