"""MCP tools as agent-tui tools: `mcp__<server>__<tool>`, and ListMcpResources / ReadMcpResource.

They go through the same permission gate as every tool: an MCP tool asks by default
(annotations never grant permission); `readOnlyHint` only lets it run alongside other
read-only calls of the same response.
"""

from __future__ import annotations

import json
from typing import Any

from tui.mcp.manager import McpCancelled, McpManager
from tui.mcp.names import unique_names
from tui.mcp.results import resource_text, tool_result
from tui.tools.base import Tool, ToolContext, ToolError, ToolInterrupted, ToolResult

#: the longest server description sent to the model (Claude Code cuts at the same length)
MAX_DESCRIPTION = 2048


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_failed(manager: McpManager, server: str, exc: Exception) -> ToolError:
    from tui.mcp.connection import describe_failure

    why = describe_failure(exc)
    if "timed out" in why and manager.tool_timeout:
        why = f"it did not answer within {manager.tool_timeout:g} s (MCP_TOOL_TIMEOUT)"
    return ToolError(f"The MCP server {server} could not complete the call: {why}.")


class McpTool(Tool):
    """One tool of one MCP server."""

    kind = "read"  # checked by the generic rule path; `read_only` stays False so it asks

    def __init__(self, manager: McpManager, server: str, spec: dict[str, Any], api_name: str, max_tokens: int) -> None:
        self.manager = manager
        self.server = server
        self.tool = str(spec.get("name", ""))
        self.name = api_name  # type: ignore[misc]
        description = str(spec.get("description") or spec.get("title") or f"The {self.tool} tool of {server}.")
        self.description = description[:MAX_DESCRIPTION]  # type: ignore[misc]
        self.input_schema = spec.get("inputSchema") or {"type": "object"}  # type: ignore[misc]
        self.annotations: dict[str, Any] = spec.get("annotations") or {}
        self.read_only_hint = self.annotations.get("readOnlyHint") is True
        self.max_tokens = max_tokens

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return self.read_only_hint

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        args = " ".join(f"{k}={_short(v, 30)}" for k, v in tool_input.items())
        return f"{self.server} › {self.tool}" + (f" {args}" if args else "") + " (MCP)"

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        body = json.dumps(tool_input, indent=2, ensure_ascii=False)
        return {
            "kind": "text",
            "text": f"MCP server {self.server}, tool {self.tool}\n{body}",
            "mcp_server": self.server,
            "mcp_tool": self.tool,
        }

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        def progress(done: float, total: float | None, message: str | None) -> None:
            shown = f"{done:g}/{total:g}" if total else f"{done:g}"
            ctx.emit_output(shown + (f" · {message}" if message else "") + "\n", "progress")

        try:
            connection = self.manager.connection(self.server)
            result = self.manager.call(connection.call_tool(self.tool, tool_input, progress), ctx.cancel)
        except McpCancelled:
            raise ToolInterrupted() from None
        except ConnectionError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a protocol error, a timeout, a crash: the model hears why
            raise _call_failed(self.manager, self.server, exc) from None
        content, is_error = tool_result(result, self.max_tokens, self.name)
        return ToolResult(content, is_error=is_error, meta={"mcp_server": self.server, "mcp_tool": self.tool})


class ListMcpResourcesTool(Tool):
    """Claude Code's ListMcpResourcesTool: the resources every (or one) connected server offers."""

    name = "ListMcpResources"
    description = (
        "List the resources that connected MCP servers offer (files, records, documents), with their "
        "URIs. Pass `server` to list one server's only. Read one with ReadMcpResource."
    )
    input_schema = {
        "type": "object",
        "properties": {"server": {"type": "string", "description": "only this server's resources"}},
    }
    read_only = True

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        wanted = tool_input.get("server")
        states = [s for s in self.manager.states.values() if s.status == "connected"]
        if wanted is not None and wanted not in {s.name for s in states}:
            raise ToolError(
                f"No connected MCP server is named {wanted}; connected: {', '.join(s.name for s in states) or 'none'}."
            )
        listing = [{**r, "server": s.name} for s in states if wanted in (None, s.name) for r in s.resources]
        return ToolResult(json.dumps(listing, ensure_ascii=False, indent=1) if listing else "No resources found.")


class ReadMcpResourceTool(Tool):
    """Claude Code's ReadMcpResourceTool: read one resource by server and URI."""

    name = "ReadMcpResource"
    description = "Read a resource from an MCP server by its URI (see ListMcpResources)."
    input_schema = {
        "type": "object",
        "required": ["server", "uri"],
        "properties": {
            "server": {"type": "string", "description": "the MCP server name"},
            "uri": {"type": "string", "description": "the resource URI"},
        },
    }
    read_only = True

    def __init__(self, manager: McpManager, max_tokens: int) -> None:
        self.manager = manager
        self.max_tokens = max_tokens

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        return f"{tool_input.get('server', '?')} › {_short(tool_input.get('uri', ''))} (MCP resource)"

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        server, uri = str(tool_input["server"]), str(tool_input["uri"])
        try:
            connection = self.manager.connection(server)
            result = self.manager.call(connection.read_resource(uri), ctx.cancel)
        except McpCancelled:
            raise ToolInterrupted() from None
        except ConnectionError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001
            raise _call_failed(self.manager, server, exc) from None
        return ToolResult(resource_text(uri, result, self.max_tokens), meta={"mcp_server": server})


def build_tools(manager: McpManager, max_tokens: int, taken: set[str]) -> list[Tool]:
    """The tools of every connected server, names unique and stable, plus the resource tools when any server has resources."""
    connected = [s for s in manager.states.values() if s.status == "connected"]
    pairs = [(s.name, str(t.get("name", ""))) for s in connected for t in s.tools]
    names = unique_names(pairs, taken)
    tools: list[Tool] = []
    for state in sorted(connected, key=lambda s: s.name):
        for spec in state.tools:
            pair = (state.name, str(spec.get("name", "")))
            tools.append(McpTool(manager, state.name, spec, names[pair], max_tokens))
    if any(s.resources for s in connected):
        tools += [ListMcpResourcesTool(manager), ReadMcpResourceTool(manager, max_tokens)]
    return tools
