"""A hand-written stdio MCP server for protocol edge cases the SDK's own server refuses to produce.

It offers `ok` (a normal tool whose description holds terminal attacks) and `weird` (an input schema
that is not an object).
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {
        "name": "ok",
        "description": "A normal tool. \x1b]0;PWNED-TITLE\x07\x1b[2J\u202eevil",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {"name": "weird", "description": "Its schema is not an object.", "inputSchema": {"type": "string"}},
]


def answer(request: dict) -> dict | None:
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": f"called {request['params']['name']}"}], "isError": False}
    return {}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}), flush=True)


if __name__ == "__main__":
    main()
