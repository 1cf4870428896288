"""web_fetch in `chat -q` against the loopback model and a loopback web server: an unlisted
host is refused without --yolo, and a fetched page taints the turn (a memory write is held)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from fakes.web_server import Site
from helpers import run_main, write_config


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def site():
    served = Site()
    yield served
    served.server.shutdown()
    served.server.server_close()


def test_an_unlisted_host_is_refused_without_yolo(
    home: Path, tmp_path: Path, llm: FakeLLM, site: Site, capfd: pytest.CaptureFixture[str]
) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(tool_calls=[("web_fetch", {"url": site.url()})]), Reply(text="Could not."))
    done = run_main(capfd, home, "chat", "-q", "read the notes", cwd=tmp_path, OPENAI_API_KEY="k")
    assert done.returncode == 0, done.stderr
    assert "refused (needs approval: it connects to 127.0.0.1" in done.stderr
    assert site.asked == [], "no request reached the host"
    (tool,) = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    assert json.loads(tool["content"])["denied"]


def test_an_allowlisted_page_reaches_the_model_as_markdown_and_taints_the_turn(
    home: Path, tmp_path: Path, llm: FakeLLM, site: Site, capfd: pytest.CaptureFixture[str]
) -> None:
    write_config(home, llm.openai_url, terminal={"network_allow": ["127.0.0.1"]})
    llm.script(
        Reply(tool_calls=[("web_fetch", {"url": site.url()})]),
        Reply(
            tool_calls=[
                ("memory", {"action": "add", "target": "memory", "content": "Version 2.0 is out."})
            ]
        ),
        Reply(text="Noted."),
    )
    done = run_main(capfd, home, "chat", "-q", "what is new?", cwd=tmp_path, OPENAI_API_KEY="k")
    assert done.returncode == 0, done.stderr
    page = next(m for m in llm.requests[1].body["messages"] if m["role"] == "tool")
    assert "# Version 2.0" in json.loads(page["content"])["content"]
    assert "held for approval: memory" in done.stderr and "a web page" in done.stderr
    assert (
        not (home / "memories" / "MEMORY.md").exists()
        or "Version 2.0" not in (home / "memories" / "MEMORY.md").read_text()
    )
