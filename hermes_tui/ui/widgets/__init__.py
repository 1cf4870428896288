"""Widgets of the main screen, each with its own DEFAULT_CSS."""
