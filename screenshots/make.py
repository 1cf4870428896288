"""Render the README screenshots from the real app: SVG always, PNG where rsvg-convert exists.

Uses the scripted demo provider on a throwaway home, so no key and no network are needed:
the main screen after the demo's first run (with the review's learning in the side panel), the
skills browser on the skill the review wrote, and the SKILL.md editor's diff preview.
Run: `.venv/bin/python screenshots/make.py`.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from hermes_tui.config import Overrides
from hermes_tui.core.llm.demo import TASK
from hermes_tui.runtime import Runtime
from hermes_tui.ui.app import EventForwarder, HermesApp
from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.skills_pane import SkillsPane

OUT = Path(__file__).resolve().parent
SIZE = (140, 42)


def steady(app: HermesApp) -> None:
    app.clear_notifications()
    for row in app.query(ToolRow):
        row.title = re.sub(r"\d+\.\d+s", "0.02s", str(row.title))


async def render(home: Path) -> list[Path]:
    forwarder = EventForwarder()
    runtime = Runtime.open(home, Overrides(provider="demo"), sink=forwarder)
    app = HermesApp(runtime, forwarder, watch_files=False)
    shots = []
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = TASK
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        runtime.wait_for_reviews(30)
        await pilot.pause(0.3)
        app.action_pane("reviews")
        await pilot.pause(0.3)
        steady(app)
        shots.append(Path(app.save_screenshot("main.svg", str(OUT))))
        app.action_pane("skills")
        app.action_resize_panel(30)
        await pilot.pause()
        app.query_one(SkillsPane).show("deprecated-calls-report")
        await pilot.pause()
        steady(app)
        shots.append(Path(app.save_screenshot("skills.svg", str(OUT))))
        app.query_one(SkillsPane).post_message(SkillsPane.EditSkill("deprecated-calls-report"))
        await pilot.pause()
        area = app.screen.query_one("#skill-text")
        area.text = area.text.replace("2. Count:", "2. Count (fast, no detours):")
        await pilot.press("ctrl+s")
        await pilot.pause()
        steady(app)
        shots.append(Path(app.save_screenshot("editor-diff.svg", str(OUT))))
    return shots


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shots = asyncio.run(render(Path(tmp)))
    converter = shutil.which("rsvg-convert")
    for svg in shots:
        if converter:
            subprocess.run([converter, str(svg), "-o", str(svg.with_suffix(".png"))], check=True)
        print(svg.with_suffix(".png" if converter else ".svg"))


if __name__ == "__main__":
    main()
