"""The `web_fetch` tool: one URL fetched by the app on the model's behalf, returned as Markdown.

Where it may go is the terminal's network policy, not a second list: each host is put to the
same decision as a sandboxed command's connection (`Sandbox.decide`: `terminal.network`, the
allowlist `terminal.network_allow`, this conversation's "allow for this session" hosts, and
otherwise its approvals ask the human, so `chat -q` refuses an unlisted host without --yolo). Then SSRF: the
host's addresses are resolved once and each must be public (not loopback, private, link-local,
reserved...) unless the host or address is on the allowlist by name, and the connection goes
to the address that was checked, so a second DNS answer cannot move it. Redirects are followed
by hand, at most MAX_REDIRECTS, each hop judged the same way. At most MAX_BYTES of body are
read; HTML becomes Markdown with markdownify (scripts, styles and other inert markup dropped
first), text types pass as they are, anything else is refused. The registry redacts and caps
the result like every other, and the page taints the turn (core/agent/taint.py).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from hermes_tui import __version__
from hermes_tui.core.records import datarecord
from hermes_tui.core.tools import schemas
from hermes_tui.core.tools.registry import Tool, ToolContext

if TYPE_CHECKING:
    from hermes_tui.core.tools.netproxy import Connection

MAX_BYTES = 5_000_000
MAX_REDIRECTS = 5
TIMEOUT = 30.0
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")
# Tags whose text is not the page's text; dropped before conversion.
INERT = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head")

# (host, port, context, what is asking) -> the network policy's verdict (terminal.Sandbox.decide)
Decide = Callable[[str, int, ToolContext, str], "Connection"]


class FetchRefused(Exception):
    """The fetch may not go ahead; the message says why, for the model."""


@datarecord
class Page:
    """A fetched web page, cut to size."""

    url: str
    status: int
    content_type: str
    body: bytes
    cut: bool
    charset: str | None
    redirect: str | None = None  # where a 3xx sends the next hop


def resolve(host: str, port: int, allow: tuple[str, ...]) -> str:
    """The address to connect to; refuses a non-public one unless the host or it is listed."""
    from hermes_tui.core.tools.netproxy import addresses_of, unlisted_local

    try:
        addresses = addresses_of(host, port)
    except socket.gaierror as exc:
        raise FetchRefused(f"cannot resolve {host}: {exc.strerror}") from None
    if (local := unlisted_local(host, addresses, allow)) is not None:
        raise FetchRefused(
            f"{host} resolves to {local}, a private or local address; web_fetch reaches "
            "those only when terminal.network_allow lists the host"
        )
    return addresses[0]


def _get(url: str, address: str) -> Page:
    import http.client  # here, not at import: every session loads this module

    parts = urlsplit(url)
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    kind = http.client.HTTPSConnection if secure else http.client.HTTPConnection
    connection = kind(parts.hostname or "", port, timeout=TIMEOUT)
    # Connect to the address that was checked; the Host header and TLS name stay the host's.
    # (`_create_connection` is how http.client opens its socket, in every CPython 3.)
    connection._create_connection = lambda _where, *args: socket.create_connection(  # type: ignore[attr-defined]
        (address, port), *args
    )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(
            "GET",
            path,
            headers={
                "User-Agent": f"hermes-tui/{__version__} (web_fetch)",
                "Accept": "text/html, text/markdown, text/plain;q=0.9, */*;q=0.5",
                "Accept-Encoding": "identity",
            },
        )
        response = connection.getresponse()
        location = response.getheader("Location")
        body = response.read(MAX_BYTES + 1)
        content_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        charset = response.headers.get_content_charset()
    except (OSError, http.client.HTTPException) as exc:
        raise FetchRefused(f"could not fetch {url}: {exc}") from None
    finally:
        connection.close()
    if response.status in (301, 302, 303, 307, 308) and location:
        return Page(url, response.status, "", b"", False, None, urljoin(url, location))
    return Page(
        url, response.status, content_type, body[:MAX_BYTES], len(body) > MAX_BYTES, charset
    )


def _markdown(html: str) -> tuple[str, str]:
    """(title, Markdown) of an HTML page."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(INERT):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    return title, re.sub(r"\n{3,}", "\n\n", text).strip()


def fetch(url: str, context: ToolContext, decide: Decide, allow: tuple[str, ...]) -> dict[str, Any]:
    for _hop in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchRefused(f"only http:// and https:// URLs can be fetched, not {url[:200]!r}")
        host = parts.hostname
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise FetchRefused(f"bad port in {url[:200]!r}") from None
        verdict = decide(host, port, context, f"web_fetch {url}")
        if not verdict.allowed:
            raise FetchRefused(
                f"{host} is not on terminal.network_allow and the user did not approve it"
                if verdict.how == "refused"
                else f"{host}: {verdict.how}"
            )
        page = _get(url, resolve(host, port, allow))
        if page.redirect is not None:
            url = page.redirect  # the next hop is judged from the start
            continue
        return _result(page)
    raise FetchRefused(f"more than {MAX_REDIRECTS} redirects")


def _result(page: Page) -> dict[str, Any]:
    if page.status >= 400:
        return {"success": False, "url": page.url, "error": f"HTTP {page.status} from {page.url}"}
    if page.content_type and not page.content_type.startswith(TEXT_TYPES):
        return {
            "success": False,
            "url": page.url,
            "error": f"{page.content_type} is not text; web_fetch returns web pages and text",
        }
    text = page.body.decode(page.charset or "utf-8", errors="replace")
    title = ""
    if page.content_type in ("text/html", "application/xhtml+xml") or (
        not page.content_type and text.lstrip()[:1] == "<"
    ):
        title, text = _markdown(text)
    result: dict[str, Any] = {
        "success": True,
        "url": page.url,
        "status": page.status,
        "content_type": page.content_type,
        "title": title,
        "content": text,
    }
    if page.cut:
        result["note"] = f"the page is larger than {MAX_BYTES:,} bytes; only its start was read"
    return result


def make_web_tools(decide: Decide, allow: tuple[str, ...]) -> list[Tool]:
    def web_fetch(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        try:
            return fetch(str(arguments["url"]), context, decide, allow)
        except FetchRefused as exc:
            return {"success": False, "denied": True, "error": f"not fetched: {exc}"}

    def preview(result: dict[str, Any]) -> str:
        title = result.get("title") or result.get("url", "")
        return f"{result.get('status')} · {len(result.get('content', '')):,} chars · {title}"[:120]

    return [Tool(**schemas.WEB_FETCH, handler=web_fetch, preview=preview)]
