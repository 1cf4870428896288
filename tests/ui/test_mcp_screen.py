"""MCP in the app: the first screen does not wait for servers; /mcp shows their state."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fakes.llm_server import FakeLLM
from helpers import make_app

from hermes_tui.ui.screens.mcp import McpScreen
from hermes_tui.ui.widgets.input import ChatInput

FAKE = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")
SIZE = (100, 30)  # small: a frame costs by the cells it draws


async def test_servers_start_behind_the_first_screen_and_slash_mcp_lists_them(home: Path) -> None:
    servers = {
        "tools": {"command": sys.executable, "args": [FAKE]},
        "broken": {"command": "/no/such/mcp-server"},
    }
    with FakeLLM() as llm:
        app = make_app(home, llm.openai_url, mcp_servers=servers)
        async with app.run_test(size=SIZE) as pilot:
            # The app is up and typing works while the server is still starting.
            assert app.query_one(ChatInput).has_focus
            assert app.runtime.mcp.states["tools"].status == "starting"
            app.query_one(ChatInput).text = "/mcp"
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, McpScreen)
            deadline = time.monotonic() + 60
            while app.runtime.mcp.states["tools"].status == "starting":
                assert time.monotonic() < deadline
                await pilot.pause(0.2)
            app.screen.refresh_status()
            await pilot.pause()
            text = str(app.screen.query_one("#mcp-status").render())
            assert "✓ tools  stdio · ready · 5 tools" in text
            assert "✗ broken  stdio · failed · 0 tools" in text
            assert "last error: could not start: command not found (/no/such/mcp-server)" in text
            await pilot.press("escape")
            app.runtime.stop_mcp()
