"""Screens and modals, imported lazily by the app."""
