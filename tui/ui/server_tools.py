"""Server tool blocks on screen: a web search shows as a tool call whose result lists the links it found."""

from __future__ import annotations

import json
from typing import Any

from tui.text.sanitize import one_line
from tui.text.wording import plural
from tui.tools.web_search import search_links

from .widgets.conversation_model import ToolRecord


def search_label(block: dict[str, Any]) -> str:
    """`web search: <query>` from a finished `server_tool_use` block."""
    data = block.get("input")
    if not isinstance(data, dict):
        try:
            data = json.loads(str(data or "{}"))
        except ValueError:
            data = {}
    query = data.get("query") if isinstance(data, dict) else None
    return f"web search: {one_line(str(query))}" if query else f"{block.get('name', 'server tool')}"


def finish_search(tool: ToolRecord, block: dict[str, Any], now: float) -> None:
    """Fill `tool` from its `web_search_tool_result`: the links, or the error code."""
    links, error = search_links(block)
    if error:
        tool.result_text, tool.is_error, tool.state = f"The search failed: {one_line(error)}", True, "error"
    else:
        lines = [f"{one_line(title) or '(untitled)'}\n  {one_line(url)}" for title, url in links]
        tool.result_text, tool.state = "\n".join(lines) or "No results.", "done"
        tool.label = f"{tool.label or 'web search'} · {plural(len(links), 'result')}"
    tool.finished_at = now
    tool.started_at = tool.started_at or tool.queued_at or now
    tool.duration_ms = int((now - tool.started_at) * 1000)
