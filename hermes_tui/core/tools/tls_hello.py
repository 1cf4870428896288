"""The name a TLS ClientHello asks for (its server_name), for the filtering proxy (netproxy.py).

A tunnel is allowed by its CONNECT name, but a CDN's addresses serve every customer's site by
the name inside the TLS handshake: `CONNECT pypi.org:443` could carry a session for
upload.pypi.org or an attacker's site on the same CDN (attack6's A6-7). The proxy reads the
client's first bytes and judges the name the hello asks for like the CONNECT name. Pure
parsing, bounded by the bytes given; anything malformed reads as "not a hello".
"""

from __future__ import annotations

from typing import Literal

HANDSHAKE = 0x16  # TLS record type
CLIENT_HELLO = 0x01  # handshake type
SERVER_NAME = 0x0000  # extension type
# Encrypted Client Hello and draft ESNI: the name the server answers for is hidden inside, the
# one in server_name only the front's (attack9's A9-11); a command has no need of either here.
HIDDEN_NAME = frozenset({0xFE0D, 0xFFCE})
Kind = Literal["more", "hello", "other"]


def hello_name(data: bytes) -> tuple[Kind, str | None]:
    """("more", None) while `data` is the start of a ClientHello not yet whole; ("hello",
    name) once it is (name None when it asks for none); ("other", None) when it is not one,
    or hides the name it asks for (HIDDEN_NAME)."""
    handshake, at = b"", 0
    while True:
        if len(data) < at + 5:
            started = data[at:]
            tls = not started or (started[0] == HANDSHAKE and (len(started) < 2 or started[1] == 3))
            return ("more", None) if tls else ("other", None)
        if data[at] != HANDSHAKE or data[at + 1] != 3:
            return "other", None
        length = int.from_bytes(data[at + 3 : at + 5], "big")
        if len(data) < at + 5 + length:
            return "more", None
        handshake += data[at + 5 : at + 5 + length]
        at += 5 + length
        if len(handshake) >= 4:
            if handshake[0] != CLIENT_HELLO:
                return "other", None
            need = int.from_bytes(handshake[1:4], "big")
            if len(handshake) >= 4 + need:
                hidden, name = _server_name(handshake[4 : 4 + need])
                return ("other", None) if hidden else ("hello", name)


def _server_name(body: bytes) -> tuple[bool, str | None]:
    """(whether a ClientHello body hides its name, the host_name of its server_name extension
    if any)."""
    name, hidden = None, False
    try:
        at = 2 + 32  # client version, random
        at += 1 + body[at]  # session id
        at += 2 + int.from_bytes(body[at : at + 2], "big")  # cipher suites
        at += 1 + body[at]  # compression methods
        end = at + 2 + int.from_bytes(body[at : at + 2], "big")
        at += 2
        while at + 4 <= min(end, len(body)):
            kind = int.from_bytes(body[at : at + 2], "big")
            size = int.from_bytes(body[at + 2 : at + 4], "big")
            data = body[at + 4 : at + 4 + size]
            at += 4 + size
            hidden = hidden or kind in HIDDEN_NAME
            if kind == SERVER_NAME and name is None:
                name = _host_name(data)
    except IndexError:
        return hidden, name
    return hidden, name


def _host_name(data: bytes) -> str | None:
    """The first host_name of a server_name_list: length, then (type, length, name) entries."""
    inner = 2
    while inner + 3 <= len(data):
        name_type = data[inner]
        name_len = int.from_bytes(data[inner + 1 : inner + 3], "big")
        name = data[inner + 3 : inner + 3 + name_len]
        inner += 3 + name_len
        if name_type == 0 and name:
            return name.decode("ascii", "replace").lower().rstrip(".")
    return None
