"""Escape sequences in anything the app shows reach the screen as visible text, never raw.

Each source of outside text gets a hostile string (window title, screen clear, colour, 8-bit
CSI, a bidi override); every screen the user can reach with it is rendered and every cell of
it checked.
"""

from __future__ import annotations

from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import make_app, skill_text, wait_until, write_skill

from hermes_tui.core import events as ev
from hermes_tui.ui.screens.modals import SessionsScreen
from hermes_tui.ui.widgets.chat import ToolRow
from hermes_tui.ui.widgets.skills_pane import SkillsPane

SIZE = (130, 40)
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b1;1H\u202eevil"
SHOWN = "␛]0;pwned␇␛[2J␛[31mred␛[1;1H⟨U+202E⟩evil"


def screen_text(app) -> str:
    """Every character the compositor would send for the current screen (toasts included)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def _shown(app, *texts: str) -> None:
    """Until the screen shows every one of `texts` (bounded)."""
    await wait_until(lambda: all(text in screen_text(app) for text in texts), 20)


def assert_safe(app, where: str) -> str:
    text = screen_text(app)
    bad = sorted(
        {
            f"U+{ord(c):04X}"
            for c in text
            if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066"
        }
    )
    assert not bad, f"{where}: raw control characters {bad} reach the terminal"
    return text


async def test_hostile_text_from_every_source_is_shown_not_obeyed(home: Path, llm: FakeLLM) -> None:
    (home / "memories").mkdir(parents=True, exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text(f"note {HOSTILE}\n§\nsecond {HOSTILE}")
    write_skill(
        home / "skills",
        "tricky",
        "ops",
        skill_text("tricky", description=f"desc {HOSTILE}", body=f"# Body\n\n{HOSTILE}\n"),
    )
    command = r"printf 'out \033]0;owned\007\033[2J\233H'"
    llm.script(
        Reply(text=f"reply {HOSTILE}", tool_calls=[("terminal", {"command": command})]),
        Reply(text=f"done {HOSTILE}"),
    )
    app = make_app(home, llm.openai_url, memory={"nudge_interval": 0})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.runtime.memory.remove("memory", "second", origin="user")  # into the archive
        app.query_one("#chat-input").text = f"title {HOSTILE}"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.query_one(ToolRow).collapsed = False
        app.forwarder(ev.Notice("warning", f"notice {HOSTILE}"))
        # The reply is drawn in steps and the notice delivered once a frame: on timers, which a
        # loaded machine runs late (a fixed two pauses were not always enough).
        await _shown(app, f"reply {SHOWN}", f"notice {SHOWN}")
        assert_safe(app, "chat with a tool row and a toast")

        app.action_pane("trace")
        await _shown(app, "printf 'out", "out ␛]0;owned␇␛[2J")
        assert_safe(app, "trace")

        app.action_pane("memory")
        app.query_one("#archive").collapsed = False
        await _shown(app, "␛[31mred", "second")
        assert_safe(app, "memory")

        app.action_pane("skills")
        await pilot.pause()
        app.query_one(SkillsPane).show("tricky")
        await _shown(app, "␛[2J")
        assert_safe(app, "skills")

        app.action_sessions()
        await wait_until(lambda: isinstance(app.screen, SessionsScreen), 20)
        await _shown(app, "title ␛]0;pwned")
        assert_safe(app, "sessions")
        app.screen.query_one("#session-query").value = "pwned"
        await pilot.pause()
        assert_safe(app, "session search")


async def test_a_lone_surrogate_and_deep_arguments_leave_the_app_answering(
    home: Path, llm: FakeLLM
) -> None:
    llm.script(
        Reply(text="a\ud800b shown.", chunk=5),
        # in 25 deltas, not 14,000: the depth is the point here, not how it is split
        Reply(tool_calls=[("terminal", "[" * 50_000 + "]" * 50_000)], args_chunk=4096),
        Reply(text="second done."),
    )
    app = make_app(home, llm.openai_url, memory={"nudge_interval": 0})
    async with app.run_test(size=SIZE) as pilot:
        for prompt in ("hi", "again"):
            app.query_one("#chat-input").text = prompt
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
        # The turn's last events reach the screen after its worker ends: wait for them.
        await wait_until(lambda: "second done." in screen_text(app))
        text = screen_text(app)
        assert "a\ufffdb shown." in text and "second done." in text
        text.encode("utf-8")  # what the terminal is sent can be written
    stored = app.runtime.sessions.messages(app.runtime.sessions.latest().id)
    assert [m.message.content for m in stored][-1] == "second done."
