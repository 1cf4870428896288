"""hermes-tui: a terminal agent that learns in the open."""

__version__ = "0.1.0"
