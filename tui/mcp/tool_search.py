"""Tool search: when MCP tool definitions would fill more than a tenth of the context window,
send a `ToolSearch` tool instead and hand out matching definitions on demand (Claude Code's
tool search, `ENABLE_TOOL_SEARCH`).

Pure functions over `tools[]` definitions plus the tool the model calls. A definition the
search returned is "loaded": it is sent with every later request of the session, so the
model can call it. Never imports the SDK or the engine.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui.text.wording import plural
from tui.tools.base import Tool, ToolContext, ToolError, ToolResult

TOOL_SEARCH_NAME = "ToolSearch"
#: MCP definitions may take this share of the context window before they are deferred
DEFAULT_SHARE = 0.10
DEFAULT_MAX_RESULTS = 5
_CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[a-z0-9]+")


def definition_tokens(definitions: Iterable[dict[str, Any]]) -> int:
    """A rough token count of `tools[]` entries (characters of their JSON / 4, as the context meter counts)."""
    return sum(len(json.dumps(d, ensure_ascii=False)) for d in definitions) // _CHARS_PER_TOKEN


def search_mode(env: dict[str, str] | None = None) -> tuple[str, float]:
    """`ENABLE_TOOL_SEARCH` as (mode, share): "auto" (default, over 10 %; `auto:N` for N %), "on" or "off"."""
    raw = (os.environ if env is None else env).get("ENABLE_TOOL_SEARCH", "auto").strip().lower()
    if raw in ("1", "true", "on", "yes"):
        return "on", DEFAULT_SHARE
    if raw in ("0", "false", "off", "no"):
        return "off", DEFAULT_SHARE
    percent = raw.removeprefix("auto:")
    if raw.startswith("auto:") and percent.replace(".", "", 1).isdigit() and 0 <= float(percent) <= 100:
        return "auto", float(percent) / 100
    return "auto", DEFAULT_SHARE


def should_defer(
    definitions: Sequence[dict[str, Any]], context_window: int, *, share: float = DEFAULT_SHARE, mode: str = "auto"
) -> bool:
    """Whether these MCP definitions should stay out of the request behind ToolSearch."""
    if not definitions or mode == "off":
        return False
    return mode == "on" or definition_tokens(definitions) > share * context_window


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("__", " "))


def _score(definition: dict[str, Any], terms: list[str]) -> int:
    """Name hits count most, then description, then parameter names."""
    name = str(definition.get("name", ""))
    name_words = set(_words(name.replace("_", " ")))
    description = set(_words(str(definition.get("description", ""))))
    properties = definition.get("input_schema", {}).get("properties", {})
    params = set(_words(" ".join(properties))) if isinstance(properties, dict) else set()
    score = 0
    for term in terms:
        if term in name_words:
            score += 10
        elif term in name.lower():
            score += 5
        if term in description:
            score += 2
        elif any(word.startswith(term) for word in description):
            score += 1
        if term in params:
            score += 1
    return score


def search_tools(
    query: str, definitions: Sequence[dict[str, Any]], max_results: int = DEFAULT_MAX_RESULTS
) -> list[dict[str, Any]]:
    """The definitions matching `query`, best first.

    `select:a,b` picks tools by exact name; otherwise the words of the query are matched
    against names, descriptions and parameter names, and a `+word` must appear in the name.
    """
    query = query.strip()
    if query.startswith("select:"):
        wanted = [n.strip() for n in query[len("select:") :].split(",") if n.strip()]
        by_name = {str(d.get("name")): d for d in definitions}
        return [by_name[n] for n in wanted if n in by_name][:max_results]
    required = [w for part in query.split() if part.startswith("+") for w in _words(part)]
    terms = _words(query)
    scored = []
    for index, definition in enumerate(definitions):
        name = str(definition.get("name", "")).lower()
        if any(term not in name for term in required):
            continue
        score = _score(definition, terms)
        if score:
            scored.append((-score, index, definition))
    return [d for _, _, d in sorted(scored, key=lambda item: item[:2])][:max_results]


@dataclass
class DeferredTools:
    """The MCP definitions held back from the request, and the names the search has loaded."""

    definitions: list[dict[str, Any]] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)

    def sent(self) -> list[dict[str, Any]]:
        """The deferred definitions that go with the request (the loaded ones)."""
        chosen = set(self.loaded)
        return [d for d in self.definitions if d.get("name") in chosen]

    def load(self, found: Iterable[dict[str, Any]]) -> list[str]:
        """Mark `found` as loaded; returns the names that were not loaded before."""
        new = [str(d["name"]) for d in found if d.get("name") not in self.loaded]
        self.loaded += new
        return new


def request_definitions(
    builtin: Sequence[dict[str, Any]],
    mcp: Sequence[dict[str, Any]],
    deferred: DeferredTools,
    context_window: int,
    *,
    mode: str = "auto",
    share: float = DEFAULT_SHARE,
) -> list[dict[str, Any]]:
    """`tools[]` for a request: everything, or the built-ins, ToolSearch and the loaded MCP tools."""
    deferred.definitions = list(mcp)
    if not should_defer(mcp, context_window, share=share, mode=mode):
        return [*builtin, *mcp]
    return [*builtin, ToolSearchTool(deferred).definition(), *deferred.sent()]


class ToolSearch:
    """One session's tool search: the deferred MCP definitions and the ToolSearch tool that loads them."""

    def __init__(self, on_load: Callable[[], None] = lambda: None) -> None:
        self.deferred = DeferredTools()
        self.tool = ToolSearchTool(self.deferred, on_load)
        self.active = False

    def definitions(
        self, builtin_names: set[str], definitions: list[dict[str, Any]], context_window: int
    ) -> list[dict[str, Any]]:
        """The request's `tools[]` from all definitions (MCP ones are those not in `builtin_names`)."""
        builtin = [d for d in definitions if d.get("name") in builtin_names]
        mcp = [d for d in definitions if d.get("name") not in builtin_names]
        mode, share = search_mode()
        chosen = request_definitions(builtin, mcp, self.deferred, context_window, mode=mode, share=share)
        self.active = any(d.get("name") == TOOL_SEARCH_NAME for d in chosen)
        return chosen


class ToolSearchTool(Tool):
    """Finds MCP tools by keyword or name and makes them callable from the next request on."""

    name = TOOL_SEARCH_NAME
    description = (
        "Search the tools of the connected MCP servers, whose definitions are not loaded yet. Returns the "
        "definitions of the matching tools; they can be called from then on. Query with keywords "
        '("github issue"), with `+word` to require a word in the tool\'s name, or with '
        "`select:mcp__server__tool,…` to load tools by exact name."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "keywords, +required words, or select:name1,name2"},
            "max_results": {"type": "integer", "minimum": 1, "description": f"default {DEFAULT_MAX_RESULTS}"},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, deferred: DeferredTools, on_load: Callable[[], None] = lambda: None) -> None:
        self.deferred = deferred
        self.on_load = on_load

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        return f"ToolSearch {tool_input.get('query', '')}"

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = tool_input.get("query")
        limit = tool_input.get("max_results", DEFAULT_MAX_RESULTS)
        if not isinstance(query, str) or not query.strip():
            raise ToolError("`query` must be a non-empty string.")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ToolError("`max_results` must be a whole number of at least 1.")
        found = search_tools(query, self.deferred.definitions, limit)
        if not found:
            return ToolResult(f"No MCP tool matches {query!r} among {len(self.deferred.definitions)} deferred tools.")
        if self.deferred.load(found):
            self.on_load()  # the next request carries them
        listed = "\n".join(json.dumps(d, ensure_ascii=False) for d in found)
        return ToolResult(
            f"{plural(len(found), 'matching tool')}, callable from now on:\n{listed}",
            meta={"loaded": [d["name"] for d in found]},
        )
