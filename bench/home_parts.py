"""What the emptied home's parts cost per command (attack9's A9-1 fix, core/tools/home_parts.py):
home_view.shown + view_args binding each folder whole (as before the fix: no kinds) against the
same with what stays out of prefixes, toolchains and import-path folders found and hidden, in
the same run on the same home.

The home (made in a temporary folder): an nvm with 3 nodes (each 300 files in lib/), a pyenv
git checkout with 3 Pythons and plugins, ~/.cargo, ~/.pulumi, and a PYTHONPATH folder of 40
projects (each 20 folders of 10 files, a .git and a .env). For each way: the first profile
(nothing remembered) and the next ones (the walks kept, their folders' mtimes checked).
Prints milliseconds (median of 7) and the ratio of each to binding whole. Run:
`PYTHONPATH=. .venv/bin/python bench/home_parts.py`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from timing import median_ms

from hermes_tui.core.tools import home_parts, home_view


def plant(home: Path) -> list[Path]:
    for node in ("v18.0.0", "v20.0.0", "v22.0.0"):
        prefix = home / ".nvm/versions/node" / node
        for sub in ("bin", "include", "share", "etc"):
            (prefix / sub).mkdir(parents=True)
        for i in range(300):
            (prefix / "lib" / f"m{i // 30}").mkdir(parents=True, exist_ok=True)
            (prefix / "lib" / f"m{i // 30}" / f"f{i}.js").touch()
        (prefix / "etc/npmrc").touch()
    (home / ".nvm/.git").mkdir()
    (home / ".nvm/nvm.sh").touch()
    for version in ("3.10.13", "3.11.7", "3.12.1"):
        for sub in ("bin", "lib/python3/site-packages", "include"):
            (home / ".pyenv/versions" / version / sub).mkdir(parents=True)
    for plugin in ("pyenv-virtualenv", "python-build"):
        (home / ".pyenv/plugins" / plugin / "bin").mkdir(parents=True)
        (home / ".pyenv/plugins" / plugin / ".git").mkdir()
        (home / ".pyenv/plugins" / plugin / "README.md").touch()
    (home / ".pyenv/.git").mkdir()
    for tool in (".cargo", ".pulumi"):
        (home / tool / "bin").mkdir(parents=True)
        (home / tool / "credentials.toml").touch()
    code = home / "code"
    for p in range(40):
        for f in range(20):
            folder = code / f"proj{p}" / f"pkg{f}"
            folder.mkdir(parents=True)
            for i in range(10):
                (folder / f"m{i}.py").touch()
        (code / f"proj{p}/.git").mkdir()
        (code / f"proj{p}/.env").touch()
    return [
        home / ".cargo/bin",
        home / ".pulumi/bin",
        code,
        home / ".nvm/versions/node/v20.0.0/bin",
    ]


def profile(home: Path, programs: list[Path], parts: bool) -> list[str]:
    wanted, kinds = home_view.shown(home, programs, [home / "work"], ())
    args, _roots, _left = home_view.view_args(home, wanted, [], Path.exists, kinds if parts else {})
    return args


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        home = Path(temporary)
        programs = plant(home)
        whole = median_ms(lambda: profile(home, programs, False), 7)

        def first() -> None:
            home_parts._walks.clear()
            profile(home, programs, True)

        cold = median_ms(first, 7)
        profile(home, programs, True)
        kept = median_ms(lambda: profile(home, programs, True), 7)
        mounts = len(profile(home, programs, True)) - len(profile(home, programs, False))
        print(f"bound whole (before A9-1)      {whole:7.2f} ms  1.00")
        print(f"parts, first profile           {cold:7.2f} ms  {cold / whole:5.2f}")
        print(f"parts, next profiles (kept)    {kept:7.2f} ms  {kept / whole:5.2f}")
        print(f"bubblewrap arguments added: {mounts}")


if __name__ == "__main__":
    main()
