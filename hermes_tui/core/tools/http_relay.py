"""One HTTP/1.1 request through the filtering proxy (netproxy.py), and nothing after it.

The proxy judges the host a request names; what it forwards must name no other. So a request
head is read strictly (RFC 9112): lines end in CRLF (a bare CR or LF, which some servers take as
a line end, would carry a second `Host:` past the check: attack7's A7-2), no folded lines, no
space before a field's colon, one framing of the body (Content-Length or chunked, never both: a
request smuggled inside another's body is how a second Host would travel), HTTP/1.0 or 1.1 only.
The head is rebuilt with the judged Host and `Connection: close`; the body is forwarded as its
framing says and the response relayed back; a byte after the body (a pipelined second request,
with a Host of its own) ends the connection instead of being forwarded.
"""

from __future__ import annotations

import re
import select
import socket
from dataclasses import dataclass

MAX_LINE = 8 * 1024  # a chunk-size or trailer line
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# A first flight that may still become a request line: a method token, then a space.
_MAY_BE_REQUEST = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}(?: |$)")
# Dropped from what the client sent: the proxy sets Host and Connection itself; hop-by-hop
# fields and Upgrade (a protocol switch would carry unframed bytes past this relay).
_DROPPED = frozenset({"host", "connection", "keep-alive", "upgrade", "te", "trailer"})


class BadRequest(Exception):
    """A request the proxy refuses to forward: the status and a short reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@dataclass(frozen=True)
class Head:
    """A request head as read: its request line and fields (name as sent, value trimmed)."""

    method: str
    target: str
    version: str
    fields: tuple[tuple[str, str], ...]

    def values(self, name: str) -> list[str]:
        return [value for field, value in self.fields if field.lower() == name]

    def render(self, host: str) -> bytes:
        """The head as forwarded: `target` as is, Host `host`, no hop-by-hop field."""
        kept = [
            f"{name}: {value}"
            for name, value in self.fields
            if name.lower() not in _DROPPED and not name.lower().startswith("proxy-")
        ]
        lines = [f"{self.method} {self.target} {self.version}", f"Host: {host}", *kept]
        return ("\r\n".join([*lines, "Connection: close"]) + "\r\n\r\n").encode("latin-1")


def may_be_request(data: bytes) -> bool:
    """Whether a first flight's bytes so far can be the start of an HTTP request."""
    return _MAY_BE_REQUEST.match(data) is not None


def parse_head(header: bytes) -> Head:
    """The head before its blank line, read strictly (BadRequest otherwise)."""
    lines = header.decode("latin-1").split("\r\n")
    if any("\r" in line or "\n" in line or "\x00" in line for line in lines):
        raise BadRequest(400, "a bare CR or LF in the request head")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise BadRequest(400, "bad request line")
    method, target, version = parts
    if not _TOKEN.fullmatch(method) or version not in ("HTTP/1.0", "HTTP/1.1"):
        raise BadRequest(400, "bad request line")
    if not target or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in target):
        raise BadRequest(400, "bad request target")
    fields = []
    for line in lines[1:]:
        if line[:1] in (" ", "\t"):
            raise BadRequest(400, "folded header lines are not accepted")
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            raise BadRequest(400, "bad header line")
        fields.append((name, value.strip(" \t")))
    return Head(method, target, version, tuple(fields))


def body_of(head: Head) -> Body:
    """How the request's body is framed (RFC 9112 6.3), refusing what two readers could read
    two ways."""
    encodings, lengths = head.values("transfer-encoding"), head.values("content-length")
    if encodings and lengths:
        raise BadRequest(400, "both Transfer-Encoding and Content-Length")
    if encodings:
        if len(encodings) != 1 or encodings[0].lower() != "chunked":
            raise BadRequest(501, "only the chunked transfer coding is carried")
        return _Chunked()
    if lengths:
        if len(set(lengths)) != 1 or not (lengths[0].isascii() and lengths[0].isdigit()):
            raise BadRequest(400, "bad Content-Length")
        return _Fixed(int(lengths[0]))
    return _Fixed(0)


class _Fixed:
    """A body of a known length."""

    def __init__(self, length: int) -> None:
        self.left = length

    @property
    def done(self) -> bool:
        return self.left == 0

    def feed(self, data: bytes) -> tuple[bytes, bytes]:
        """(what belongs to the body, what comes after it)."""
        taken = data[: self.left]
        self.left -= len(taken)
        return taken, data[len(taken) :]


class _Chunked:
    """A chunked body, read chunk by chunk to its last-chunk and trailer section."""

    def __init__(self) -> None:
        self.state, self.left, self.line = "size", 0, b""

    @property
    def done(self) -> bool:
        return self.state == "done"

    def feed(self, data: bytes) -> tuple[bytes, bytes]:
        at = 0
        while at < len(data) and self.state != "done":
            if self.state == "data":
                step = min(self.left, len(data) - at)
                at, self.left = at + step, self.left - step
                if not self.left:
                    self.state = "crlf"
                continue
            end = data.find(b"\n", at)
            self.line += data[at : len(data) if end < 0 else end + 1]
            at = len(data) if end < 0 else end + 1
            if len(self.line) > MAX_LINE:
                raise BadRequest(400, "a chunk line too long")
            if end >= 0:
                self._line(self.line)
                self.line = b""
        return data[:at], data[at:]

    def _line(self, line: bytes) -> None:
        if not line.endswith(b"\r\n") or b"\r" in line[:-2]:
            raise BadRequest(400, "a chunk line not ended by CRLF")
        text = line[:-2]
        if self.state == "crlf":
            if text:
                raise BadRequest(400, "chunk data longer than its size")
            self.state = "size"
        elif self.state == "size":
            size = text.split(b";", 1)[0].strip(b" \t")
            if not size or size.strip(b"0123456789abcdefABCDEF") or len(size) > 16:
                raise BadRequest(400, "bad chunk size")
            self.left = int(size, 16)
            self.state = "data" if self.left else "trailer"
        elif not text:  # the trailer section's end
            self.state = "done"


Body = _Fixed | _Chunked


def relay(
    client: socket.socket,
    upstream: socket.socket,
    head: bytes,
    body: Body,
    pending: bytes,
    idle: float,
) -> None:
    """Send `head`, then the body as framed (`pending`: bytes the client sent with the head),
    relaying the response meanwhile, until the server closes. Nothing the client sends past
    the body is read any more."""
    upstream.sendall(head)
    sockets = [client, upstream]
    while True:
        if pending:
            try:
                taken, after = body.feed(pending)
            except BadRequest:
                return
            if taken:
                upstream.sendall(taken)
            if after:  # a second request on this connection: not carried, the first answered
                sockets = [upstream]
            pending = b""
        ready, _, _ = select.select(sockets, [], [], idle)
        if not ready:
            return
        if upstream in ready:
            try:
                data = upstream.recv(65536)
                if data:
                    client.sendall(data)
            except OSError:
                return
            if not data:
                return
        if client in ready:
            try:
                pending = client.recv(65536)
            except OSError:
                return
            if not pending:
                sockets = [upstream]  # the client is done sending; the response goes on
