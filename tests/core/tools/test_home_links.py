"""The user's own files in a writable place, and the global git config's one reader
(home_links.py), against the real git."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core.tools import home_links


def test_the_global_config_is_read_with_its_conditional_includes(tmp_path: Path) -> None:
    """A relative core.hooksPath set in a file an includeIf names is found (hookfix's A9-9
    reads it here), and the included file is among what git_named holds in a place."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".config" / "git").mkdir(parents=True)
    work.mkdir()
    (work / "team.inc").write_text("[core]\n\thooksPath = .githooks\n")
    (home / ".gitconfig").write_text(f'[includeIf "gitdir:{work}/"]\n\tpath = {work}/team.inc\n')
    environ = {"GIT_CONFIG_NOSYSTEM": "1"}
    found = home_links.global_settings(home, environ)
    assert ("core.hookspath", ".githooks") in [(s.key, s.value) for s in found]
    held = home_links.held(home, [work], environ=environ)
    assert [item.path for item in held] == [work / "team.inc"]
    assert "includeif.gitdir:" in held[0].reason


def test_what_git_loads_or_runs_is_held_and_the_repositories_it_lists_are_not(
    tmp_path: Path,
) -> None:
    """`git maintenance register` and safe.directory name the user's repositories (the work:
    they stay writable); an alias's script and the attributes file git reads are held."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    (work / "projA").mkdir(parents=True)
    (home / ".gitconfig").write_text(
        f"[maintenance]\n\trepo = {work}/projA\n[safe]\n\tdirectory = {work}/projA\n"
        f"[alias]\n\tship = !{work}/tools/ship.sh --fast\n\tst = status {work}/projA\n"
        f"[core]\n\tattributesFile = {work}/attributes\n"
    )
    held = home_links.held(home, [work], environ={"GIT_CONFIG_NOSYSTEM": "1"})
    assert sorted(item.path for item in held) == [work / "attributes", work / "tools/ship.sh"]
