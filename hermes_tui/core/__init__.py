"""The behaviour of hermes-tui: plain Python, no UI toolkit imports (DESIGN.md section 1)."""
