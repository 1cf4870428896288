"""web_fetch against a loopback web server: the terminal's network policy decides (allowlist,
approval), private addresses are refused unless listed, HTML arrives as Markdown, capped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.web_server import Site

from hermes_tui.core.tools.approvals import ApprovalRequest, Approvals
from hermes_tui.core.tools.netproxy import public_address
from hermes_tui.core.tools.registry import ToolContext, ToolRegistry
from hermes_tui.core.tools.results import ResultLimits
from hermes_tui.core.tools.terminal import TerminalSettings, make_terminal_tools


@pytest.fixture
def site() -> Iterator[Site]:
    served = Site()
    yield served
    served.server.shutdown()
    served.server.server_close()


def registry(tmp_path: Path, allow: tuple[str, ...] = (), network: str = "allowlist"):
    tools = make_terminal_tools(
        TerminalSettings(sandbox="off", network=network, network_allow=allow)  # type: ignore[arg-type]
    )
    return ToolRegistry(tools, limits=ResultLimits(max_chars=8_000, scratch_root=tmp_path))


def context(tmp_path: Path, answer: str = "deny", asked: list | None = None) -> ToolContext:
    def ask(request: ApprovalRequest) -> str:
        if asked is not None:
            asked.append(request)
        return answer

    return ToolContext(cwd=tmp_path, workdir=tmp_path, session_id="s1", approvals=Approvals(ask))


def test_an_allowlisted_page_arrives_as_markdown_without_its_scripts(
    tmp_path: Path, site: Site
) -> None:
    bounded = registry(tmp_path, ("127.0.0.1",)).run(
        "web_fetch", {"url": site.url()}, context(tmp_path)
    )
    result = bounded.result
    assert result["success"] and result["title"] == "Release notes"
    content = result["content"]
    assert content.startswith("# Version 2.0")
    assert "**faster**" in content and "[the docs](/docs)" in content and "- one" in content
    assert "alert" not in content and "color: red" not in content
    assert site.asked == ["/"]


def test_an_unlisted_host_asks_and_a_no_means_no_request_is_made(
    tmp_path: Path, site: Site
) -> None:
    asked: list[ApprovalRequest] = []
    result = (
        registry(tmp_path)
        .run("web_fetch", {"url": site.url()}, context(tmp_path, "deny", asked))
        .result
    )
    assert not result["success"] and result["denied"]
    assert "127.0.0.1 is not on terminal.network_allow" in result["error"]
    assert "connects to 127.0.0.1" in asked[0].reason and asked[0].what.startswith("web_fetch")
    assert site.asked == []


def test_an_approved_private_address_is_still_refused_unless_listed(
    tmp_path: Path, site: Site
) -> None:
    for url in (site.url(), site.url(host="localhost"), f"http://[::1]:{site.port}/"):
        result = registry(tmp_path).run("web_fetch", {"url": url}, context(tmp_path, "once"))
        assert not result.result["success"], url
        assert "private or local address" in result.result["error"], result.result["error"]
    assert site.asked == []
    assert not public_address("10.1.2.3") and not public_address("169.254.169.254")
    assert not public_address("::ffff:127.0.0.1") and public_address("93.184.215.14")


def test_each_redirect_hop_is_judged_again(tmp_path: Path, site: Site) -> None:
    site.pages["/moved"] = (302, "text/html", b"", {"Location": site.url("/", "localhost")})
    asked: list[ApprovalRequest] = []
    result = (
        registry(tmp_path, ("127.0.0.1",))
        .run("web_fetch", {"url": site.url("/moved")}, context(tmp_path, "deny", asked))
        .result
    )
    assert not result["success"] and "localhost is not on terminal.network_allow" in result["error"]
    assert site.asked == ["/moved"] and "localhost" in asked[0].reason


def test_a_big_page_is_capped_like_every_result_and_saved_whole(tmp_path: Path, site: Site) -> None:
    bounded = registry(tmp_path, ("127.0.0.1",)).run(
        "web_fetch", {"url": site.url("/big")}, context(tmp_path)
    )
    assert len(json.dumps(bounded.result)) <= 8_000 and bounded.saved_to is not None
    assert bounded.saved_to.read_text().count("line of text") == 20_000


def test_binary_content_errors_and_network_off_refuse(tmp_path: Path, site: Site) -> None:
    tools = registry(tmp_path, ("127.0.0.1",))
    image = tools.run("web_fetch", {"url": site.url("/image")}, context(tmp_path)).result
    assert not image["success"] and "image/png is not text" in image["error"]
    missing = tools.run("web_fetch", {"url": site.url("/missing")}, context(tmp_path)).result
    assert not missing["success"] and "HTTP 404" in missing["error"]
    for url in ("file:///etc/passwd", "ftp://127.0.0.1/", "javascript:alert(1)"):
        refused = tools.run("web_fetch", {"url": url}, context(tmp_path)).result
        assert "only http:// and https://" in refused["error"]
    off = registry(tmp_path, ("127.0.0.1",), network="off")
    refused = off.run("web_fetch", {"url": site.url()}, context(tmp_path, "once")).result
    assert "terminal.network is off" in refused["error"]
    assert site.asked == ["/image", "/missing"]
