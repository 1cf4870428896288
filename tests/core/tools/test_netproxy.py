"""The sandbox's network proxy stops when closed without waiting for its serving thread's
next poll."""

from __future__ import annotations

import threading

from hermes_tui.core.tools.netproxy import FilteringProxy


def test_close_stops_the_serving_thread_at_once_however_rarely_it_polls() -> None:
    proxy = FilteringProxy(["example.com"])
    proxy.poll_interval = 3600.0  # it would look at its stop flag once an hour
    before = set(threading.enumerate())
    proxy.start()
    serving = [t for t in threading.enumerate() if t not in before and t.name == "hermes-proxy"]
    assert serving
    closing = threading.Thread(target=proxy.close, daemon=True)
    closing.start()
    closing.join(30)  # bounded: a close that waited for the poll would take an hour
    assert not closing.is_alive(), "close() waited for the serving thread's next poll"
    for thread in serving:
        thread.join(5)
    assert not any(t.is_alive() for t in serving)
    assert not proxy.socket_path.exists() and not proxy.socket_path.parent.exists()
