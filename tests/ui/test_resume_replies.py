"""A resumed session shows its replies, not only the user's messages and the tool rows."""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, wait_until

from hermes_tui.ui.widgets.chat import AssistantMessage, RenderedMarkdown

SIZE = (100, 30)


async def test_a_resumed_session_draws_every_reply(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="First answer here."), Reply(text="Second **answer**."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        for question in ("one", "two"):
            app.query_one("#chat-input").text = question
            await pilot.press("enter")
            await app.workers.wait_for_complete()
        session_id = app.session.id
    again = make_app(home, llm.openai_url)
    async with again.run_test(size=SIZE) as pilot:
        again.resume(session_id)
        await again.workers.wait_for_complete()
        try:
            await wait_until(
                lambda: all(m.settled for m in again.query(AssistantMessage)), timeout=90
            )
        except AssertionError:
            raise AssertionError("the resumed replies were never drawn") from None
        drawn = [
            "\n".join(strip.text for strip in m.query_one(RenderedMarkdown).strips)
            for m in again.query(AssistantMessage)
        ]
    assert [" ".join(text.split()) for text in drawn] == ["First answer here.", "Second answer."]


async def test_the_reviews_hint_shows_its_bracket_keys(home: Path) -> None:
    from hermes_tui.ui.widgets.reviews_pane import ReviewsPane

    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        app.action_pane("reviews")
        await pilot.pause()
        hint = app.query_one(ReviewsPane).query_one(".hint")
        assert "[ and ] pick a change" in str(hint.render())


async def test_resumed_tool_rows_show_empty_odd_and_huge_arguments_plainly(
    home: Path, llm: FakeLLM
) -> None:
    from hermes_tui.ui.widgets.chat import ToolRow

    huge = "x" * 50_000
    llm.script(
        Reply(
            tool_calls=[
                ("skills_list", {}),
                ("skills_list", "not json at all"),
                ("read_file", {"path": "notes.txt", "padding": huge}),
            ]
        ),
        Reply(text="Done."),
    )
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#chat-input").text = "go"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        session_id = app.session.id
    again = make_app(home, llm.openai_url)
    async with again.run_test(size=SIZE) as pilot:
        again.resume(session_id)
        await again.workers.wait_for_complete()
        await pilot.pause()
        empty, odd, big = list(again.query(ToolRow))
        assert str(empty.title).startswith("✓ skills_list  ·"), str(empty.title)
        assert str(empty.detail.content) == "(no arguments)"
        assert "_raw" not in str(odd.title) and "not json at all" in str(odd.title)
        assert str(odd.detail.content) == "(not JSON) not json at all"
        assert "read_file notes.txt" in str(big.title)
        assert len(str(big.detail.content)) < 4100
        assert str(big.detail.content).endswith("more characters)")


async def test_a_reply_whose_body_mounts_after_its_first_step_is_still_drawn() -> None:
    """The suspect of a rare hang under load (a resumed session's reply never settled): the
    first step ran before the reply's body had mounted, returned, and nothing asked again.
    Here the body says it is not mounted for its first few looks."""
    from textual.app import App

    from hermes_tui.ui.widgets.reply import RenderedMarkdown

    class LateBody(RenderedMarkdown):
        looks = 0

        @property
        def is_mounted(self) -> bool:
            LateBody.looks += 1
            return LateBody.looks > 3 and super().is_mounted

    class Host(App):
        def compose(self):
            message = AssistantMessage("A reply from **before**.")
            message.body = LateBody()
            yield message

    app = Host()
    async with app.run_test(size=(60, 10)):
        message = app.query_one(AssistantMessage)
        await wait_until(lambda: message.settled, timeout=10)
        assert LateBody.looks > 3
        drawn = "\n".join(strip.text for strip in message.body.strips)
    assert " ".join(drawn.split()) == "A reply from before."
