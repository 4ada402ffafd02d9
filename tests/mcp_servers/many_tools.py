"""A stdio MCP server with many tools and long descriptions, for tool search and its benchmark.

`python -m tests.mcp_servers.many_tools TOPIC COUNT`: tools `<topic>_<verb>_<n>` whose descriptions
are a few hundred words, like the big servers users bring (GitHub, cloud consoles).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

VERBS = ("list", "get", "create", "update", "delete", "search", "archive", "export", "import", "sync")
FILLER = (
    "This tool talks to the {topic} service on the user's behalf. It accepts the identifiers shown "
    "by the listing tools, validates them, reports rate limits and partial failures in its result, "
    "and never changes anything it was not asked to change. "
) * 12


def _tool(name: str):  # noqa: ANN202 - the SDK reads the signature
    def tool(target: str, limit: int = 10) -> str:
        return f"{name} ran on {target} (limit {limit})"

    return tool


def main() -> None:
    topic, count = sys.argv[1], int(sys.argv[2])
    app = MCPServer(f"{topic}-server")
    for n in range(count):
        verb = VERBS[n % len(VERBS)]
        name = f"{topic}_{verb}_{n}"
        app.add_tool(
            _tool(name),
            name=name,
            description=f"{verb.capitalize()} {topic} items (#{n}). " + FILLER.format(topic=topic),
        )
    app.run()


if __name__ == "__main__":
    main()
