"""Tool search over MCP tool definitions: when to defer, what a query finds, what the request carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.mcp.tool_search import (
    TOOL_SEARCH_NAME,
    DeferredTools,
    ToolSearch,
    definition_tokens,
    request_definitions,
    search_mode,
    search_tools,
    should_defer,
)
from tui.tools.base import SessionState, ToolContext, ToolError


def tool(name: str, description: str, *params: str) -> dict:
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {p: {"type": "string"} for p in params}},
    }


TOOLS = [
    tool("mcp__github__create_issue", "Create an issue in a GitHub repository.", "repo", "title", "body"),
    tool("mcp__github__list_pull_requests", "List the pull requests of a repository.", "repo", "state"),
    tool("mcp__slack__post_message", "Post a message to a Slack channel.", "channel", "text"),
    tool("mcp__db__run_query", "Run a read-only SQL query against the database.", "sql"),
]
BUILTIN = [tool("Read", "Read a file.", "file_path")]


def test_defer_only_above_a_tenth_of_the_window() -> None:
    size = definition_tokens(TOOLS)
    assert size > 0
    assert not should_defer(TOOLS, context_window=size * 10)
    assert should_defer(TOOLS, context_window=size * 10 - 10)
    assert not should_defer([], context_window=1)
    assert should_defer(TOOLS, context_window=10**9, mode="on")
    assert not should_defer(TOOLS, context_window=1, mode="off")
    assert search_mode({"ENABLE_TOOL_SEARCH": "true"}) == ("on", 0.10)
    assert search_mode({"ENABLE_TOOL_SEARCH": "false"}) == ("off", 0.10)
    assert search_mode({}) == search_mode({"ENABLE_TOOL_SEARCH": "auto:x"}) == ("auto", 0.10)
    assert search_mode({"ENABLE_TOOL_SEARCH": "auto:5"}) == ("auto", 0.05)
    assert should_defer(TOOLS, context_window=size * 10, share=0.05)


def test_keywords_rank_names_first_then_descriptions_and_parameters() -> None:
    names = [d["name"] for d in search_tools("github issue", TOOLS)]
    assert names[0] == "mcp__github__create_issue"
    assert "mcp__github__list_pull_requests" in names and "mcp__slack__post_message" not in names
    assert [d["name"] for d in search_tools("sql", TOOLS)] == ["mcp__db__run_query"]
    assert [d["name"] for d in search_tools("channel", TOOLS)] == ["mcp__slack__post_message"]
    assert [d["name"] for d in search_tools("repository +pull", TOOLS)] == ["mcp__github__list_pull_requests"]
    assert search_tools("weather", TOOLS) == []
    assert len(search_tools("a", TOOLS * 3, max_results=2)) <= 2


def test_select_picks_exact_names_in_the_order_asked() -> None:
    found = search_tools("select:mcp__db__run_query,nope,mcp__slack__post_message", TOOLS)
    assert [d["name"] for d in found] == ["mcp__db__run_query", "mcp__slack__post_message"]


def test_the_request_carries_tool_search_and_then_what_it_loaded(tmp_path: Path) -> None:
    deferred = DeferredTools()
    window = definition_tokens(TOOLS) * 5  # the MCP tools would take a fifth of it
    first = request_definitions(BUILTIN, TOOLS, deferred, window)
    assert [d["name"] for d in first] == ["Read", TOOL_SEARCH_NAME]
    assert request_definitions(BUILTIN, TOOLS, DeferredTools(), window * 100) == [*BUILTIN, *TOOLS]

    loads = []
    search = ToolSearch(on_load=lambda: loads.append(1))
    assert [d["name"] for d in search.definitions({"Read"}, [*BUILTIN, *TOOLS], window)] == ["Read", TOOL_SEARCH_NAME]
    assert search.active
    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    result = search.tool.run({"query": "slack message"}, ctx)
    assert "mcp__slack__post_message" in result.text() and result.text().startswith("1 matching tool, callable")
    assert loads == [1]
    again = search.definitions({"Read"}, [*BUILTIN, *TOOLS], window)
    assert [d["name"] for d in again] == ["Read", TOOL_SEARCH_NAME, "mcp__slack__post_message"]
    search.tool.run({"query": "select:mcp__slack__post_message"}, ctx)
    assert loads == [1]  # nothing new: the request stays as it is
    assert "No MCP tool matches" in search.tool.run({"query": "weather"}, ctx).text()
    with pytest.raises(ToolError, match="`query` must be a non-empty string"):
        search.tool.run({"query": " "}, ctx)
    with pytest.raises(ToolError, match="`max_results` must be a whole number"):
        search.tool.run({"query": "x", "max_results": 0}, ctx)
