"""WebSearch: the API's own web search server tool, offered in tools[] and run by the API, never here.

The model's `server_tool_use` and the `web_search_tool_result` that follows arrive in the
response itself; the loop sends them back unchanged. A bare `WebSearch` deny rule (or plan
mode's read-only set, which it belongs to) decides whether it is offered at all.
"""

from __future__ import annotations

from typing import Any

from tui.tools.base import Tool, ToolContext, ToolError, ToolResult

SERVER_TOOL_TYPE = "web_search_20250305"
SERVER_TOOL_NAME = "web_search"
DEFAULT_MAX_USES = 8


class WebSearchTool(Tool):
    name = "WebSearch"
    description = (
        "Searches the web through the API's server tool; results come back as web_search_tool_result "
        "blocks. (Not sent: the server tool's definition replaces it.)"
    )
    input_schema = {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True
    #: run by the API: its definition goes into tools[] as a server tool and the dispatcher never sees a call
    server_tool = True

    def __init__(
        self,
        max_uses: int = DEFAULT_MAX_USES,
        allowed_domains: list[str] | None = None,
        blocked_domains: list[str] | None = None,
    ) -> None:
        self.max_uses = max_uses
        self.allowed_domains = list(allowed_domains or [])
        self.blocked_domains = list(blocked_domains or [])

    def definition(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": SERVER_TOOL_TYPE, "name": SERVER_TOOL_NAME, "max_uses": self.max_uses}
        if self.allowed_domains:  # the API takes one list or the other, never both
            entry["allowed_domains"] = self.allowed_domains
        elif self.blocked_domains:
            entry["blocked_domains"] = self.blocked_domains
        return entry

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise ToolError("WebSearch runs on the API's side; call `web_search` as a server tool instead.")


def search_links(block: dict[str, Any]) -> tuple[list[tuple[str, str]], str | None]:
    """(title, url) pairs of a `web_search_tool_result` block, and its error code when it failed."""
    content = block.get("content")
    if isinstance(content, dict):  # {"type": "web_search_tool_result_error", "error_code": ...}
        return [], str(content.get("error_code") or "unknown error")
    links = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and item.get("type") == "web_search_result":
            links.append((str(item.get("title") or ""), str(item.get("url") or "")))
    return links, None
