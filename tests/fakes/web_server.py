"""A loopback web server for web_fetch tests: scripted pages by path, and every path asked for."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"""<!doctype html><html><head><title>Release notes</title>
<style>body { color: red }</style><script>alert("steal the cookies")</script></head>
<body><h1>Version 2.0</h1><p>Now with <b>faster</b> builds. See <a href="/docs">the docs</a>.</p>
<ul><li>one</li><li>two</li></ul><p>\x1b[2Jcleared?</p></body></html>"""


class Site:
    """A loopback web server: pages by path, and every path it was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.pages: dict[str, tuple[int, str, bytes, dict[str, str]]] = {
            "/": (200, "text/html; charset=utf-8", PAGE, {}),
            "/big": (200, "text/plain", b"line of text\n" * 20_000, {}),
            "/image": (200, "image/png", b"\x89PNG\r\n\x1a\n", {}),
            "/missing": (404, "text/html", b"<p>no</p>", {}),
        }
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.asked.append(self.path)
                status, kind, body, headers = site.pages.get(self.path, site.pages["/missing"])
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        # (shutdown() waits for the loop's next poll: 0.5 s apart by default.)
        serve = self.server.serve_forever
        threading.Thread(target=serve, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"
