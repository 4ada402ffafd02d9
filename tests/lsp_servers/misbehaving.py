"""A language server that misbehaves on purpose: `silent` answers initialize and then never publishes
diagnostics; `mute` never answers anything; `crash` exits after initialize. Speaks LSP's framing on stdio."""

from __future__ import annotations

import json
import sys


def read() -> dict | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message: dict) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main(mode: str) -> None:
    while (message := read()) is not None:
        if mode == "mute":
            continue
        if message.get("method") == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif message.get("method") == "initialized" and mode == "crash":
            print("fatal: the fake server gave up", file=sys.stderr, flush=True)
            sys.exit(3)
        elif message.get("method") == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif message.get("method") == "exit":
            return


if __name__ == "__main__":
    main(sys.argv[1])
