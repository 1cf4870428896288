"""`python -m hermes_tui` runs the same entry point as the `hermes-tui` script.

`python -m` puts the working directory first on sys.path, ahead of the standard library and
site-packages: a `yaml/` (or `rich/`, `difflib.py`, …) a sandboxed command left in the project
would be imported by the app itself, unsandboxed, at the next start. So, before anything else is
imported, that entry is dropped, as `python -P` does (the console script never had it).

A development checkout run from its root (`python -m hermes_tui` in the folder holding
`hermes_tui/`) still works: the package itself was found there before this file ran, and its
own modules load through the package's path, not sys.path; only other top-level names stop
resolving to the checkout, which hermes-tui never imports. (What `python -m` runs is itself
looked up in the working directory: in a project you do not trust, use the console script or
`python -P -m hermes_tui`.)
"""

import os
import sys


def _drop_working_directory() -> None:
    if sys.flags.safe_path or not sys.path:
        return  # -P or PYTHONSAFEPATH: the interpreter added no such entry
    first = sys.path[0]
    if first == "":
        del sys.path[0]
        return
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was deleted: nothing there to import
        return
    if os.path.realpath(first) == here:
        del sys.path[0]


_drop_working_directory()

try:
    from hermes_tui.cli import entry
except KeyboardInterrupt:  # Ctrl-C while the first modules import: see cli.stopped_early
    from hermes_tui.cli import forget_handled_interrupt, stopped_early

    code = stopped_early(sys.argv[1:])
    forget_handled_interrupt()
    sys.exit(code)

entry()
