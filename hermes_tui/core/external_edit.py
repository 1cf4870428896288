"""Editing a text in the user's own `$EDITOR`, outside the sandbox (the memory and skill
editors' external edit).

The editor starts in a folder of its own, made for this edit and removed after it, holding only
the file: not in the working directory, where editors load what lies there (Helix's
`.helix/languages.toml` starts language servers, Vim's `.exrc` with exrc on, Neovim's
`.nvim.lua`) and a sandboxed command may have left it (attack7's A7-8 addendum).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Run = Callable[..., Any]


def edit_text(words: list[str], text: str, run: Run = subprocess.run) -> str:
    """`text` as the editor `words` (its program first) left it: written to a file in a new
    private folder (0700), the editor run on that file with that folder as its working
    directory (`run` is subprocess.run, or one that suspends the screen around it)."""
    folder = Path(tempfile.mkdtemp(prefix="hermes-edit-"))
    try:
        path = folder / "text.md"
        path.write_text(text, encoding="utf-8")
        run([*words, str(path)], check=False, cwd=folder)
        return path.read_text(encoding="utf-8")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def editor_words(environ: Mapping[str, str] | None = None) -> list[str]:
    """`$VISUAL`, else `$EDITOR`, else vi, split into words."""
    env = os.environ if environ is None else environ
    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    return editor.split() or ["vi"]
