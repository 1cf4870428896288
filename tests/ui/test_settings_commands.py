"""/usage /insights /tools /reload-skills /yolo /reasoning /personality (issue 28 item 7)."""

from __future__ import annotations

from pathlib import Path

import yaml
from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, send, skill_text, write_skill

from hermes_tui.ui.widgets.chat import NoteBlock
from hermes_tui.ui.widgets.nudge_bar import NudgeBar

SIZE = (100, 30)  # small: a frame costs by the cells it draws


def _notes(app) -> list[str]:
    return [str(n.content) for n in app.query(NoteBlock)]


async def test_usage_shows_the_sessions_tokens_and_its_reviews(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Hi.", input_tokens=1234, output_tokens=56, cached_tokens=1000))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/usage")
        assert not _notes(app)  # nothing used yet: a toast says so
        await send(app, pilot, "hello")
        await send(app, pilot, "/usage")
        note = _notes(app)[-1]
        assert app.session.id in note
        assert "turns: 1,234 in (1,000 cached" in note and "56 out" in note
        assert "reviews: 0 in" in note


async def test_insights_opens_the_insights_screen(home: Path, llm: FakeLLM) -> None:
    from hermes_tui.ui.screens.insights import InsightsScreen

    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/insights")
        assert isinstance(app.screen, InsightsScreen)


async def test_tools_lists_the_tools_and_what_plan_mode_turns_off(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Hi."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/tools")
        note = _notes(app)[-1]
        assert "✓ terminal (terminal)" in note and "✓ memory (memory)" in note
        assert "read-only" in note
        await send(app, pilot, "hello")
        app.session.agent.context.approval_mode = "plan"
        await send(app, pilot, "/tools")
        note = _notes(app)[-1]
        assert "Tools (plan mode)" in note and "✗ write_file" in note and "off in plan mode" in note


async def test_reload_skills_finds_a_skill_added_since(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="Done."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the app has looked at the skills
        write_skill(home / "skills", "fresh-skill", text=skill_text("fresh-skill"))
        await send(app, pilot, "/reload-skills")
        toasts = [str(n.message) for n in app._notifications]
        assert any("new: fresh-skill" in t for t in toasts), toasts
        await send(app, pilot, "/fresh-skill go")
        assert 'loaded the skill "fresh-skill"' in llm.requests[-1].last_user_text


async def test_yolo_toggles_the_conversations_approval_mode(home: Path, llm: FakeLLM) -> None:
    llm.script(Reply(text="One."), Reply(text="Two."))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/yolo")  # before the first message: the conversation takes it
        await send(app, pilot, "hello")
        assert app.session.agent.context.approval_mode == "yolo"
        await send(app, pilot, "/yolo")
        assert app.session.agent.context.approval_mode in ("sandboxed", "strict")
        await send(app, pilot, "/yolo")
        await send(app, pilot, "/new")
        await send(app, pilot, "again")
        assert app.session.agent.context.approval_mode == "yolo"
        assert app.part(NudgeBar).mode == "yolo"
        saved = yaml.safe_load((home / "config.yaml").read_text())
        assert "mode" not in saved.get("terminal", {})  # this run only, unlike /mode yolo


async def test_reasoning_sets_the_effort_sent_and_the_display(home: Path, llm: FakeLLM) -> None:
    from hermes_tui.ui.widgets.reasoning import ReasoningBlock

    llm.script(Reply(text="A.", reasoning="thinking hard"), Reply(text="B.", reasoning="more"))
    app = make_app(home, llm.openai_url)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/reasoning high")
        await send(app, pilot, "/reasoning hide")
        await send(app, pilot, "hello")
        assert llm.requests[-1].body["reasoning_effort"] == "high"
        assert not list(app.query(ReasoningBlock))
        saved = yaml.safe_load((home / "config.yaml").read_text())
        assert saved["display"]["show_reasoning"] is False
        await send(app, pilot, "/reasoning default")
        await send(app, pilot, "/reasoning show")
        await send(app, pilot, "again")
        assert "reasoning_effort" not in llm.requests[-1].body
        assert list(app.query(ReasoningBlock))
        await send(app, pilot, "/reasoning extreme")  # not a level: nothing changes
        assert app.session.agent.provider.reasoning_effort == ""


async def test_personality_reaches_the_model_without_changing_the_system_prompt(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(Reply(text="Plain."), Reply(text="Arr."), Reply(text="Plain again."))
    personalities = {"pirate": "Talk like a pirate.", "terse": {"system_prompt": "Be terse."}}
    app = make_app(home, llm.openai_url)
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["personalities"] = personalities
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    from hermes_tui.runtime import Runtime

    app.runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "k"}, sink=app.forwarder)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/personality")
        assert "pirate" in _notes(app)[-1] and "terse" in _notes(app)[-1]
        await send(app, pilot, "hello")
        system = llm.requests[-1].system
        await send(app, pilot, "/personality pirate")
        await send(app, pilot, "ahoy")
        assert "Talk like a pirate." in llm.requests[-1].last_user_text
        assert llm.requests[-1].system == system  # the prompt cache keeps hitting
        await send(app, pilot, "/personality none")
        await send(app, pilot, "bye")
        assert "turned the personality off" in llm.requests[-1].last_user_text
        assert yaml.safe_load((home / "config.yaml").read_text())["display"]["personality"] == ""
        assert "personalities" not in app.runtime.config.unused_hermes_keys


async def test_tools_lists_mcp_tools_and_the_servers_without_them(home: Path) -> None:
    import sys

    from helpers import wait_until

    fake = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")
    servers = {
        "tools": {"command": sys.executable, "args": [fake]},
        "broken": {"command": "/no/such/mcp-server"},
        "off": {"command": sys.executable, "args": [fake], "enabled": False},
    }
    with FakeLLM() as llm:
        app = make_app(home, llm.openai_url, mcp_servers=servers)
        async with app.run_test(size=SIZE) as pilot:
            states = app.runtime.mcp.states
            await wait_until(lambda: states["tools"].status == "ready", timeout=60)
            await wait_until(lambda: states["broken"].status == "failed", timeout=60)
            await send(app, pilot, "/tools")
            note = _notes(app)[-1]
            assert "✓ MCP server tools: " in note
            assert "✗ MCP server broken (failed" in note and "✗ MCP server off (disabled" in note
            llm.script(Reply(text="Hi."))
            await send(app, pilot, "hello")  # the conversation's tools: the MCP ones included
            await send(app, pilot, "/tools")
            assert "✓ mcp__tools__" in _notes(app)[-1]
