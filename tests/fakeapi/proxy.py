"""A loopback HTTP CONNECT proxy that records the tunnels it was asked for."""

from __future__ import annotations

import socket
import threading
from socketserver import BaseRequestHandler, ThreadingTCPServer


class _Server(ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    connects: list[str]


class _Handler(BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.request.recv(4096)
            if not data:
                return
            head += data
        line = head.split(b"\r\n", 1)[0].decode(errors="replace")
        method, _, rest = line.partition(" ")
        target = rest.split(" ", 1)[0]
        self.server.connects.append(target)
        if method != "CONNECT":
            self.request.sendall(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
            return
        host, _, port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=10)
        except OSError:
            self.request.sendall(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            return
        self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        pump = threading.Thread(target=_pipe, args=(upstream, self.request), daemon=True)
        pump.start()
        _pipe(self.request, upstream)
        pump.join(10)


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class ConnectProxy:
    """`with ConnectProxy() as proxy:` serves on 127.0.0.1; `proxy.connects` lists the CONNECT targets."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.connects = []
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def connects(self) -> list[str]:
        return list(self._server.connects)

    def __enter__(self) -> ConnectProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
