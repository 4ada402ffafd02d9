"""A language server that misbehaves on purpose: `silent` answers initialize and then never publishes
diagnostics; `mute` never answers anything; `crash` exits after initialize; `strict` is slow to initialize and
answers a request about a document only after `initialized` and that document's didOpen (null otherwise, as a
server that does not know the file yet). Speaks LSP's framing on stdio."""

from __future__ import annotations

import json
import sys
import time


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


def strict_answer(message: dict, initialized: bool, opened: set[str]) -> object:
    """A definition or symbols of a document the server knows; null for one it does not."""
    uri = message.get("params", {}).get("textDocument", {}).get("uri")
    if not initialized or uri not in opened:
        return None
    where = {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 10}}
    if message["method"] == "textDocument/documentSymbol":
        return [{"name": "helper", "kind": 12, "range": where, "selectionRange": where}]
    return [{"uri": uri, "range": where}]


def main(mode: str) -> None:
    initialized, opened = False, set()
    while (message := read()) is not None:
        if mode == "mute":
            continue
        method = message.get("method", "")
        if mode == "strict" and method == "initialize":
            time.sleep(0.5)  # the client's other callers queue up meanwhile
        if method == "initialized":
            initialized = True
        elif method == "textDocument/didOpen":
            opened.add(message["params"]["textDocument"]["uri"])
        elif mode == "strict" and "id" in message and method.startswith("textDocument/"):
            send({"jsonrpc": "2.0", "id": message["id"], "result": strict_answer(message, initialized, opened)})
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
