"""Files shipped with the package: themes, bundled skills and eval suites.

In the repository they live at the top level (`themes/`, `skills_bundled/`, `evals/`); the wheel
carries them inside the package (hatch `force-include`), so an installed copy finds them beside
its modules and a source checkout finds them one level up. Both are folders on disk: the
package is read from files beside `__file__` (what `importlib.resources.files` answers for a
package loaded from a folder, without loading its readers on every `chat -q`).
"""

from __future__ import annotations

from pathlib import Path


def _shipped_path(name: str) -> Path:
    installed = Path(__file__).parent / name
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / name


def themes_dir() -> Path:
    return _shipped_path("themes")


def bundled_skills_dir() -> Path:
    return _shipped_path("skills_bundled")


def bundled_evals_dir() -> Path:
    """The bundled eval suites (`evals/` in the repository, `hermes_tui/evals` in the wheel)."""
    return _shipped_path("evals")
