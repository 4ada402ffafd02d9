"""The host-checking proxy sandboxed commands reach their allowed domains through (HTTP CONNECT and plain HTTP).

It listens on a unix socket in the run's folder; each sandbox's init forwards its own
127.0.0.1:3128 to it. Only the host name is checked (TLS is not inspected); a blocked host gets a
403 and is remembered, so the Bash result can name it.
"""

from __future__ import annotations

import os
import select
import socket
import socketserver
import threading
import time
from collections import deque

HEAD_LIMIT = 65536
CONNECT_TIMEOUT = 10.0


def host_allowed(host: str, port: int, patterns: list[str]) -> bool:
    """Whether `host:port` matches one of `patterns` (`example.com`, `*.example.com`, `host:port`)."""
    host = host.lower().rstrip(".").strip("[]")
    for pattern in patterns:
        name, _, want_port = pattern.rpartition(":") if pattern.count(":") == 1 else (pattern, "", "")
        if want_port and int(want_port) != port:
            continue
        name = name.lower().rstrip(".")
        if name.startswith("*."):
            if host.endswith(name[1:]) and host != name[2:]:
                return True
        elif host == name:
            return True
    return False


def _relay(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    ends = [a, b]
    try:
        while True:
            ready, _, _ = select.select(ends, [], [], 300)
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (b if sock is a else a).sendall(data)
    except OSError:
        return


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        client: socket.socket = self.request
        head = b""
        while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        line, _, rest = head.partition(b"\r\n")
        try:
            method, target, version = line.decode("latin-1").split(" ", 2)
        except ValueError:
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            return
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            port = int(port_text) if port_text.isdigit() else 443
            path = ""
        else:
            if not target.lower().startswith("http://"):
                client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                return
            hostport, _, path = target[7:].partition("/")
            host, _, port_text = hostport.rpartition(":") if hostport.count(":") == 1 else (hostport, "", "")
            port = int(port_text) if port_text.isdigit() else 80
            path = "/" + path
        if not host_allowed(host, port, self.server.allowed):
            self.server.record_block(host)
            body = f"agent-tui sandbox: {host} is not in sandbox.network.allowed_domains\n".encode()
            client.sendall(
                b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                b"X-Agent-Tui-Blocked: "
                + host.encode("latin-1", "replace")
                + f"\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            return
        try:
            upstream = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            body = f"agent-tui sandbox proxy: cannot reach {host}:{port}: {exc}\n".encode()
            client.sendall(
                f"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
            )
            return
        upstream.settimeout(None)
        with upstream:
            if method.upper() == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n" + b"")
                if b"\r\n\r\n" in head:
                    extra = head.split(b"\r\n\r\n", 1)[1]
                    if extra:
                        upstream.sendall(extra)
            else:
                headers = [
                    h
                    for h in rest.split(b"\r\n")
                    if not h.lower().startswith((b"proxy-connection:", b"proxy-authorization:"))
                ]
                upstream.sendall(f"{method} {path} {version}\r\n".encode("latin-1") + b"\r\n".join(headers))
            _relay(client, upstream)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, path: str, allowed: list[str]) -> None:
        self.allowed = allowed
        self.blocked: deque[tuple[float, str]] = deque(maxlen=200)
        super().__init__(path, _Handler)

    def record_block(self, host: str) -> None:
        self.blocked.append((time.monotonic(), host))


class Proxy:
    """The proxy of one agent-tui run: started on first use, stopped at exit."""

    def __init__(self, path: str, allowed: list[str]) -> None:
        self.path = path
        self.server = _Server(path, allowed)
        os.chmod(path, 0o600)
        self.thread = threading.Thread(target=self.server.serve_forever, name="sandbox-proxy", daemon=True)
        self.thread.start()

    def blocked_since(self, since: float) -> list[str]:
        """Host names refused since `since` (a time.monotonic value), each once."""
        return list(dict.fromkeys(host for when, host in list(self.server.blocked) if when >= since))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
