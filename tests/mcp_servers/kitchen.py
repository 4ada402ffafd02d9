"""A test MCP server with one tool per behaviour the client must handle.

Run: `python -m tests.mcp_servers.kitchen [--http PORT | --sse PORT] [--slow-start S] [--garbage]
[--mark FILE]`. `--mark` names a file the server appends events to (a call cancelled, a
list change), so a test can see what the server itself saw.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    print("kitchen: starting", file=sys.stderr, flush=True)  # before the SDK's imports: a slow start still says it

import argparse
import base64
import os
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ToolAnnotations

#: a 1x1 red PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def build(mark: str | None) -> MCPServer:
    server = MCPServer("kitchen", instructions="A test server.")

    def note(text: str) -> None:
        if mark:
            with open(mark, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Add two numbers.", annotations=ToolAnnotations(read_only_hint=True))
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="A tiny red picture.")
    def picture() -> Image:
        return Image(data=PNG, format="png")

    @server.tool(description="A long text of `chars` characters.")
    def huge(chars: int) -> str:
        return "y" * chars

    @server.tool(description="Exit in the middle of the call.")
    def crash() -> str:
        print("about to crash: goodbye", file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool(description="Fail with an error result.")
    def fail() -> str:
        raise ValueError("the fail tool always fails")

    @server.tool(description="Count up for `seconds`, reporting progress.")
    async def slow(seconds: float, ctx: Context) -> str:
        steps = max(1, int(seconds * 10))
        try:
            for i in range(steps):
                await ctx.report_progress(i + 1, steps, f"step {i + 1}")
                await anyio.sleep(0.1)
        except BaseException:
            note("slow cancelled")
            raise
        return "slow done"

    @server.tool(description="Add a tool named grown and tell the client.")
    async def grow(ctx: Context) -> str:
        server.add_tool(lambda: "grown!", name="grown", description="Appeared later.")
        await ctx.session.send_tool_list_changed()
        note("grew")
        return "grew"

    @server.tool(description="Add a prompt named summary and tell the client.")
    async def grow_prompt(ctx: Context) -> str:
        @server.prompt(description="Summarise a file.")
        def summary(path: str) -> str:
            return f"Summarise {path}."

        await ctx.session.send_prompt_list_changed()
        return "grew a prompt"

    @server.resource("notes://today", description="Today's notes.", mime_type="text/plain")
    def today() -> str:
        return "buy milk"

    @server.prompt(description="Ask for a review of a topic.")
    def review(topic: str) -> str:
        return f"Please review {topic} carefully."

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--sse", type=int)
    parser.add_argument("--slow-start", type=float, default=0.0)
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--mark")
    args = parser.parse_args()
    if args.slow_start:
        time.sleep(args.slow_start)
    if args.garbage:
        print("this is not JSON", flush=True)
    server = build(args.mark)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    elif args.sse:
        server.run("sse", host="127.0.0.1", port=args.sse)
    else:
        server.run()


if __name__ == "__main__":
    main()
