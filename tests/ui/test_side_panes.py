"""The side panel's hidden panes (Trace, Skills, Reviews) are made the first time they show,
and then show everything that happened before: the start pays only for the Memory pane."""

from __future__ import annotations

import time
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, skill_text, wait_until
from textual.widgets import DataTable, ListView, Tree

from hermes_tui.core.agent.review import ReviewRecord
from hermes_tui.core.events import ReviewChange
from hermes_tui.ui.widgets.reviews_pane import ReviewItem

SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_a_hidden_pane_is_made_on_its_first_show_with_what_came_before(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(
        Reply(
            tool_calls=[
                ("terminal", {"command": "echo one"}),
                ("terminal", {"command": "echo two"}),
            ]
        ),
        Reply(text="Both ran."),
    )
    app = make_app(home, llm.openai_url)
    app.runtime.skills.create("deploy-app", skill_text("deploy-app"), origin="user")
    app.runtime.reviews.save(
        ReviewRecord(
            "r1", "s1", "memory", time.time(), time.time(), "done", "memory +1 (user)", "Saved.",
            changes=[ReviewChange("memory", "user", "add", None, "Uses fish.")],
        )
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        for made_on_show in ("#trace-table", "#skills-tree", "#review-list"):
            assert not app.query(made_on_show), made_on_show
        assert app.query("#memory-memory ListView")  # the pane on screen is there at once
        await send(app, pilot, "run both")
        assert not app.query("#trace-table")  # the calls ran while the Trace was hidden

        await pilot.click("#--content-tab-trace")  # a click on its tab, not f1
        await wait_until(lambda: app.query("#trace-table"))
        table = app.query_one("#trace-table", DataTable)
        await wait_until(lambda: table.row_count == 2)
        await pilot.pause()
        results = [str(table.get_row_at(row)[-1]) for row in range(2)]
        assert all(result.startswith("✓") for result in results), results
        assert table.cursor_row == 1  # the newest call, its detail below
        assert "echo two" in str(app.query_one("#trace-call").content)

        await pilot.click("#--content-tab-skills")
        await wait_until(lambda: app.query("#skills-tree"))
        tree = app.query_one("#skills-tree", Tree)
        leaves = [leaf.data for node in tree.root.children for leaf in node.children]
        assert ("skill", "deploy-app") in leaves

        await pilot.click("#--content-tab-reviews")
        await wait_until(lambda: app.query(ReviewItem))
        assert "memory +1 (user)" in app.query_one(ReviewItem).record.summary
        assert app.query_one("#review-list", ListView).index == 0
