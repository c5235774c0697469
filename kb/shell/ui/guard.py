"""The reading room's connections, bounded: a request must arrive whole within a time, and
only so many connections are held at once (issue 24, F19).

uvicorn bounds neither by itself: its keep-alive timeout starts only after a response, and
`limit_concurrency` answers 503 only to a request that has fully arrived, which a slow
client never sends. So 400 clients that each open a connection and send a header line every
few seconds held 400 descriptors, and under `ulimit -n 256` the room could no longer accept
(or open its index): "Too many open files". Here:

- `REQUEST_TIMEOUT_S`: from the moment a connection is made, or a response on it completes,
  the next request (headers and body) must have arrived within this time, or the
  connection is closed. A streamed reply (the chat) is not cut: the clock stops when the
  request is in.
- `connection_cap()`: at most this many connections are held; one past it is closed the
  moment it is accepted, so its descriptor is given back at once. It is held well under
  the process's descriptor limit, leaving room for the index connections, and the event
  loop accepts only `accept_burst()` connections at a time, so a burst of clients cannot
  take every descriptor before the cap sees them.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 64
# Descriptors kept for everything but client connections: the index connections (three per
# open store, kb.io.store.MAX_OPEN_STORES of them at most), the listening socket, the pipes.
RESERVED_FDS = 128
MIN_CONNECTIONS = 4


def connection_cap() -> int:
    """How many connections the room holds at once, under this process's descriptor limit."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # pragma: no cover - no rlimit to read
        return MAX_CONNECTIONS
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, (soft - RESERVED_FDS) // 2))


def accept_burst(cap: int) -> int:
    """How many connections the event loop accepts in one go (uvicorn's `backlog`, which is
    also the listening queue): asyncio accepts that many before any reaches the protocol
    that closes one past the cap, so a burst of clients holds at most about three bursts of
    descriptors beyond the cap at any moment."""
    return max(MIN_CONNECTIONS, cap // 4)


def request_timeout() -> float:
    """REQUEST_TIMEOUT_S, or `KB_UI_REQUEST_TIMEOUT` seconds when set (tests shorten it)."""
    raw = os.environ.get("KB_UI_REQUEST_TIMEOUT", "").strip()
    try:
        value = float(raw) if raw else REQUEST_TIMEOUT_S
    except ValueError:
        return REQUEST_TIMEOUT_S
    return value if value > 0 else REQUEST_TIMEOUT_S


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request and a cap on connections."""

    cap = MAX_CONNECTIONS
    timeout = REQUEST_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.cap:
            transport.abort()  # its descriptor is given back now, not when it times out
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the request is in: the reply may take as long as it takes

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self.transport.close()
