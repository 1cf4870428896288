"""`python -m hermes_tui` runs the same entry point as the `hermes-tui` script."""

try:
    from hermes_tui.cli import entry
except KeyboardInterrupt:  # Ctrl-C while the first modules import: see cli.stopped_early
    import sys

    from hermes_tui.cli import forget_handled_interrupt, stopped_early

    code = stopped_early(sys.argv[1:])
    forget_handled_interrupt()
    sys.exit(code)

entry()
