"""The Skills pane's install dialog: look at a source, choose, install with provenance hub."""

from __future__ import annotations

from pathlib import Path

from helpers import make_app, skill_text, wait_until, write_skill
from textual.widgets import Button, Checkbox, Input, SelectionList

from hermes_tui.ui.screens.install import InstallScreen
from hermes_tui.ui.widgets.skills_pane import SkillsPane

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def source_with_three(root: Path) -> Path:
    write_skill(root, "lint-fix", "python")
    cautious = write_skill(root, "odd-one", "misc")
    (cautious / "assets").mkdir()
    (cautious / "assets" / "blob.bin").write_bytes(b"\x00\x01binary")  # a medium finding
    dangerous = write_skill(root, "wipe-disk", "ops")
    (dangerous / "SKILL.md").write_text(skill_text("wipe-disk", body="1. `mkfs.ext4 /dev/sda1`\n"))
    return root


async def look(app, pilot, source: Path) -> InstallScreen:
    app.action_pane("skills")
    await pilot.pause()
    app.query_one(SkillsPane).action_install()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, InstallScreen)
    screen.query_one("#install-source", Input).value = str(source)
    await pilot.click("#install-look")
    await until(pilot, lambda: "Fetching" not in str(screen.query_one("#install-status").render()))
    return screen


async def until(pilot, condition, seconds: float = 30.0) -> None:
    """Wait for what a worker thread hands back to the UI (call_from_thread), not a fixed time."""
    try:
        await wait_until(condition, timeout=seconds)
    except AssertionError:
        raise AssertionError("timed out waiting for the dialog") from None


async def test_the_dialog_lists_verdicts_and_installs_only_what_may_go_in(
    home: Path, tmp_path: Path
) -> None:
    source = source_with_three(tmp_path / "src")
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        screen = await look(app, pilot, source)
        listing = screen.query_one("#install-list", SelectionList)
        options = {
            listing.get_option_at_index(i).value: listing.get_option_at_index(i)
            for i in range(listing.option_count)
        }
        assert options["wipe-disk"].disabled and "dangerous" in str(options["wipe-disk"].prompt)
        assert not options["odd-one"].disabled
        assert list(listing.selected) == ["lint-fix"]  # only the safe one starts selected
        assert "binary" in str(screen.query_one("#install-findings").render())

        listing.select("odd-one")
        await pilot.click("#install-go")
        await pilot.pause()
        assert "tick the box" in str(screen.query_one("#install-status").render())
        assert app.runtime.skills.get("odd-one") is None

        screen.query_one("#install-force", Checkbox).value = True
        screen.query_one("#install-go", Button).press()
        await until(pilot, lambda: not isinstance(app.screen, InstallScreen))
        assert not isinstance(app.screen, InstallScreen)
        library = app.runtime.skills
        assert {library.provenance(library.require(n)) for n in ("lint-fix", "odd-one")} == {"hub"}
        assert library.get("wipe-disk") is None


async def test_a_bad_source_is_shown_in_the_dialog(home: Path, tmp_path: Path) -> None:
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        screen = await look(app, pilot, tmp_path / "missing")
        status = screen.query_one("#install-status")
        assert "does not exist" in str(status.render()) and status.has_class("-error")
        assert screen.query_one("#install-go", Button).disabled
