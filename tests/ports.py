"""Ports for tests that need a connection refused."""

from __future__ import annotations

import socket

#: the sockets holding `refusing_port`'s ports, for the rest of the process
_HELD: list[socket.socket] = []


def refusing_port() -> int:
    """A port where a connection is refused: bound, never listening, and held so for the rest of the process.

    A port freed at once could be taken by another test's server before the run sent to it (ci24: an OTLP export
    reached that server and the "could not send" sentence never came).
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD.append(sock)
    return int(sock.getsockname()[1])
