"""`python -m hermes_tui` runs the same entry point as the `hermes-tui` script."""

try:
    from hermes_tui.cli import entry
except KeyboardInterrupt:  # Ctrl-C while the first modules import: see cli.stopped_early
    import sys

    from hermes_tui.cli import stopped_early

    sys.exit(stopped_early(sys.argv[1:]))

entry()
