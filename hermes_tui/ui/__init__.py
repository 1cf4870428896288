"""The full-screen face (Textual). It renders core state and forwards intent; no business rules."""
