"""hermes-tui's own code and the Python it runs on, where commands may write: kept from them.

Installed in the project it works on (README's `python3 -m venv .venv && .venv/bin/pip install
.` in its checkout, a project's dev dependency, a developer's editable install), the app's own
environment lies in the working directory: a `.pth` a command left in its site-packages, an
edited module or console script, ran at every later start of hermes-tui, anywhere, outside the
sandbox, with the provider keys in its environment (attack9's A9-5). So, read once when the
app starts (what this process runs on):
- `locked_paths`: the interpreter's prefixes (a venv whole: its `bin/`, `pyvenv.cfg` and
  site-packages), its site-packages and the folder of the `hermes_tui` package. Those inside a
  writable place are read-only to sandboxed commands (run_later.inside_places), one made anew
  by renaming a folder above it is moved aside, and the files tools ask before writing there.
  One that is a writable place itself, or holds one (the checkout root), cannot be locked;
- `import_folders`: the folders of the app's import path (an editable install's checkout
  root): in one that stays writable, what a command leaves under the name of a module the app
  imports is moved aside, as for a `.` on PYTHONPATH (load_paths.py).
"""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

# The folder of the `hermes_tui` package this module is part of.
PACKAGE = Path(__file__).resolve().parents[2]

REASON = (
    "hermes-tui's own code or the Python it runs on: it runs at every later start of "
    "hermes-tui, outside the sandbox"
)


def locked_paths() -> tuple[Path, ...]:
    """What this process runs on that a command must not change: the interpreter's prefixes,
    its site-packages, the folder of the `hermes_tui` package (absolute, as they are now)."""
    prefixes = {sys.prefix, sys.exec_prefix}
    found = [Path(prefix) for prefix in prefixes if prefix]
    with_site = [*site.getsitepackages(), site.getusersitepackages()]
    found += [Path(folder) for folder in with_site if folder and os.path.isdir(folder)]
    found.append(PACKAGE)
    return tuple(dict.fromkeys(Path(os.path.abspath(path)) for path in found))


def import_folders() -> tuple[str, ...]:
    """The folders of this process's import path (absolute, existing; not a zip archive)."""
    return tuple(
        dict.fromkeys(
            os.path.abspath(entry)
            for entry in sys.path
            if entry and os.path.isabs(entry) and os.path.isdir(entry)
        )
    )
